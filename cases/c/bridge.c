/* bridge.c: the reference bridge, codec json: the generic path of boundary-report.md section 2, step for step.
 *
 * Script -> host: every exposed host function is one generic C entry (JS_NewCFunctionMagic, magic = its index)
 * that (1) copies the arguments into a temporary JS array, (2) runs JS_JSONStringify on it with a replacer made by
 * JS_NewCFunctionData, which turns functions into {"__fn": handle} and typed arrays into plain arrays, (3) copies
 * the text into a host-owned string and parses it into a Dyn tree, (4) calls the typed host function on the Dyn
 * values, and (5) sends the result back as text: JSON serialiser, JS_ParseJSON, then a revive walk that turns
 * {"__fn": handle} back into the function. Host -> script runs the same steps the other way round.
 *
 * It is meant to be faithful, neither a strawman nor optimised beyond what the report describes: a new replacer,
 * array, text buffer and Dyn tree per call, numbers through strtod and "%.17g".
 *
 * The other codecs (bridge.h) live in codec_binary.c and codec_fast.c; -DBB_CODEC_X picks the one the cases use. */
#include "bridge.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const bb_program = "bridge";
/* The codec the cases use; the conformance program picks its own. */
#if defined(BB_CODEC_BINARY)
#define BR_CODEC br_binary
const char *const bb_codec = "binary";
#elif defined(BB_CODEC_FAST)
#define BR_CODEC br_fast
const char *const bb_codec = "fast";
#else
#define BR_CODEC br_json
const char *const bb_codec = "json";
#endif

/* ==== Dyn: the host's view of a value (bridge.h) ==== */

void dyn_free(dyn *d)
{
	size_t i;

	switch (d->kind) {
	case DYN_STR:
		free(d->u.str.p);
		break;
	case DYN_BYTES:
		free(d->u.bytes.p);
		break;
	case DYN_ARR:
		for (i = 0; i < d->u.arr.len; i++)
			dyn_free(&d->u.arr.items[i]);
		free(d->u.arr.items);
		break;
	case DYN_OBJ:
		for (i = 0; i < d->u.obj.len; i++) {
			free(d->u.obj.members[i].key);
			dyn_free(&d->u.obj.members[i].value);
		}
		free(d->u.obj.members);
		break;
	default:
		break;
	}
	d->kind = DYN_NULL;
}

static dyn dyn_num(double v)
{
	dyn d;

	d.kind = DYN_NUM;
	d.u.num = v;
	return d;
}

static dyn dyn_bool(int v)
{
	dyn d;

	d.kind = DYN_BOOL;
	d.u.b = v;
	return d;
}

char *dyn_str_new(dyn *d, size_t len)
{
	char *p = malloc(len + 1);

	d->kind = DYN_NULL;
	if (!p)
		return NULL;
	p[len] = '\0';
	d->kind = DYN_STR;
	d->u.str.p = p;
	d->u.str.len = len;
	return p;
}

static int dyn_str(dyn *d, const char *s, size_t len)
{
	char *p = dyn_str_new(d, len);

	if (!p)
		return -1;
	memcpy(p, s, len);
	return 0;
}

int dyn_arr(dyn *d, size_t len)
{
	d->kind = DYN_NULL;
	d->u.arr.items = calloc(len ? len : 1, sizeof(dyn)); /* calloc'd zeros are DYN_NULL */
	if (!d->u.arr.items)
		return -1;
	d->kind = DYN_ARR;
	d->u.arr.len = len;
	return 0;
}

/* dyn_obj's members are set with member(). */
int dyn_obj(dyn *d, size_t len)
{
	d->kind = DYN_NULL;
	d->u.obj.members = calloc(len ? len : 1, sizeof(dyn_member));
	if (!d->u.obj.members)
		return -1;
	d->kind = DYN_OBJ;
	d->u.obj.len = len;
	return 0;
}

int dyn_copy(dyn *dst, const dyn *src)
{
	size_t i, n;

	*dst = *src;
	switch (src->kind) {
	case DYN_STR:
		return dyn_str(dst, src->u.str.p, src->u.str.len);
	case DYN_BYTES:
		dst->u.bytes.p = malloc(src->u.bytes.len ? src->u.bytes.len : 1);
		if (!dst->u.bytes.p) {
			dst->kind = DYN_NULL;
			return -1;
		}
		memcpy(dst->u.bytes.p, src->u.bytes.p, src->u.bytes.len);
		return 0;
	case DYN_ARR:
		n = src->u.arr.len;
		if (dyn_arr(dst, n) < 0)
			return -1;
		for (i = 0; i < n; i++)
			if (dyn_copy(&dst->u.arr.items[i], &src->u.arr.items[i]) < 0)
				goto fail;
		return 0;
	case DYN_OBJ:
		n = src->u.obj.len;
		if (dyn_obj(dst, n) < 0)
			return -1;
		for (i = 0; i < n; i++) {
			const dyn_member *m = &src->u.obj.members[i];
			dyn_member *d = &dst->u.obj.members[i];
			if (!(d->key = malloc(m->key_len + 1)))
				goto fail;
			memcpy(d->key, m->key, m->key_len + 1);
			d->key_len = m->key_len;
			if (dyn_copy(&d->value, &m->value) < 0)
				goto fail;
		}
		return 0;
	default:
		return 0;
	}
fail:
	dyn_free(dst);
	return -1;
}

/* member copies key into member i of obj and returns its value (null) for the caller to set, or NULL when out
 * of memory. Members are filled in place so that dyn_free(obj) frees whatever was made when a later step fails. */
static dyn *member(dyn *obj, size_t i, const char *key)
{
	dyn_member *m = &obj->u.obj.members[i];

	m->key_len = strlen(key);
	m->key = malloc(m->key_len + 1);
	if (!m->key)
		return NULL;
	memcpy(m->key, key, m->key_len + 1);
	return &m->value;
}

static int set_num(dyn *obj, size_t i, const char *key, double v)
{
	dyn *m = member(obj, i, key);

	if (!m)
		return -1;
	*m = dyn_num(v);
	return 0;
}

/* dyn_get finds a member of an object, or NULL. */
static const dyn *dyn_get(const dyn *obj, const char *key)
{
	size_t i, len = strlen(key);

	if (obj->kind != DYN_OBJ)
		return NULL;
	for (i = 0; i < obj->u.obj.len; i++)
		if (obj->u.obj.members[i].key_len == len && memcmp(obj->u.obj.members[i].key, key, len) == 0)
			return &obj->u.obj.members[i].value;
	return NULL;
}

/* ==== JSON text -> Dyn: the host side's own parser, as the report's host parses the text again ==== */

#define JSON_MAX_DEPTH 128

typedef struct jparser {
	const char *p;   /* the text is NUL-terminated, which strtod needs */
	const char *err; /* why parsing stopped */
	int depth;
} jparser;

static int parse_value(jparser *j, dyn *out);

static int parse_fail(jparser *j, const char *why)
{
	j->err = why;
	return -1;
}

static void skip_ws(jparser *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

static int hex4(const char *p, unsigned *out)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* put_utf8 encodes c; lone surrogates are encoded as they are (as JS_NewStringLen will read them back). */
static char *put_utf8(char *q, unsigned c)
{
	if (c < 0x80) {
		*q++ = (char)c;
	} else if (c < 0x800) {
		*q++ = (char)(0xc0 | (c >> 6));
		*q++ = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		*q++ = (char)(0xe0 | (c >> 12));
		*q++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*q++ = (char)(0x80 | (c & 0x3f));
	} else {
		*q++ = (char)(0xf0 | (c >> 18));
		*q++ = (char)(0x80 | ((c >> 12) & 0x3f));
		*q++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*q++ = (char)(0x80 | (c & 0x3f));
	}
	return q;
}

/* parse_string reads a string at j->p (on its opening quote) into a malloc'd UTF-8 copy. */
static int parse_string(jparser *j, char **out, size_t *len)
{
	const char *s = j->p + 1, *e = s;
	char *q;

	/* find the closing quote first: the decoded text is never longer than the escaped one */
	while (*e != '"') {
		if (*e == '\0')
			return parse_fail(j, "unterminated string");
		if ((unsigned char)*e < 0x20)
			return parse_fail(j, "control character in string");
		e += (*e == '\\' && e[1]) ? 2 : 1;
	}
	*out = q = malloc((size_t)(e - s) + 1);
	if (!q)
		return parse_fail(j, "out of memory");
	while (s < e) {
		unsigned c, lo;

		if (*s != '\\') {
			*q++ = *s++;
			continue;
		}
		switch (s[1]) {
		case '"': case '\\': case '/': *q++ = s[1]; break;
		case 'b': *q++ = '\b'; break;
		case 'f': *q++ = '\f'; break;
		case 'n': *q++ = '\n'; break;
		case 'r': *q++ = '\r'; break;
		case 't': *q++ = '\t'; break;
		case 'u':
			if (hex4(s + 2, &c) < 0)
				goto bad;
			s += 4;
			if (c >= 0xd800 && c < 0xdc00 && s[2] == '\\' && s[3] == 'u' && hex4(s + 4, &lo) == 0 &&
			    lo >= 0xdc00 && lo < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				s += 6;
			}
			q = put_utf8(q, c);
			break;
		default:
			goto bad;
		}
		s += 2;
	}
	*q = '\0';
	*len = (size_t)(q - *out);
	j->p = e + 1;
	return 0;
bad:
	free(*out);
	return parse_fail(j, "bad escape in string");
}

/* parse_number uses strtod, like the host parser of the report (its profile is topped by strtod). The C locale
 * is in force, since no one calls setlocale, so the decimal point is '.'. strtod also takes forms JSON has not
 * (hex, inf); JS_JSONStringify never writes them, and parse_value only calls this on '-' or a digit. */
static int parse_number(jparser *j, double *out)
{
	char *end;

	*out = strtod(j->p, &end);
	if (end == j->p)
		return parse_fail(j, "bad number");
	j->p = end;
	return 0;
}

/* parse_array and parse_object grow their vectors as they go; on failure, out holds what dyn_free frees. */
static int parse_array(jparser *j, dyn *out)
{
	size_t cap = 0;

	out->kind = DYN_ARR;
	out->u.arr.items = NULL;
	out->u.arr.len = 0;
	j->p++;
	skip_ws(j);
	if (*j->p == ']') {
		j->p++;
		return 0;
	}
	for (;;) {
		if (out->u.arr.len == cap) {
			dyn *items = realloc(out->u.arr.items, (cap = cap ? 2 * cap : 4) * sizeof(dyn));
			if (!items)
				return parse_fail(j, "out of memory");
			out->u.arr.items = items;
		}
		if (parse_value(j, &out->u.arr.items[out->u.arr.len]) < 0)
			return -1;
		out->u.arr.len++;
		skip_ws(j);
		if (*j->p == ']') {
			j->p++;
			return 0;
		}
		if (*j->p != ',')
			return parse_fail(j, "expected , or ] in array");
		j->p++;
	}
}

static int parse_object(jparser *j, dyn *out)
{
	size_t cap = 0;

	out->kind = DYN_OBJ;
	out->u.obj.members = NULL;
	out->u.obj.len = 0;
	j->p++;
	skip_ws(j);
	if (*j->p == '}') {
		j->p++;
		return 0;
	}
	for (;;) {
		dyn_member *m;

		if (out->u.obj.len == cap) {
			dyn_member *ms = realloc(out->u.obj.members, (cap = cap ? 2 * cap : 4) * sizeof(dyn_member));
			if (!ms)
				return parse_fail(j, "out of memory");
			out->u.obj.members = ms;
		}
		m = &out->u.obj.members[out->u.obj.len];
		skip_ws(j);
		if (*j->p != '"')
			return parse_fail(j, "expected a key");
		if (parse_string(j, &m->key, &m->key_len) < 0)
			return -1;
		skip_ws(j);
		if (*j->p != ':') {
			free(m->key);
			return parse_fail(j, "expected :");
		}
		j->p++;
		if (parse_value(j, &m->value) < 0) {
			free(m->key);
			return -1;
		}
		out->u.obj.len++;
		skip_ws(j);
		if (*j->p == '}') {
			j->p++;
			return 0;
		}
		if (*j->p != ',')
			return parse_fail(j, "expected , or } in object");
		j->p++;
	}
}

/* as_handle turns an object that is exactly {"__fn": id} into a function handle (the report's __zn_fn). */
static void as_handle(dyn *d)
{
	const dyn *id = d->u.obj.len == 1 ? dyn_get(d, "__fn") : NULL;

	if (id && id->kind == DYN_NUM && id->u.num >= 0 && id->u.num <= UINT32_MAX) {
		uint32_t h = (uint32_t)id->u.num;
		dyn_free(d);
		d->kind = DYN_FN;
		d->u.fn = h;
	}
}

/* parse_value reads one value; on failure *out holds nothing to free. */
static int parse_value(jparser *j, dyn *out)
{
	int rc = -1;

	out->kind = DYN_NULL;
	skip_ws(j);
	if (++j->depth > JSON_MAX_DEPTH)
		return parse_fail(j, "nesting too deep");
	switch (*j->p) {
	case '{':
		rc = parse_object(j, out);
		if (rc == 0)
			as_handle(out);
		break;
	case '[':
		rc = parse_array(j, out);
		break;
	case '"':
		rc = parse_string(j, &out->u.str.p, &out->u.str.len);
		if (rc == 0)
			out->kind = DYN_STR;
		break;
	case 't':
	case 'f':
	case 'n': {
		static const char *const words[] = {"true", "false", "null"};
		int w = *j->p == 't' ? 0 : *j->p == 'f' ? 1 : 2;
		size_t len = strlen(words[w]);
		if (strncmp(j->p, words[w], len) != 0) {
			rc = parse_fail(j, "bad literal");
			break;
		}
		j->p += len;
		if (w != 2)
			*out = dyn_bool(w == 0);
		rc = 0;
		break;
	}
	default:
		if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
			out->kind = DYN_NUM;
			rc = parse_number(j, &out->u.num);
		} else {
			rc = parse_fail(j, "unexpected character");
		}
	}
	j->depth--;
	if (rc < 0)
		dyn_free(out);
	return rc;
}

/* json_parse parses a whole NUL-terminated text; on failure *err says why. */
static int json_parse(const char *text, dyn *out, const char **err)
{
	jparser j = {text, NULL, 0};

	if (parse_value(&j, out) < 0) {
		*err = j.err;
		return -1;
	}
	skip_ws(&j);
	if (*j.p != '\0') {
		dyn_free(out);
		*err = "text after the value";
		return -1;
	}
	return 0;
}

/* ==== Dyn -> JSON text: the host side's serialiser ==== */

typedef struct tbuf {
	char *p;
	size_t len, cap;
	int oom;
} tbuf;

static void tb_put(tbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *p;
		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0'; /* JS_ParseJSON needs the text NUL-terminated */
}

/* write_string escapes what JSON requires; UTF-8 passes through as it is. */
static void write_string(tbuf *b, const char *s, size_t n)
{
	size_t i, run = 0;
	char esc[8];

	tb_put(b, "\"", 1);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *e = NULL;

		if (c == '"')
			e = "\\\"";
		else if (c == '\\')
			e = "\\\\";
		else if (c == '\n')
			e = "\\n";
		else if (c == '\r')
			e = "\\r";
		else if (c == '\t')
			e = "\\t";
		else if (c == '\b')
			e = "\\b";
		else if (c == '\f')
			e = "\\f";
		else if (c < 0x20) {
			snprintf(esc, sizeof esc, "\\u%04x", c);
			e = esc;
		}
		if (!e)
			continue;
		tb_put(b, s + run, i - run); /* the unescaped bytes before this one */
		tb_put(b, e, strlen(e));
		run = i + 1;
	}
	tb_put(b, s + run, n - run);
	tb_put(b, "\"", 1);
}

static void write_value(tbuf *b, const dyn *d)
{
	char num[32];
	size_t i;

	switch (d->kind) {
	case DYN_NULL:
	case DYN_UNDEF: /* JSON has no undefined; only other codecs make one */
		tb_put(b, "null", 4);
		break;
	case DYN_BOOL:
		tb_put(b, d->u.b ? "true" : "false", d->u.b ? 4 : 5);
		break;
	case DYN_NUM:
		if (!isfinite(d->u.num)) { /* JSON has no NaN or Infinity */
			tb_put(b, "null", 4);
			break;
		}
		tb_put(b, num, (size_t)snprintf(num, sizeof num, "%.17g", d->u.num));
		break;
	case DYN_STR:
		write_string(b, d->u.str.p, d->u.str.len);
		break;
	case DYN_ARR:
		tb_put(b, "[", 1);
		for (i = 0; i < d->u.arr.len; i++) {
			if (i)
				tb_put(b, ",", 1);
			write_value(b, &d->u.arr.items[i]);
		}
		tb_put(b, "]", 1);
		break;
	case DYN_OBJ:
		tb_put(b, "{", 1);
		for (i = 0; i < d->u.obj.len; i++) {
			if (i)
				tb_put(b, ",", 1);
			write_string(b, d->u.obj.members[i].key, d->u.obj.members[i].key_len);
			tb_put(b, ":", 1);
			write_value(b, &d->u.obj.members[i].value);
		}
		tb_put(b, "}", 1);
		break;
	case DYN_FN:
		tb_put(b, num, (size_t)snprintf(num, sizeof num, "{\"__fn\":%lu}", (unsigned long)d->u.fn));
		break;
	case DYN_BYTES: /* only other codecs make bytes; JSON has an array of numbers for them */
		tb_put(b, "[", 1);
		for (i = 0; i < d->u.bytes.len; i++)
			tb_put(b, num, (size_t)snprintf(num, sizeof num, i ? ",%u" : "%u", d->u.bytes.p[i]));
		tb_put(b, "]", 1);
		break;
	}
}

/* json_write returns the text of d in a new malloc'd, NUL-terminated buffer, or NULL when out of memory. */
static char *json_write(const dyn *d, size_t *len)
{
	tbuf b = {NULL, 0, 0, 0};

	write_value(&b, d);
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	*len = b.len;
	return b.p;
}

/* ==== The bridge: handles, replacer, revive and the two directions ==== */

static const char binary_probe[] =
	"[new ArrayBuffer(0), new Uint8ClampedArray(0), new Int8Array(0), new Uint8Array(0), new Int16Array(0),"
	" new Uint16Array(0), new Int32Array(0), new Uint32Array(0), new Float32Array(0), new Float64Array(0)]";

#define MAX_ARGS 8

int host_err(br_state *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->err, sizeof st->err, fmt, ap);
	va_end(ap);
	return -1;
}

int handle_of(br_state *st, JSValueConst fn, uint32_t *h)
{
	uint32_t i;

	for (i = 0; i < st->nhandles; i++)
		if (JS_IsObject(st->handles[i]) && JS_VALUE_GET_PTR(st->handles[i]) == JS_VALUE_GET_PTR(fn)) {
			*h = i;
			return 0;
		}
	if (st->nhandles == st->cap_handles) {
		uint32_t cap = st->cap_handles ? 2 * st->cap_handles : 8;
		JSValue *p = realloc(st->handles, cap * sizeof(JSValue));
		if (!p)
			return -1;
		st->handles = p;
		st->cap_handles = cap;
	}
	st->handles[st->nhandles] = JS_DupValue(st->ctx, fn);
	*h = st->nhandles++;
	return 0;
}

JSValueConst handle_fn(br_state *st, uint32_t h)
{
	if (h >= st->nhandles) {
		host_err(st, "bridge: no function handle %lu", (unsigned long)h);
		return JS_UNDEFINED;
	}
	if (!JS_IsObject(st->handles[h]))
		host_err(st, "bridge: function handle %lu was released", (unsigned long)h);
	return st->handles[h];
}

/* handle_release keeps the slot (as undefined) so that a stale handle is recognised, not reused. */
void handle_release(br_state *st, uint32_t h)
{
	if (h < st->nhandles) {
		JS_FreeValue(st->ctx, st->handles[h]);
		st->handles[h] = JS_UNDEFINED;
	}
}

int binary_kind(const br_state *st, JSValueConst v)
{
	JSClassID id = JS_GetClassID(v);
	int k;

	for (k = 0; k < BIN_KINDS; k++)
		if (st->bin_class[k] == id)
			return k;
	return -1;
}

double binary_elem(const uint8_t *p, int kind, size_t i)
{
	/* memcpy: no alignment or aliasing assumptions about the buffer's bytes */
	switch (kind) {
	case BIN_I8: return (int8_t)p[i];
	case BIN_I16: { int16_t v; memcpy(&v, p + 2 * i, 2); return v; }
	case BIN_U16: { uint16_t v; memcpy(&v, p + 2 * i, 2); return v; }
	case BIN_I32: { int32_t v; memcpy(&v, p + 4 * i, 4); return v; }
	case BIN_U32: { uint32_t v; memcpy(&v, p + 4 * i, 4); return v; }
	case BIN_F32: { float v; memcpy(&v, p + 4 * i, 4); return v; }
	case BIN_F64: { double v; memcpy(&v, p + 8 * i, 8); return v; }
	default: return p[i];
	}
}

/* binary_to_array copies a typed array or an ArrayBuffer into a plain array of numbers, which stringify then walks
 * number by number. */
static JSValue binary_to_array(JSContext *ctx, JSValueConst v, int kind)
{
	size_t off = 0, nbytes, elem = 1, size, i;
	const uint8_t *data;
	JSValue arr;

	if (kind == BIN_ARRAY_BUFFER) {
		data = JS_GetArrayBuffer(ctx, &nbytes, v);
	} else {
		JSValue buf = JS_GetTypedArrayBuffer(ctx, v, &off, &nbytes, &elem);
		if (JS_IsException(buf))
			return buf;
		data = JS_GetArrayBuffer(ctx, &size, buf); /* v keeps the buffer alive */
		JS_FreeValue(ctx, buf);
	}
	if (!data)
		return JS_EXCEPTION;
	arr = JS_NewArray(ctx);
	for (i = 0; i < nbytes / elem && !JS_IsException(arr); i++)
		if (JS_DefinePropertyValueUint32(ctx, arr, (uint32_t)i, JS_NewFloat64(ctx, binary_elem(data + off, kind, i)),
						 JS_PROP_C_W_E) < 0) {
			JS_FreeValue(ctx, arr);
			arr = JS_EXCEPTION;
		}
	return arr;
}

/* replacer is JSON.stringify's replacer, called for every value: it is where values JSON cannot carry are
 * handled. A function becomes {"__fn": handle}; a typed array or ArrayBuffer a plain array of numbers. */
static JSValue replacer(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv, int magic, JSValue *data)
{
	br_state *st = JS_GetContextOpaque(ctx);
	JSValueConst v = argv[1]; /* (key, value); QuickJS pads argv to the length 2 */
	JSValue obj;
	uint32_t h;
	int kind;

	(void)this_val, (void)argc, (void)magic, (void)data;
	if (!JS_IsObject(v))
		return JS_DupValue(ctx, v);
	if (JS_IsFunction(ctx, v)) {
		if (handle_of(st, v, &h) < 0)
			return JS_ThrowOutOfMemory(ctx);
		obj = JS_NewObject(ctx);
		if (!JS_IsException(obj) && JS_SetPropertyStr(ctx, obj, "__fn", JS_NewInt64(ctx, h)) < 0) {
			JS_FreeValue(ctx, obj);
			return JS_EXCEPTION;
		}
		return obj;
	}
	kind = binary_kind(st, v);
	if (kind >= 0)
		return binary_to_array(ctx, v, kind);
	return JS_DupValue(ctx, v);
}

/* js_to_dyn: steps 2 and 3, a JS value to text with the replacer, the text to a host-owned copy, parsed into
 * *out. Returns -1 with a pending JS exception. */
static int js_to_dyn(br_state *st, JSValueConst v, dyn *out)
{
	JSContext *ctx = st->ctx;
	JSValue fn = JS_NewCFunctionData(ctx, replacer, 2, 0, 0, NULL), json;
	const char *s, *err = NULL;
	char *text;
	size_t len;
	int rc;

#ifdef BB_EXTRA_WORK
	bb_extra_work(); /* once per crossing, either way: the A/B build of the regression gate */
#endif
	out->kind = DYN_NULL;
	if (JS_IsException(fn))
		return -1;
	json = JS_JSONStringify(ctx, v, fn, JS_UNDEFINED);
	JS_FreeValue(ctx, fn);
	if (JS_IsException(json))
		return -1;
	if (JS_IsUndefined(json)) /* undefined stringifies to nothing: the host sees null */
		return 0;
	s = JS_ToCStringLen(ctx, &len, json);
	JS_FreeValue(ctx, json);
	if (!s)
		return -1;
	text = malloc(len + 1);
	if (!text) {
		JS_FreeCString(ctx, s);
		JS_ThrowOutOfMemory(ctx);
		return -1;
	}
	memcpy(text, s, len + 1);
	JS_FreeCString(ctx, s);
	rc = json_parse(text, out, &err);
	free(text);
	if (rc < 0)
		JS_ThrowInternalError(ctx, "bridge: bad JSON from the script side: %s", err);
	return rc;
}

/* revive replaces {"__fn": handle} objects anywhere in *v by the functions they stand for. Returns 1 when *v
 * itself was replaced, 0 when not, -1 with a pending JS exception. */
static int revive(br_state *st, JSValue *v)
{
	JSContext *ctx = st->ctx;
	JSPropertyEnum *props;
	uint32_t n, i;
	JSValue h;
	int rc = 0;

	if (!JS_IsObject(*v))
		return 0;
	h = JS_GetPropertyStr(ctx, *v, "__fn");
	if (JS_IsException(h))
		return -1;
	if (JS_IsNumber(h)) {
		double id;
		JS_ToFloat64(ctx, &id, h);
		if (!(id >= 0 && id < st->nhandles) || id != floor(id) || !JS_IsObject(st->handles[(uint32_t)id])) {
			JS_ThrowRangeError(ctx, "bridge: no function handle %g", id);
			return -1;
		}
		JS_FreeValue(ctx, *v);
		*v = JS_DupValue(ctx, st->handles[(uint32_t)id]);
		return 1;
	}
	JS_FreeValue(ctx, h);
	if (JS_GetOwnPropertyNames(ctx, &props, &n, *v, JS_GPN_STRING_MASK | JS_GPN_ENUM_ONLY) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		JSValue child = JS_GetProperty(ctx, *v, props[i].atom);
		int r = JS_IsException(child) ? -1 : revive(st, &child);

		if (r == 1)
			r = JS_SetProperty(ctx, *v, props[i].atom, child) < 0 ? -1 : 0; /* takes child */
		else
			JS_FreeValue(ctx, child);
		if (r < 0)
			rc = -1;
		JS_FreeAtom(ctx, props[i].atom);
	}
	js_free(ctx, props);
	return rc;
}

/* dyn_to_js: step 5, a Dyn to text, JS_ParseJSON, revive. JS_EXCEPTION on failure. */
static JSValue dyn_to_js(br_state *st, const dyn *d)
{
	size_t len;
	char *text = json_write(d, &len);
	JSValue v;

	if (!text)
		return JS_ThrowOutOfMemory(st->ctx);
	v = JS_ParseJSON(st->ctx, text, len, "<host>");
	free(text);
	if (!JS_IsException(v) && revive(st, &v) < 0) {
		JS_FreeValue(st->ctx, v);
		v = JS_EXCEPTION;
	}
	return v;
}

/* call_js: host -> script. The arguments (a Dyn array) go as text through JS_ParseJSON and revive, the result comes
 * back through the replacer and the Dyn parser. Returns -1 with the error's text in st->err. */
static int call_js(br_state *st, JSValueConst fn, const dyn *args, dyn *result)
{
	JSContext *ctx = st->ctx;
	JSValue arr, argv[MAX_ARGS], r;
	uint32_t i, argc;
	int rc;

	if (args->kind != DYN_ARR || args->u.arr.len > MAX_ARGS)
		return host_err(st, "bridge: at most %d arguments", MAX_ARGS);
	argc = (uint32_t)args->u.arr.len;
	arr = dyn_to_js(st, args);
	if (JS_IsException(arr))
		goto fail;
	for (i = 0; i < argc; i++)
		argv[i] = JS_GetPropertyUint32(ctx, arr, i);
	r = JS_Call(ctx, fn, JS_UNDEFINED, (int)argc, argv);
	for (i = 0; i < argc; i++)
		JS_FreeValue(ctx, argv[i]);
	JS_FreeValue(ctx, arr);
	if (JS_IsException(r))
		goto fail;
	rc = js_to_dyn(st, r, result);
	JS_FreeValue(ctx, r);
	if (rc == 0)
		return 0;
fail:
	bb_js_exception_text(ctx, st->err, sizeof st->err);
	return -1;
}

/* ==== Typed host functions: they see Dyn values only, and answer with a Dyn or an error result ==== */

static JSValue host_entry(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv, int magic);

/* arg returns argument i if it has the kind wanted, else NULL after an error result. */
static const dyn *arg(br_state *st, const dyn *args, size_t i, dyn_kind kind, const char *fn)
{
	static const char *const kinds[] = {"null", "a boolean", "a number", "a string", "an array", "an object",
					     "a function", "undefined", "bytes"};

	if (i < args->u.arr.len && args->u.arr.items[i].kind == kind)
		return &args->u.arr.items[i];
	host_err(st, "%s: argument %u is not %s", fn, (unsigned)i + 1, kinds[kind]);
	return NULL;
}

/* to_int32 is JavaScript's ToInt32, for host parameters typed int. */
static int32_t to_int32(double d)
{
	if (!isfinite(d))
		return 0;
	d = fmod(trunc(d), 4294967296.0);
	if (d < 0)
		d += 4294967296.0;
	return (int32_t)(uint32_t)d;
}

/* nums_from_dyn reads an array of numbers into a new vector (the host's number[] parameter). */
static int nums_from_dyn(br_state *st, const dyn *d, const char *fn, double **out, size_t *n)
{
	size_t i;

	*n = d->u.arr.len;
	*out = malloc((*n ? *n : 1) * sizeof(double));
	if (!*out)
		return host_err(st, "%s: out of memory", fn);
	for (i = 0; i < *n; i++) {
		if (d->u.arr.items[i].kind != DYN_NUM) {
			free(*out);
			return host_err(st, "%s: element %u is not a number", fn, (unsigned)i);
		}
		(*out)[i] = d->u.arr.items[i].u.num;
	}
	return 0;
}

/* field returns member key of obj if it has the kind wanted, else NULL after an error result. */
static const dyn *field(br_state *st, const dyn *obj, const char *key, dyn_kind kind)
{
	const dyn *v = dyn_get(obj, key);

	if (v && v->kind == kind)
		return v;
	host_err(st, "object: bad or missing field %s", key);
	return NULL;
}

/* obj_from_dyn reads the object of script_to_host_object; its strings point into d. */
static int obj_from_dyn(br_state *st, const dyn *d, bb_obj_in *o)
{
	const dyn *id = field(st, d, "id", DYN_NUM), *name = id ? field(st, d, "name", DYN_STR) : NULL;
	const dyn *x = name ? field(st, d, "x", DYN_NUM) : NULL, *y = x ? field(st, d, "y", DYN_NUM) : NULL;
	const dyn *tags = y ? field(st, d, "tags", DYN_ARR) : NULL, *pos = tags ? field(st, d, "pos", DYN_OBJ) : NULL;
	const dyn *a = pos ? field(st, pos, "a", DYN_NUM) : NULL, *b = a ? field(st, pos, "b", DYN_NUM) : NULL;
	int i;

	if (!b)
		return -1;
	if (tags->u.arr.len != 3)
		return host_err(st, "object: tags must hold 3 strings");
	for (i = 0; i < 3; i++) {
		const dyn *t = &tags->u.arr.items[i];
		if (t->kind != DYN_STR)
			return host_err(st, "object: tags must hold 3 strings");
		o->tags[i].p = t->u.str.p;
		o->tags[i].len = t->u.str.len;
	}
	o->id = to_int32(id->u.num);
	o->name.p = name->u.str.p;
	o->name.len = name->u.str.len;
	o->x = x->u.num;
	o->y = y->u.num;
	o->pos_a = a->u.num;
	o->pos_b = b->u.num;
	return 0;
}

static int obj_out_to_dyn(const bb_obj_out *r, dyn *d)
{
	dyn *ok;

	if (dyn_obj(d, 3) < 0)
		return -1;
	if (set_num(d, 0, "id", r->id) < 0 || !(ok = member(d, 1, "ok")) || set_num(d, 2, "x", r->x) < 0) {
		dyn_free(d);
		return -1;
	}
	*ok = dyn_bool(r->ok);
	return 0;
}

static int host_add(br_state *st, const dyn *args, dyn *result)
{
	const dyn *a = arg(st, args, 0, DYN_NUM, "host_add"), *b = a ? arg(st, args, 1, DYN_NUM, "host_add") : NULL;

	if (!b)
		return -1;
	*result = dyn_num(bb_add(a->u.num, b->u.num));
	return 0;
}

static int host_upper(br_state *st, const dyn *args, dyn *result)
{
	const dyn *s = arg(st, args, 0, DYN_STR, "host_upper");
	char *p;

	if (!s)
		return -1;
	p = dyn_str_new(result, s->u.str.len);
	if (!p)
		return host_err(st, "host_upper: out of memory");
	bb_upper_ascii(p, s->u.str.p, s->u.str.len);
	return 0;
}

static int host_obj(br_state *st, const dyn *args, dyn *result)
{
	const dyn *o = arg(st, args, 0, DYN_OBJ, "host_obj");
	bb_obj_in in;
	bb_obj_out out;

	if (!o || obj_from_dyn(st, o, &in) < 0)
		return -1;
	out = bb_obj_host(&in);
	return obj_out_to_dyn(&out, result) < 0 ? host_err(st, "host_obj: out of memory") : 0;
}

static int host_sum(br_state *st, const dyn *args, dyn *result)
{
	const dyn *a = arg(st, args, 0, DYN_ARR, "host_sum");
	double *v;
	size_t n;

	if (!a || nums_from_dyn(st, a, "host_sum", &v, &n) < 0)
		return -1;
	if (n != BB_ARRAY_LEN) {
		free(v);
		return host_err(st, "host_sum: expected %d numbers", BB_ARRAY_LEN);
	}
	*result = dyn_num(bb_sum(v, n));
	free(v);
	return 0;
}

static int host_register(br_state *st, const dyn *args, dyn *result)
{
	const dyn *f = arg(st, args, 0, DYN_FN, "host_register");

	if (!f)
		return -1;
	st->callback = f->u.fn;
	st->has_callback = 1;
	result->kind = DYN_NULL;
	return 0;
}

static int host_fail(br_state *st, const dyn *args, dyn *result)
{
	const dyn *i = arg(st, args, 0, DYN_NUM, "host_fail");

	(void)result;
	if (i)
		bb_fail_message(st->err, sizeof st->err, to_int32(i->u.num));
	return -1;
}

static int set_prop(br_state *st, const dyn *args, dyn *result)
{
	const dyn *id = arg(st, args, 0, DYN_NUM, "set_prop"), *key = id ? arg(st, args, 1, DYN_STR, "set_prop") : NULL;
	const dyn *value = key ? arg(st, args, 2, DYN_NUM, "set_prop") : NULL;

	if (!value)
		return -1;
	if (bb_ui_set(&st->ui, id->u.num, bb_ui_key(key->u.str.p, key->u.str.len), value->u.num) < 0)
		return host_err(st, "set_prop: bad node or key");
	result->kind = DYN_NULL;
	return 0;
}

static int apply_ops(br_state *st, const dyn *args, dyn *result)
{
	const dyn *a = arg(st, args, 0, DYN_ARR, "apply_ops");
	double *ops;
	size_t n;
	int rc;

	if (!a || nums_from_dyn(st, a, "apply_ops", &ops, &n) < 0)
		return -1;
	rc = bb_ui_apply(&st->ui, ops, n);
	free(ops);
	if (rc < 0)
		return host_err(st, "apply_ops: bad node or key");
	result->kind = DYN_NULL;
	return 0;
}

/* host_bytes takes bytes; over JSON they arrive as an array of numbers, copied into a byte vector. */
static int host_bytes(br_state *st, const dyn *args, dyn *result)
{
	const dyn *a;
	uint8_t *bytes;
	size_t i, n;

	if (args->u.arr.len > 0 && args->u.arr.items[0].kind == DYN_BYTES) { /* other codecs send bytes as bytes */
		a = &args->u.arr.items[0];
		*result = dyn_num(bb_bytes_sum(a->u.bytes.p, a->u.bytes.len));
		return 0;
	}
	a = arg(st, args, 0, DYN_ARR, "host_bytes");
	if (!a)
		return -1;
	n = a->u.arr.len;
	bytes = malloc(n ? n : 1);
	if (!bytes)
		return host_err(st, "host_bytes: out of memory");
	for (i = 0; i < n; i++) {
		const dyn *v = &a->u.arr.items[i];
		if (v->kind != DYN_NUM || !(v->u.num >= 0 && v->u.num <= 255)) {
			free(bytes);
			return host_err(st, "host_bytes: element %u is not a byte", (unsigned)i);
		}
		bytes[i] = (uint8_t)v->u.num;
	}
	*result = dyn_num(bb_bytes_sum(bytes, n));
	free(bytes);
	return 0;
}

/* host_echo returns a copy of its argument (or undefined): the conformance suite's round trip. No case uses it. */
static int host_echo(br_state *st, const dyn *args, dyn *result)
{
	if (args->u.arr.len == 0) {
		result->kind = DYN_UNDEF;
		return 0;
	}
	return dyn_copy(result, &args->u.arr.items[0]) < 0 ? host_err(st, "host_echo: out of memory") : 0;
}

/* The order is the magic number of each function's entry; codecs find typed entries by name. */
const br_host_fn br_host_fns[] = {
	{"host_add", host_add, 2},   {"host_upper", host_upper, 1},       {"host_obj", host_obj, 1},
	{"host_sum", host_sum, 1},   {"host_register", host_register, 1}, {"host_fail", host_fail, 1},
	{"set_prop", set_prop, 3},   {"apply_ops", apply_ops, 1},         {"host_bytes", host_bytes, 1},
	{"host_echo", host_echo, 1},
};
const int br_nhost_fns = sizeof br_host_fns / sizeof br_host_fns[0];

/* host_entry: script -> host, the one C function behind every exposed host function (magic = its index). */
static JSValue host_entry(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv, int magic)
{
	br_state *st = JS_GetContextOpaque(ctx);
	JSValue arr = JS_NewArray(ctx), ret;
	dyn args, result;
	int i, rc;

	(void)this_val;
	if (JS_IsException(arr))
		return arr;
	for (i = 0; i < argc; i++) /* 1. the arguments, copied into a temporary array */
		if (JS_SetPropertyUint32(ctx, arr, (uint32_t)i, JS_DupValue(ctx, argv[i])) < 0) {
			JS_FreeValue(ctx, arr);
			return JS_EXCEPTION;
		}
	rc = js_to_dyn(st, arr, &args); /* 2, 3. stringify with the replacer, copy, parse */
	JS_FreeValue(ctx, arr);
	if (rc < 0)
		return JS_EXCEPTION;
	result.kind = DYN_NULL;
	rc = br_host_fns[magic].fn(st, &args, &result); /* 4. the typed host function */
	dyn_free(&args);
	if (rc < 0) /* an error result becomes a JavaScript exception */
		return JS_ThrowInternalError(ctx, "%s", st->err);
	ret = dyn_to_js(st, &result); /* 5. back as text, JS_ParseJSON, revive */
	dyn_free(&result);
	return ret;
}

static JSCFunctionMagic *json_entry(int i)
{
	(void)i;
	return host_entry;
}

static void json_free(br_state *st)
{
	(void)st;
}

/* br_json is the generic path of the report: text both ways, no typed calls. */
const br_codec br_json = {"json", json_entry, call_js, NULL, json_free};

/* ==== Host -> script calls, as the cases make them ==== */

/* call_add calls add(a, b), or the registered callback, through the codec's call_js (or its typed call). */
static int call_add(void *state, double a, double b, double *out)
{
	br_state *st = state;
	JSValueConst fn = st->has_callback ? handle_fn(st, st->callback) : st->fn; /* the host holds a handle */
	dyn args, result;
	int rc;

	if (JS_IsUndefined(fn)) {
		bb_error("%s", st->err);
		return -1;
	}
	if (st->codec->call_num2) {
		if (st->codec->call_num2(st, fn, a, b, out) == 0)
			return 0;
		bb_error("%s", st->err);
		return -1;
	}
	if (dyn_arr(&args, 2) < 0) {
		bb_error("out of memory");
		return -1;
	}
	args.u.arr.items[0] = dyn_num(a);
	args.u.arr.items[1] = dyn_num(b);
	rc = st->codec->call_js(st, fn, &args, &result);
	dyn_free(&args);
	if (rc < 0) {
		bb_error("%s", st->err);
		return -1;
	}
	rc = result.kind == DYN_NUM ? 0 : -1;
	*out = rc == 0 ? result.u.num : 0;
	dyn_free(&result);
	if (rc < 0)
		bb_error("the JavaScript function returned no number");
	return rc;
}

/* obj_in_to_dyn builds the whole object of host_to_script_object. */
static int obj_in_to_dyn(const bb_obj_in *in, dyn *d)
{
	dyn *name, *tags, *pos;
	int i;

	if (dyn_obj(d, 6) < 0)
		return -1;
	if (set_num(d, 0, "id", in->id) < 0 || !(name = member(d, 1, "name")) ||
	    dyn_str(name, in->name.p, in->name.len) < 0 || set_num(d, 2, "x", in->x) < 0 ||
	    set_num(d, 3, "y", in->y) < 0 || !(tags = member(d, 4, "tags")) || dyn_arr(tags, 3) < 0 ||
	    !(pos = member(d, 5, "pos")) || dyn_obj(pos, 2) < 0 || set_num(pos, 0, "a", in->pos_a) < 0 ||
	    set_num(pos, 1, "b", in->pos_b) < 0)
		goto fail;
	for (i = 0; i < 3; i++)
		if (dyn_str(&tags->u.arr.items[i], in->tags[i].p, in->tags[i].len) < 0)
			goto fail;
	return 0;
fail:
	dyn_free(d);
	return -1;
}

static int call_obj(void *state, const bb_obj_in *in, bb_obj_out *out)
{
	br_state *st = state;
	const dyn *id, *ok, *x;
	dyn args, result;
	int rc;

	if (dyn_arr(&args, 1) < 0 || obj_in_to_dyn(in, &args.u.arr.items[0]) < 0) {
		dyn_free(&args);
		bb_error("out of memory");
		return -1;
	}
	rc = st->codec->call_js(st, st->fn, &args, &result);
	dyn_free(&args);
	if (rc < 0) {
		bb_error("%s", st->err);
		return -1;
	}
	id = field(st, &result, "id", DYN_NUM);
	ok = id ? field(st, &result, "ok", DYN_BOOL) : NULL;
	x = ok ? field(st, &result, "x", DYN_NUM) : NULL;
	if (x) {
		out->id = to_int32(id->u.num);
		out->ok = ok->u.b;
		out->x = x->u.num;
	} else {
		bb_error("%s", st->err);
	}
	dyn_free(&result);
	return x ? 0 : -1;
}

/* ==== Cases ==== */

static void teardown(void *state)
{
	br_free(state);
}

void br_free(br_state *st)
{
	uint32_t i;

	if (!st)
		return;
	if (st->ctx) {
		st->codec->free(st);
		for (i = 0; i < st->nhandles; i++)
			JS_FreeValue(st->ctx, st->handles[i]);
		JS_FreeValue(st->ctx, st->fn);
		bb_js_free(st->ctx);
	}
	free(st->handles);
	free(st->scratch);
	free(st);
}

/* probe_binary_classes records the class ids of binary_probe's objects, which the replacer recognises. */
static int probe_binary_classes(br_state *st)
{
	JSValue a = JS_Eval(st->ctx, binary_probe, sizeof binary_probe - 1, "<bridge>", JS_EVAL_TYPE_GLOBAL);
	int k;

	if (JS_IsException(a))
		return bb_js_fail(st->ctx);
	for (k = 0; k < BIN_KINDS; k++) {
		JSValue v = JS_GetPropertyUint32(st->ctx, a, (uint32_t)k);
		st->bin_class[k] = JS_GetClassID(v);
		JS_FreeValue(st->ctx, v);
	}
	JS_FreeValue(st->ctx, a);
	return 0;
}

br_state *br_new(const br_codec *codec)
{
	br_state *st = calloc(1, sizeof *st);
	JSValue global;
	int i, rc = 0;

	if (!st) {
		bb_error("out of memory");
		return NULL;
	}
	st->codec = codec;
	st->fn = JS_UNDEFINED;
	st->unit_ops = 1;
	st->ctx = bb_js_new(st);
	if (!st->ctx || probe_binary_classes(st) < 0) {
		br_free(st);
		return NULL;
	}
	global = JS_GetGlobalObject(st->ctx);
	for (i = 0; i < br_nhost_fns && rc >= 0; i++)
		rc = JS_SetPropertyStr(st->ctx, global, br_host_fns[i].name,
				       JS_NewCFunctionMagic(st->ctx, codec->entry(i), br_host_fns[i].name,
							    br_host_fns[i].length, JS_CFUNC_generic_magic, i));
	JS_FreeValue(st->ctx, global);
	if (rc < 0) {
		bb_js_fail(st->ctx);
		br_free(st);
		return NULL;
	}
	return st;
}

const br_codec *br_codec_named(const char *name)
{
	static const br_codec *const all[] = {&br_json, &br_binary, &br_fast};
	size_t i;

	for (i = 0; i < sizeof all / sizeof all[0]; i++)
		if (strcmp(all[i]->name, name) == 0)
			return all[i];
	return NULL;
}

/* new_state makes a context with the cases' codec and loads the case's script, keeping fn_name in st->fn. */
static int new_state(const bb_case *c, void **state, const char *fn_name)
{
	br_state *st = br_new(&BR_CODEC);

	*state = st;
	if (!st)
		return -1;
	return bb_js_load(st->ctx, c->name, fn_name, fn_name ? &st->fn : NULL);
}

static int setup_js_loop(const bb_case *c, void **state)
{
	return new_state(c, state, "bench");
}

/* setup_ui also checks that three frames leave the node table as the script's mutations should. */
static int setup_ui(const bb_case *c, void **state)
{
	br_state *st;
	double r;

	if (new_state(c, state, "bench") < 0)
		return -1;
	st = *state;
	st->unit_ops = BB_UI_FRAME;
	if (bb_js_run_bench(st->ctx, st->fn, 3, &r) < 0 || bb_ui_check(&st->ui, 3) < 0)
		return -1;
	memset(&st->ui, 0, sizeof st->ui);
	return 0;
}

static int setup_h2s_scalar(const bb_case *c, void **state)
{
	return new_state(c, state, "add") < 0 ? -1 : bb_check_add(*state, call_add);
}

static int setup_h2s_object(const bb_case *c, void **state)
{
	return new_state(c, state, "obj") < 0 ? -1 : bb_check_obj(*state, call_obj);
}

/* setup_callback: the script hands its function to host_register, which keeps its handle. */
static int setup_callback(const bb_case *c, void **state)
{
	if (new_state(c, state, NULL) < 0)
		return -1;
	if (!((br_state *)*state)->has_callback) {
		bb_error("the script registered no callback");
		return -1;
	}
	return bb_check_add(*state, call_add);
}

#define BB_STATE br_state
#include "case_table.h"
