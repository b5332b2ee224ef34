/* codec_binary.c: the binary codec: a tagged binary encoding instead of JSON text, with no heap traffic per call
 * (steps 2 and 5 of the boundary report's changes, docs/method.md#the-boundary-report).
 *
 * A value crosses as a tagged buffer: one tag byte, then its payload. Numbers are raw bytes in the machine's order
 * (both ends are one process), strings are length-prefixed UTF-8 (with a NUL after them, which Dyn promises), arrays
 * and objects are a count and their items, a key is either new (its UTF-8) or a reference to a key already sent in
 * the same message (keys are interned per call), and a function is a handle. Both ends convert directly: JS value
 * -> buffer -> Dyn for script -> host, Dyn -> buffer -> JS value for host -> script. No text, no strtod, no snprintf.
 *
 * The codec allocates nothing per call once its buffers have grown, besides what it hands over (the Dyn result of a
 * host -> script call, the memory of bytes given to a script): a message buffer and a decode arena per nesting level
 * (a host function may call JavaScript that calls a host function), reused; Dyn arguments decoded for a host
 * function live in the arena and point into the buffer. Key strings are cached across calls on both sides (atom ->
 * UTF-8 and UTF-8 -> atom), holding their atoms until the context goes.
 *
 * What JSON loses, this keeps: undefined (also inside arrays), NaN, -0, +-Infinity, lone surrogates (as WTF-8, as
 * QuickJS writes them), functions anywhere in a value, and bytes: a Uint8Array crosses as bytes (T_BYTES, beyond the
 * proposed tag list: a length and the raw bytes, copied into the message) and comes back as a Uint8Array over an
 * ArrayBuffer that wraps host memory, freed by its finaliser. Other typed arrays cross as arrays of numbers, as in
 * the json codec. Cycles and nesting deeper than BIN_MAX_DEPTH are a RangeError; bigints and symbols a TypeError. */
#include "bridge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_UNDEF, T_NULL, T_FALSE, T_TRUE, T_INT32, T_F64, T_STR, T_ARR, T_OBJ, T_FN, T_BYTES };

/* The json parser's limit, counted the same way: the argument list is level 1, every value one more. */
#define BIN_MAX_DEPTH 128
#define BIN_NEST 8        /* host -> script -> host nesting levels */
#define KEY_SLOTS 256     /* per key cache; a power of two */
#define MAX_ARGS 8

typedef struct key_slot {
	JSAtom atom; /* held; JS_ATOM_NULL when the slot is empty */
	char *s;     /* its UTF-8, malloc'd */
	uint32_t len, hash;
	uint32_t gen, idx; /* interned as key idx in the message of number gen */
} key_slot;

/* dec_key is a key the decoder has read in the current message. */
typedef struct dec_key {
	const char *p;
	uint32_t len;
	JSAtom atom; /* held while decoding to JS; unused when decoding to Dyn */
} dec_key;

typedef struct bin_msg {
	uint8_t *p;
	size_t len, cap, pos;
	int oom;
	uint32_t gen, nkeys;
	size_t arena_need; /* bytes of array items and object members in the message */
	dec_key *keys;
	uint32_t nkeys_dec, keys_cap;
	unsigned char *arena;
	size_t arena_cap, arena_used;
} bin_msg;

struct bin_state {
	bin_msg msgs[BIN_NEST];
	int depth; /* messages in use */
	uint32_t gen;
	JSAtom atom_length;
	key_slot by_atom[KEY_SLOTS]; /* script -> host: a property's atom to its UTF-8 */
	key_slot by_str[KEY_SLOTS];  /* host -> script: a key's UTF-8 to its atom */
};

/* ==== State and messages ==== */

static void slot_clear(JSContext *ctx, key_slot *k)
{
	if (k->atom != JS_ATOM_NULL)
		JS_FreeAtom(ctx, k->atom);
	bb_free(k->s);
	memset(k, 0, sizeof *k);
}

void bin_free(br_state *st)
{
	bin_state *b = st->bin;
	int i;

	if (!b)
		return;
	for (i = 0; i < KEY_SLOTS; i++) {
		slot_clear(st->ctx, &b->by_atom[i]);
		slot_clear(st->ctx, &b->by_str[i]);
	}
	for (i = 0; i < BIN_NEST; i++) {
		bb_free(b->msgs[i].p);
		bb_free(b->msgs[i].keys);
		bb_free(b->msgs[i].arena);
	}
	JS_FreeAtom(st->ctx, b->atom_length);
	bb_free(b);
	st->bin = NULL;
}

/* msg_begin takes the message buffer of the next nesting level; NULL after an error result. */
static bin_msg *msg_begin(br_state *st)
{
	bin_state *b = st->bin;

	if (!b) {
		b = st->bin = bb_calloc(1, sizeof *b);
		if (!b) {
			host_err(st, "bridge: out of memory");
			return NULL;
		}
		b->atom_length = JS_NewAtom(st->ctx, "length");
	}
	if (b->depth == BIN_NEST) {
		host_err(st, "bridge: calls nested more than %d deep", BIN_NEST);
		return NULL;
	}
	return &b->msgs[b->depth++];
}

static void msg_end(br_state *st)
{
	st->bin->depth--;
}

/* msg_reset starts a new message in m: its keys are new again. */
static void msg_reset(br_state *st, bin_msg *m)
{
	m->len = m->pos = 0;
	m->oom = 0;
	m->gen = ++st->bin->gen;
	if (m->gen == 0) /* 0 marks a slot never interned: skip it when the counter wraps */
		m->gen = ++st->bin->gen;
	m->nkeys = 0;
	m->nkeys_dec = 0;
	m->arena_need = 0;
}

/* The per-value writers and readers are forced inline: out of line, their calls cost a third of a scalar call. */
#if defined(__GNUC__)
#define HOT static inline __attribute__((always_inline))
#else
#define HOT static inline
#endif

static int grow(bin_msg *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 256;
	uint8_t *p;

	while (cap < m->len + n)
		cap *= 2;
	p = bb_realloc(m->p, cap);
	if (!p) {
		m->oom = 1;
		return -1;
	}
	m->p = p;
	m->cap = cap;
	return 0;
}

/* reserve returns room for n more bytes, or NULL after setting m->oom (checked once per message). */
HOT uint8_t *reserve(bin_msg *m, size_t n)
{
	uint8_t *p;

	if (m->cap - m->len < n && grow(m, n) < 0)
		return NULL;
	p = m->p + m->len;
	m->len += n;
	return p;
}

HOT void put(bin_msg *m, const void *src, size_t n)
{
	uint8_t *p = reserve(m, n);

	if (p)
		memcpy(p, src, n);
}

HOT void put_u8(bin_msg *m, uint8_t v)
{
	uint8_t *p = reserve(m, 1);

	if (p)
		*p = v;
}

HOT void put_u32(bin_msg *m, uint32_t v)
{
	put(m, &v, 4);
}

/* put_tag writes a tag and a 4- or 8-byte payload in one reservation. */
HOT void put_tag(bin_msg *m, uint8_t tag, const void *payload, size_t n)
{
	uint8_t *p = reserve(m, 1 + n);

	if (p) {
		p[0] = tag;
		memcpy(p + 1, payload, n);
	}
}

/* put_bytes writes len, the bytes and a NUL. */
static void put_bytes(bin_msg *m, const char *s, uint32_t len)
{
	uint8_t *p = reserve(m, 4 + (size_t)len + 1);

	if (p) {
		memcpy(p, &len, 4);
		memcpy(p + 4, s, len);
		p[4 + len] = 0;
	}
}

HOT uint8_t get_u8(bin_msg *m)
{
	return m->p[m->pos++];
}

HOT uint32_t get_u32(bin_msg *m)
{
	uint32_t v;

	memcpy(&v, m->p + m->pos, 4);
	m->pos += 4;
	return v;
}

HOT double get_f64(bin_msg *m)
{
	double v;

	memcpy(&v, m->p + m->pos, 8);
	m->pos += 8;
	return v;
}

/* put_num writes an int32 when the double is one (and not -0), else the raw double. */
HOT void put_num(bin_msg *m, double d)
{
	if (d >= INT32_MIN && d <= INT32_MAX && d == (double)(int32_t)d && !(d == 0 && signbit(d))) {
		int32_t i = (int32_t)d;
		put_tag(m, T_INT32, &i, 4);
	} else {
		put_tag(m, T_F64, &d, 8);
	}
}

/* ==== Keys ==== */

static uint32_t hash_bytes(const char *s, size_t len)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

/* put_key writes slot k's key: a reference when the message already holds it, else its bytes. */
static void put_key(bin_msg *m, key_slot *k)
{
	if (k->gen == m->gen) {
		put_u32(m, k->idx << 1 | 1);
		return;
	}
	k->gen = m->gen;
	k->idx = m->nkeys++;
	put_u32(m, k->len << 1);
	put(m, k->s, k->len);
	put_u8(m, 0);
}

/* atom_slot returns the cache slot of a property's atom, filling it on a miss. NULL with a pending exception. */
static key_slot *atom_slot(br_state *st, JSAtom atom)
{
	key_slot *k = &st->bin->by_atom[(atom * 2654435761u) >> 24 & (KEY_SLOTS - 1)];
	JSValue str;
	const char *s;
	size_t len;

	if (k->atom == atom && atom != JS_ATOM_NULL)
		return k;
	str = JS_AtomToString(st->ctx, atom);
	if (JS_IsException(str))
		return NULL;
	s = JS_ToCStringLen(st->ctx, &len, str);
	JS_FreeValue(st->ctx, str);
	if (!s)
		return NULL;
	slot_clear(st->ctx, k);
	k->s = bb_malloc(len + 1);
	if (!k->s || len >= 0x7fffffff) {
		JS_FreeCString(st->ctx, s);
		JS_ThrowOutOfMemory(st->ctx);
		return NULL;
	}
	memcpy(k->s, s, len + 1);
	JS_FreeCString(st->ctx, s);
	k->len = (uint32_t)len;
	k->atom = JS_DupAtom(st->ctx, atom);
	return k;
}

/* str_slot returns the cache slot of a key's UTF-8, filling it on a miss. NULL after an error result. */
static key_slot *str_slot(br_state *st, const char *s, size_t len)
{
	uint32_t h = hash_bytes(s, len);
	key_slot *k = &st->bin->by_str[h & (KEY_SLOTS - 1)];
	JSAtom atom;

	if (k->s && k->hash == h && k->len == len && memcmp(k->s, s, len) == 0)
		return k;
	atom = JS_NewAtomLen(st->ctx, s, len);
	if (atom == JS_ATOM_NULL) {
		bb_js_exception_text(st->ctx, st->err, sizeof st->err);
		return NULL;
	}
	slot_clear(st->ctx, k);
	k->s = bb_malloc(len + 1);
	if (!k->s || len >= 0x7fffffff) {
		JS_FreeAtom(st->ctx, atom);
		host_err(st, "bridge: out of memory");
		return NULL;
	}
	memcpy(k->s, s, len);
	k->s[len] = '\0';
	k->len = (uint32_t)len;
	k->hash = h;
	k->atom = atom;
	return k;
}

/* ==== JS value -> buffer ==== */

static int too_deep(JSContext *ctx)
{
	JS_ThrowRangeError(ctx, "bridge: value nested deeper than %d levels (or cyclic)", BIN_MAX_DEPTH);
	return -1;
}

static int enc_js(br_state *st, bin_msg *m, JSValueConst v, int depth);

static int enc_js_array(br_state *st, bin_msg *m, JSValueConst v, int depth)
{
	JSContext *ctx = st->ctx;
	JSValue lv = JS_GetProperty(ctx, v, st->bin->atom_length);
	uint32_t n, i;

	if (JS_IsException(lv) || JS_ToUint32(ctx, &n, lv) < 0) {
		JS_FreeValue(ctx, lv);
		return -1;
	}
	JS_FreeValue(ctx, lv);
	put_tag(m, T_ARR, &n, 4);
	m->arena_need += (size_t)n * sizeof(dyn);
	for (i = 0; i < n; i++) { /* a hole reads as undefined, as it does in JavaScript */
		JSValue item = JS_GetPropertyUint32(ctx, v, i);
		int rc = JS_IsException(item) ? -1 : enc_js(st, m, item, depth + 1);
		JS_FreeValue(ctx, item);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* enc_js_typed writes a typed array or ArrayBuffer as an array of numbers, as the json codec's replacer does. */
const uint8_t *typed_data(br_state *st, JSValueConst v, int kind, size_t *nbytes, size_t *elem)
{
	size_t off = 0, size;
	const uint8_t *data;
	JSValue buf;

	*elem = 1;
	if (kind == BIN_ARRAY_BUFFER)
		return JS_GetArrayBuffer(st->ctx, nbytes, v);
	buf = JS_GetTypedArrayBuffer(st->ctx, v, &off, nbytes, elem);
	if (JS_IsException(buf))
		return NULL;
	data = JS_GetArrayBuffer(st->ctx, &size, buf); /* v keeps the buffer alive */
	JS_FreeValue(st->ctx, buf);
	return data ? data + off : NULL;
}

static int enc_js_typed(br_state *st, bin_msg *m, JSValueConst v, int kind)
{
	size_t nbytes, elem, i;
	const uint8_t *data = typed_data(st, v, kind, &nbytes, &elem);
	uint32_t n;

	if (!data)
		return -1;
	n = (uint32_t)(nbytes / elem);
	put_tag(m, T_ARR, &n, 4);
	m->arena_need += nbytes / elem * sizeof(dyn);
	for (i = 0; i < nbytes / elem; i++)
		put_num(m, binary_elem(data, kind, i));
	return 0;
}

/* enc_js_bytes copies a Uint8Array's bytes into the message: the copying path (the fast codec reads them in place). */
static int enc_js_bytes(br_state *st, bin_msg *m, JSValueConst v)
{
	size_t nbytes, elem;
	const uint8_t *data = typed_data(st, v, BIN_U8, &nbytes, &elem);
	uint32_t n;
	uint8_t *p;

	if (!data)
		return -1;
	if (nbytes > UINT32_MAX) {
		JS_ThrowRangeError(st->ctx, "bridge: bytes too long");
		return -1;
	}
	n = (uint32_t)nbytes;
	put_tag(m, T_BYTES, &n, 4);
	p = reserve(m, n);
	if (p)
		memcpy(p, data, n);
	return 0;
}

static int enc_js_object(br_state *st, bin_msg *m, JSValueConst v, int depth)
{
	JSContext *ctx = st->ctx;
	JSPropertyEnum *props;
	uint32_t n, i;
	int rc = 0;

	/* own enumerable string keys, integer keys first: the order JSON.stringify and Object.keys use */
	if (JS_GetOwnPropertyNames(ctx, &props, &n, v, JS_GPN_STRING_MASK | JS_GPN_ENUM_ONLY) < 0)
		return -1;
	put_tag(m, T_OBJ, &n, 4);
	m->arena_need += (size_t)n * sizeof(dyn_member);
	for (i = 0; i < n && rc == 0; i++) {
		key_slot *k = atom_slot(st, props[i].atom);
		JSValue item;

		if (!k) {
			rc = -1;
			break;
		}
		put_key(m, k);
		item = JS_GetProperty(ctx, v, props[i].atom); /* getters run, as in JSON.stringify */
		rc = JS_IsException(item) ? -1 : enc_js(st, m, item, depth + 1);
		JS_FreeValue(ctx, item);
	}
	for (i = 0; i < n; i++)
		JS_FreeAtom(ctx, props[i].atom);
	js_free(ctx, props);
	return rc;
}

static int enc_js(br_state *st, bin_msg *m, JSValueConst v, int depth)
{
	JSContext *ctx = st->ctx;
	uint32_t h;
	int kind;

	if (depth > BIN_MAX_DEPTH)
		return too_deep(ctx);
	switch (JS_VALUE_GET_NORM_TAG(v)) {
	case JS_TAG_UNDEFINED:
		put_u8(m, T_UNDEF);
		return 0;
	case JS_TAG_NULL:
		put_u8(m, T_NULL);
		return 0;
	case JS_TAG_BOOL:
		put_u8(m, JS_VALUE_GET_BOOL(v) ? T_TRUE : T_FALSE);
		return 0;
	case JS_TAG_INT: {
		int32_t i = JS_VALUE_GET_INT(v);
		put_tag(m, T_INT32, &i, 4);
		return 0;
	}
	case JS_TAG_FLOAT64: {
		double d = JS_VALUE_GET_FLOAT64(v);
		put_tag(m, T_F64, &d, 8);
		return 0;
	}
	case JS_TAG_STRING:
	case JS_TAG_STRING_ROPE: {
		size_t len;
		const char *s = JS_ToCStringLen(ctx, &len, v);
		if (!s)
			return -1;
		if (len > UINT32_MAX) {
			JS_FreeCString(ctx, s);
			JS_ThrowRangeError(ctx, "bridge: string too long");
			return -1;
		}
		put_u8(m, T_STR);
		put_bytes(m, s, (uint32_t)len);
		JS_FreeCString(ctx, s);
		return 0;
	}
	case JS_TAG_OBJECT:
		if (JS_IsFunction(ctx, v)) {
			if (handle_of(st, v, &h) < 0) {
				JS_ThrowOutOfMemory(ctx);
				return -1;
			}
			put_tag(m, T_FN, &h, 4);
			return 0;
		}
		kind = binary_kind(st, v);
		if (kind == BIN_U8)
			return enc_js_bytes(st, m, v);
		if (kind >= 0)
			return enc_js_typed(st, m, v, kind);
		switch (JS_IsArray(ctx, v)) {
		case -1:
			return -1;
		case 1:
			return enc_js_array(st, m, v, depth);
		default:
			return enc_js_object(st, m, v, depth);
		}
	case JS_TAG_SYMBOL:
		JS_ThrowTypeError(ctx, "bridge: a symbol cannot cross");
		return -1;
	default: /* bigints */
		JS_ThrowTypeError(ctx, "bridge: a bigint cannot cross");
		return -1;
	}
}

/* ==== Dyn -> buffer ==== */

static int enc_dyn(br_state *st, bin_msg *m, const dyn *d, int depth)
{
	size_t i;
	uint32_t n;

	if (depth > BIN_MAX_DEPTH)
		return host_err(st, "bridge: value nested deeper than %d levels", BIN_MAX_DEPTH);
	switch (d->kind) {
	case DYN_UNDEF:
		put_u8(m, T_UNDEF);
		break;
	case DYN_NULL:
		put_u8(m, T_NULL);
		break;
	case DYN_BOOL:
		put_u8(m, d->u.b ? T_TRUE : T_FALSE);
		break;
	case DYN_NUM:
		put_num(m, d->u.num);
		break;
	case DYN_STR:
		if (d->u.str.len > UINT32_MAX)
			return host_err(st, "bridge: string too long");
		put_u8(m, T_STR);
		put_bytes(m, d->u.str.p, (uint32_t)d->u.str.len);
		break;
	case DYN_ARR:
		n = (uint32_t)d->u.arr.len;
		put_tag(m, T_ARR, &n, 4);
		for (i = 0; i < d->u.arr.len; i++)
			if (enc_dyn(st, m, &d->u.arr.items[i], depth + 1) < 0)
				return -1;
		break;
	case DYN_OBJ:
		n = (uint32_t)d->u.obj.len;
		put_tag(m, T_OBJ, &n, 4);
		for (i = 0; i < d->u.obj.len; i++) {
			const dyn_member *mb = &d->u.obj.members[i];
			key_slot *k = str_slot(st, mb->key, mb->key_len);
			if (!k)
				return -1;
			put_key(m, k);
			if (enc_dyn(st, m, &mb->value, depth + 1) < 0)
				return -1;
		}
		break;
	case DYN_FN:
		put_tag(m, T_FN, &d->u.fn, 4);
		break;
	case DYN_BYTES:
		if (d->u.bytes.len > UINT32_MAX)
			return host_err(st, "bridge: bytes too long");
		n = (uint32_t)d->u.bytes.len;
		put_tag(m, T_BYTES, &n, 4);
		put(m, d->u.bytes.p, n);
		break;
	}
	return 0;
}

static void free_host_bytes(JSRuntime *rt, void *opaque, void *ptr)
{
	(void)rt, (void)opaque;
	bb_free(ptr);
}

JSValue bin_wrap_bytes(br_state *st, const uint8_t *src, size_t len)
{
	uint8_t *p = bb_malloc(len ? len : 1);
	JSValue buf, arr;

	if (!p)
		return JS_ThrowOutOfMemory(st->ctx);
	memcpy(p, src, len);
	buf = JS_NewArrayBuffer(st->ctx, p, len, free_host_bytes, NULL, 0);
	if (JS_IsException(buf)) {
		bb_free(p);
		return buf;
	}
	{
		/* QuickJS reads (buffer, offset, length) whatever argc says */
		JSValueConst args[3] = {buf, JS_NewInt32(st->ctx, 0), JS_NewInt64(st->ctx, (int64_t)len)};
		arr = JS_NewTypedArray(st->ctx, 3, args, JS_TYPED_ARRAY_UINT8);
	}
	JS_FreeValue(st->ctx, buf);
	return arr;
}

/* ==== Buffer -> JS value ==== */

/* get_key reads a key (new or a reference); for JS, with its atom held in the message's key table. */
static dec_key *get_key(br_state *st, bin_msg *m, int want_atom)
{
	uint32_t x = get_u32(m);
	dec_key *k;

	if (x & 1)
		return &m->keys[x >> 1];
	if (m->nkeys_dec == m->keys_cap) {
		uint32_t cap = m->keys_cap ? 2 * m->keys_cap : 16;
		dec_key *p = bb_realloc(m->keys, cap * sizeof *p);
		if (!p) {
			host_err(st, "bridge: out of memory");
			return NULL;
		}
		m->keys = p;
		m->keys_cap = cap;
	}
	k = &m->keys[m->nkeys_dec];
	k->len = x >> 1;
	k->p = (const char *)m->p + m->pos;
	k->atom = JS_ATOM_NULL;
	m->pos += k->len + 1;
	if (want_atom) {
		key_slot *s = str_slot(st, k->p, k->len);
		if (!s)
			return NULL;
		k->atom = JS_DupAtom(st->ctx, s->atom); /* a later key may take the slot */
	}
	m->nkeys_dec++;
	return k;
}

static void free_dec_keys(br_state *st, bin_msg *m)
{
	uint32_t i;

	for (i = 0; i < m->nkeys_dec; i++)
		if (m->keys[i].atom != JS_ATOM_NULL)
			JS_FreeAtom(st->ctx, m->keys[i].atom);
	m->nkeys_dec = 0;
}

static JSValue dec_js(br_state *st, bin_msg *m)
{
	JSContext *ctx = st->ctx;
	uint32_t n, i;
	JSValue v;

	switch (get_u8(m)) {
	case T_UNDEF:
		return JS_UNDEFINED;
	case T_NULL:
		return JS_NULL;
	case T_FALSE:
		return JS_FALSE;
	case T_TRUE:
		return JS_TRUE;
	case T_INT32:
		return JS_NewInt32(ctx, (int32_t)get_u32(m));
	case T_F64:
		return JS_NewFloat64(ctx, get_f64(m));
	case T_STR:
		n = get_u32(m);
		v = JS_NewStringLen(ctx, (const char *)m->p + m->pos, n);
		m->pos += n + 1;
		return v;
	case T_ARR:
		n = get_u32(m);
		v = JS_NewArray(ctx);
		for (i = 0; i < n && !JS_IsException(v); i++) {
			JSValue item = dec_js(st, m);
			if (JS_IsException(item) || JS_DefinePropertyValueUint32(ctx, v, i, item, JS_PROP_C_W_E) < 0) {
				JS_FreeValue(ctx, v);
				v = JS_EXCEPTION;
			}
		}
		return v;
	case T_OBJ:
		n = get_u32(m);
		v = JS_NewObject(ctx);
		for (i = 0; i < n && !JS_IsException(v); i++) {
			dec_key *k = get_key(st, m, 1);
			JSValue item = k ? dec_js(st, m) : JS_ThrowInternalError(ctx, "%s", st->err);
			if (JS_IsException(item) || JS_DefinePropertyValue(ctx, v, k->atom, item, JS_PROP_C_W_E) < 0) {
				JS_FreeValue(ctx, v);
				v = JS_EXCEPTION;
			}
		}
		return v;
	case T_FN: {
		JSValueConst fn = handle_fn(st, get_u32(m));
		if (JS_IsUndefined(fn))
			return JS_ThrowRangeError(ctx, "%s", st->err);
		return JS_DupValue(ctx, fn);
	}
	case T_BYTES:
		n = get_u32(m);
		v = bin_wrap_bytes(st, m->p + m->pos, n);
		m->pos += n;
		return v;
	default:
		return JS_ThrowInternalError(ctx, "bridge: bad tag in a binary message");
	}
}

/* ==== Buffer -> Dyn ==== */

/* dec_dyn reads a value into *out: into the message's arena, pointing into its buffer, when arena is set (the
 * arguments of a host function, valid during the call), else malloc'd for dyn_free. -1 after an error result;
 * *out then holds nothing to free. */
static int dec_dyn(br_state *st, bin_msg *m, dyn *out, int arena)
{
	uint32_t n, i;
	dyn_member *mb;

	out->kind = DYN_NULL;
	switch (get_u8(m)) {
	case T_UNDEF:
		out->kind = DYN_UNDEF;
		return 0;
	case T_NULL:
		return 0;
	case T_FALSE:
	case T_TRUE:
		out->kind = DYN_BOOL;
		out->u.b = m->p[m->pos - 1] == T_TRUE;
		return 0;
	case T_INT32:
		out->kind = DYN_NUM;
		out->u.num = (int32_t)get_u32(m);
		return 0;
	case T_F64:
		out->kind = DYN_NUM;
		out->u.num = get_f64(m);
		return 0;
	case T_STR:
		n = get_u32(m);
		if (arena) {
			out->kind = DYN_STR;
			out->u.str.p = (char *)m->p + m->pos;
			out->u.str.len = n;
		} else {
			char *p = dyn_str_new(out, n);
			if (!p)
				return host_err(st, "bridge: out of memory");
			memcpy(p, m->p + m->pos, n);
		}
		m->pos += n + 1;
		return 0;
	case T_ARR:
		n = get_u32(m);
		if (arena) {
			out->kind = DYN_ARR;
			out->u.arr.items = (dyn *)(void *)(m->arena + m->arena_used);
			out->u.arr.len = n;
			m->arena_used += n * sizeof(dyn);
		} else if (dyn_arr(out, n) < 0) {
			return host_err(st, "bridge: out of memory");
		}
		for (i = 0; i < n; i++)
			if (dec_dyn(st, m, &out->u.arr.items[i], arena) < 0)
				goto fail;
		return 0;
	case T_OBJ:
		n = get_u32(m);
		if (arena) {
			out->kind = DYN_OBJ;
			out->u.obj.members = (dyn_member *)(void *)(m->arena + m->arena_used);
			out->u.obj.len = n;
			m->arena_used += n * sizeof(dyn_member);
		} else if (dyn_obj(out, n) < 0) {
			return host_err(st, "bridge: out of memory");
		}
		for (i = 0; i < n; i++) {
			dec_key *k = get_key(st, m, 0);
			mb = &out->u.obj.members[i];
			mb->value.kind = DYN_NULL;
			if (!k)
				goto fail;
			mb->key_len = k->len;
			if (arena) {
				mb->key = (char *)k->p;
			} else if ((mb->key = bb_malloc(k->len + 1)) != NULL) {
				memcpy(mb->key, k->p, k->len + 1);
			} else {
				host_err(st, "bridge: out of memory");
				goto fail;
			}
			if (dec_dyn(st, m, &mb->value, arena) < 0)
				goto fail;
		}
		return 0;
	case T_FN:
		out->kind = DYN_FN;
		out->u.fn = get_u32(m);
		return 0;
	case T_BYTES:
		n = get_u32(m);
		out->u.bytes.len = n;
		if (arena) {
			out->u.bytes.p = m->p + m->pos;
		} else if ((out->u.bytes.p = bb_malloc(n ? n : 1)) != NULL) {
			memcpy(out->u.bytes.p, m->p + m->pos, n);
		} else {
			return host_err(st, "bridge: out of memory");
		}
		out->kind = DYN_BYTES;
		m->pos += n;
		return 0;
	default:
		return host_err(st, "bridge: bad tag in a binary message");
	}
fail:
	if (!arena)
		dyn_free(out);
	out->kind = DYN_NULL;
	return -1;
}

/* arena_ready sizes the message's arena for the arrays and objects the encoder counted. */
static int arena_ready(br_state *st, bin_msg *m)
{
	m->arena_used = 0;
	if (m->arena_need <= m->arena_cap)
		return 0;
	bb_free(m->arena);
	m->arena = bb_malloc(m->arena_need);
	m->arena_cap = m->arena ? m->arena_need : 0;
	return m->arena ? 0 : host_err(st, "bridge: out of memory");
}

/* ==== The two directions ==== */

/* bin_result sends a host function's result back: Dyn -> buffer -> JS value. */
static JSValue bin_result(br_state *st, bin_msg *m, const dyn *result)
{
	JSValue v;

	msg_reset(st, m);
	if (enc_dyn(st, m, result, 1) < 0)
		return JS_ThrowInternalError(st->ctx, "%s", st->err);
	if (m->oom)
		return JS_ThrowOutOfMemory(st->ctx);
	v = dec_js(st, m);
	free_dec_keys(st, m);
	return v;
}

/* bin_entry: script -> host, the generic C function behind every host function (magic = its index): argv ->
 * buffer -> Dyn arguments in the arena, the typed host function, its result back. No temporary array. */
JSValue bin_entry(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv, int magic)
{
	br_state *st = JS_GetContextOpaque(ctx);
	bin_msg *m = msg_begin(st);
	dyn args, result;
	JSValue ret = JS_EXCEPTION;
	uint32_t n;
	int i;

	(void)this_val;
	if (!m)
		return JS_ThrowInternalError(ctx, "%s", st->err);
	msg_reset(st, m);
	n = (uint32_t)argc;
	put_tag(m, T_ARR, &n, 4);
	m->arena_need += (size_t)argc * sizeof(dyn);
	for (i = 0; i < argc; i++)
		if (enc_js(st, m, argv[i], 2) < 0)
			goto out;
	if (m->oom) {
		JS_ThrowOutOfMemory(ctx);
		goto out;
	}
	if (arena_ready(st, m) < 0 || dec_dyn(st, m, &args, 1) < 0) {
		JS_ThrowInternalError(ctx, "%s", st->err);
		goto out;
	}
	result.kind = DYN_NULL;
	if (br_host_fns[magic].fn(st, &args, &result) < 0) /* an error result becomes a JavaScript exception */
		ret = JS_ThrowInternalError(ctx, "%s", st->err);
	else
		ret = bin_result(st, m, &result);
	dyn_free(&result);
out:
	msg_end(st);
	return ret;
}

int bin_call_js(br_state *st, JSValueConst fn, const dyn *args, dyn *result)
{
	JSContext *ctx = st->ctx;
	bin_msg *m = msg_begin(st);
	JSValue argv[MAX_ARGS], r;
	uint32_t argc = 0, i;
	int rc = -1;

	result->kind = DYN_NULL;
	if (!m)
		return -1;
	if (args->kind != DYN_ARR || args->u.arr.len > MAX_ARGS) {
		host_err(st, "bridge: at most %d arguments", MAX_ARGS);
		goto out;
	}
	msg_reset(st, m);
	if (enc_dyn(st, m, args, 1) < 0)
		goto out;
	if (m->oom) {
		host_err(st, "bridge: out of memory");
		goto out;
	}
	m->pos = 1; /* the arguments go straight to argv, with no array */
	argc = get_u32(m);
	for (i = 0; i < argc; i++) {
		argv[i] = dec_js(st, m);
		if (JS_IsException(argv[i]))
			break;
	}
	free_dec_keys(st, m);
	if (i < argc) {
		argc = i;
		r = JS_EXCEPTION;
	} else {
		r = JS_Call(ctx, fn, JS_UNDEFINED, (int)argc, argv);
	}
	for (i = 0; i < argc; i++)
		JS_FreeValue(ctx, argv[i]);
	if (JS_IsException(r)) {
		br_exception_text(st);
		goto out;
	}
	msg_reset(st, m);
	rc = enc_js(st, m, r, 1);
	JS_FreeValue(ctx, r);
	if (rc < 0) {
		br_exception_text(st);
		goto out;
	}
	rc = m->oom ? host_err(st, "bridge: out of memory") : dec_dyn(st, m, result, 0);
out:
	msg_end(st);
	return rc;
}

static JSCFunctionMagic *bin_entry_of(int i)
{
	(void)i;
	return bin_entry;
}

/* br_binary: every host function behind bin_entry, host -> script calls through bin_call_js. */
const br_codec br_binary = {"binary", bin_entry_of, bin_call_js, NULL, bin_free};
