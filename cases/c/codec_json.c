/* codec_json.c: the json codec, the generic path that carries values as JSON text both ways, step for step as the
 * boundary report describes it (docs/method.md#the-boundary-report).
 *
 * Script -> host: every exposed host function is one generic C entry (JS_NewCFunctionMagic, magic = its index)
 * that (1) copies the arguments into a temporary JS array, (2) runs JS_JSONStringify on it with a replacer made by
 * JS_NewCFunctionData, which turns functions into {"__fn": handle} and typed arrays into plain arrays, (3) copies
 * the text into a host-owned string and parses it into a Dyn tree, (4) calls the typed host function on the Dyn
 * values, and (5) sends the result back as text: JSON serialiser, JS_ParseJSON, then a revive walk that turns
 * {"__fn": handle} back into the function. Host -> script runs the same steps the other way round.
 *
 * It is meant to be faithful, neither a strawman nor optimised beyond that path: a new replacer,
 * array, text buffer and Dyn tree per call, numbers through strtod and "%.17g". */
#include "bridge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ==== JSON text -> Dyn: the host side's own parser, as the generic path's host parses the text again ==== */

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
	*out = q = bb_malloc((size_t)(e - s) + 1);
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
	bb_free(*out);
	return parse_fail(j, "bad escape in string");
}

/* parse_number uses strtod, like the generic path's host parser (whose profile is topped by strtod). The C locale
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
			dyn *items = bb_realloc(out->u.arr.items, (cap = cap ? 2 * cap : 4) * sizeof(dyn));
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
			dyn_member *ms = bb_realloc(out->u.obj.members, (cap = cap ? 2 * cap : 4) * sizeof(dyn_member));
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
			bb_free(m->key);
			return parse_fail(j, "expected :");
		}
		j->p++;
		if (parse_value(j, &m->value) < 0) {
			bb_free(m->key);
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

/* as_handle turns an object that is exactly {"__fn": id} into a function handle (the generic path's function marker). */
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
		p = bb_realloc(b->p, cap);
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
		bb_free(b.p);
		return NULL;
	}
	*len = b.len;
	return b.p;
}

/* ==== Replacer, revive and the two directions ==== */

#define MAX_ARGS 8

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
	text = bb_malloc(len + 1);
	if (!text) {
		JS_FreeCString(ctx, s);
		JS_ThrowOutOfMemory(ctx);
		return -1;
	}
	memcpy(text, s, len + 1);
	JS_FreeCString(ctx, s);
	rc = json_parse(text, out, &err);
	bb_free(text);
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
	bb_free(text);
	if (!JS_IsException(v) && revive(st, &v) < 0) {
		JS_FreeValue(st->ctx, v);
		v = JS_EXCEPTION;
	}
	return v;
}

/* call_js: host -> script. The arguments (a Dyn array) go as text through JS_ParseJSON and revive, the result comes
 * back through the replacer and the Dyn parser. Returns -1 with the error's text and stack in st->err. */
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
	br_exception_text(st); /* message and stack, as the other codecs */
	return -1;
}

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

/* br_json is the generic path: text both ways, no typed calls. */
const br_codec br_json = {"json", json_entry, call_js, NULL, json_free};
