/* floor_jsc.c: the floor of JavaScriptCore, every case written straight against its C API (JavaScript.h), along its
 * cheapest documented paths. The host-side work is the harness's (harness_host.c), as in floor/floor.c, and each
 * host function reads, does and returns what floor.c's does.
 *
 * - A host function is JSObjectMakeFunctionWithCallback's; a call into script is JSObjectCallAsFunction.
 * - Numbers cross as JSValueMakeNumber and JSValueToNumber (an int32 through ToInt32's arithmetic on the double).
 * - Strings through a JSStringRef and its UTF-8 copy (the C API has no view of a string's bytes), made from UTF-8 by
 *   JSStringCreateWithUTF8CString and JSValueMakeString.
 * - Properties are read by JSObjectGetProperty with JSStringRef names made once per state, elements by
 *   JSObjectGetPropertyAtIndex; a fresh object is JSObjectMake and JSObjectSetProperty (kJSPropertyAttributeNone,
 *   as an object literal's), a fresh array JSObjectMakeArray of its elements.
 * - A Float64Array's and a Uint8Array's memory is JSObjectGetTypedArrayBytesPtr's (plus the view's byte offset,
 *   which that pointer leaves out), no copy.
 * - A host error is a new Error (RangeError, TypeError where floor.c throws one) stored in the callback's
 *   *exception; a script error's text is its toString, a newline and its "stack" (fail@file:line:column). An
 *   exception that reaches the host through the C API is first reported to WebKitGTK's inspector (a script call stack
 *   and a symbolised native backtrace, most of error_script_to_host's time): the public headers have no way around it.
 *
 * Values kept across calls (the function the host calls) are JSValueProtect'ed; the others live on the C stack,
 * which the collector scans. */
#include "engine.h"
#include "harness_jsc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine_cases.h"

const char *const bb_program = "floor";
const char *const bb_codec = NULL;

/* The property names the host reads and writes, made once per state. */
#define JF_NAMES(X) X(id) X(name) X(x) X(y) X(tags) X(pos) X(a) X(b) X(ok) X(text) X(key) X(value) X(length) X(stack)
enum {
#define JF_ENUM(n) K_##n,
	JF_NAMES(JF_ENUM)
#undef JF_ENUM
	K_COUNT
};

typedef struct jf_state {
	JSGlobalContextRef ctx;
	JSObjectRef fn;            /* bench(n), or the function the host calls; protected */
	JSStringRef names[K_COUNT]; /* the property names, by K_* */
	bb_ui ui;                  /* what set_prop, apply_ops, set_node and apply_batch mutate */
	uint64_t unit_ops;         /* ops per loop unit */
	char *text;                /* the host's text of a case with bytes */
	size_t text_len;
	char err[512]; /* the text of the last script error the host caught */
} jf_state;

/* scratch holds the UTF-8 copies of the strings a host function reads (and host_upper's result) and a host -> script
 * call's string result (until the next call): engine_scratch's buffer, as utf8_of last grew it. */
static char *scratch;

/* live is the state whose case runs (cases run one at a time): the C API's callback functions carry no data, so the
 * host functions find the state, its names and its UI table here. */
static jf_state *live;

/* name is property name k of the live state. */
static JSStringRef name(int k)
{
	return live->names[k];
}

/* ==== Errors ==== */

/* throw_error stores a new error of message msg in *exc (an Error, or the global constructor ctor's) and returns
 * NULL, for a host function to return. */
static JSValueRef throw_error(JSContextRef ctx, const char *ctor, const char *msg, JSValueRef *exc)
{
	JSStringRef s = JSStringCreateWithUTF8CString(msg);
	JSValueRef arg = JSValueMakeString(ctx, s), e = NULL;

	JSStringRelease(s);
	if (!ctor) {
		e = JSObjectMakeError(ctx, 1, &arg, exc);
	} else {
		JSStringRef k = JSStringCreateWithUTF8CString(ctor);
		JSValueRef c = JSObjectGetProperty(ctx, JSContextGetGlobalObject(ctx), k, exc);
		JSObjectRef co = *exc ? NULL : JSValueToObject(ctx, c, exc);

		JSStringRelease(k);
		if (co)
			e = JSObjectCallAsConstructor(ctx, co, 1, &arg, exc);
	}
	if (!*exc)
		*exc = e;
	return NULL;
}

/* ==== Reading JavaScript values into host values ==== */

/* arg is argument i, undefined past argc: QuickJS pads argv to a function's length, and floor.c reads it so. */
static JSValueRef arg(JSContextRef ctx, size_t argc, const JSValueRef argv[], size_t i)
{
	return i < argc ? argv[i] : JSValueMakeUndefined(ctx);
}

/* int32_of is ECMAScript's ToInt32, what JS_ToInt32 gives floor.c. */
static int32_t int32_of(double d)
{
	if (d >= INT32_MIN && d <= INT32_MAX) /* NaN is neither */
		return (int32_t)d;
	if (!isfinite(d))
		return 0;
	d = fmod(trunc(d), 4294967296.0);
	return (int32_t)(uint32_t)(d < 0 ? d + 4294967296.0 : d);
}

/* utf8_all copies the n strings s[] one after another into scratch as UTF-8 (each NUL-terminated) and gives each in
 * out[], in one growth of scratch. 0, or -1 after bb_error. */
static int utf8_all(JSStringRef const s[], bb_str out[], size_t n)
{
	size_t max = 0, off = 0, i;

	for (i = 0; i < n; i++)
		max += JSStringGetMaximumUTF8CStringSize(s[i]);
	if (!(scratch = engine_scratch(max)))
		return -1;
	for (i = 0; i < n; i++) {
		size_t k = JSStringGetUTF8CString(s[i], scratch + off, max - off); /* it counts the NUL */

		out[i].p = scratch + off;
		out[i].len = k - 1;
		off += k;
	}
	return 0;
}

static int utf8_of(JSStringRef s, bb_str *out)
{
	return utf8_all(&s, out, 1);
}

/* release releases the n strings of s[] that were made. */
static void release(JSStringRef s[], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i])
			JSStringRelease(s[i]);
}

static int to_num(JSContextRef ctx, JSValueRef v, double *out, JSValueRef *exc)
{
	*out = JSValueToNumber(ctx, v, exc);
	return *exc ? -1 : 0;
}

static int prop_num(JSContextRef ctx, JSObjectRef o, int k, double *out, JSValueRef *exc)
{
	JSValueRef v = JSObjectGetProperty(ctx, o, name(k), exc);

	return *exc ? -1 : to_num(ctx, v, out, exc);
}

static int prop_int(JSContextRef ctx, JSObjectRef o, int k, int32_t *out, JSValueRef *exc)
{
	double d;

	if (prop_num(ctx, o, k, &d, exc) < 0)
		return -1;
	*out = int32_of(d);
	return 0;
}

/* prop_str reads property k as a string, to release; NULL with *exc set when it throws. */
static JSStringRef prop_str(JSContextRef ctx, JSObjectRef o, int k, JSValueRef *exc)
{
	JSValueRef v = JSObjectGetProperty(ctx, o, name(k), exc);

	return *exc ? NULL : JSValueToStringCopy(ctx, v, exc);
}

/* prop_obj reads property k as an object (a TypeError for undefined and null, as reading a property of them is). */
static JSObjectRef prop_obj(JSContextRef ctx, JSObjectRef o, int k, JSValueRef *exc)
{
	JSValueRef v = JSObjectGetProperty(ctx, o, name(k), exc);

	return *exc ? NULL : JSValueToObject(ctx, v, exc);
}

/* elem_size is the size of an element of a typed array of type t; 0 when t is no typed array. */
static size_t elem_size(JSTypedArrayType t)
{
	switch (t) {
	case kJSTypedArrayTypeInt8Array:
	case kJSTypedArrayTypeUint8Array:
	case kJSTypedArrayTypeUint8ClampedArray:
		return 1;
	case kJSTypedArrayTypeInt16Array:
	case kJSTypedArrayTypeUint16Array:
		return 2;
	case kJSTypedArrayTypeInt32Array:
	case kJSTypedArrayTypeUint32Array:
	case kJSTypedArrayTypeFloat32Array:
		return 4;
	case kJSTypedArrayTypeFloat64Array:
	case kJSTypedArrayTypeBigInt64Array:
	case kJSTypedArrayTypeBigUint64Array:
		return 8;
	default:
		return 0;
	}
}

/* typed_data returns the memory of typed array v without copying, checking its element size, and its length in
 * elements in *len. NULL with *exc set when it is no such array. */
static const void *typed_data(JSContextRef ctx, JSValueRef v, size_t elem, size_t *len, JSValueRef *exc)
{
	JSObjectRef o = (JSObjectRef)v;
	size_t off;
	char *p;

	if (elem_size(JSValueGetTypedArrayType(ctx, v, exc)) != elem) {
		char msg[64];

		if (*exc)
			return NULL;
		snprintf(msg, sizeof msg, "expected a typed array of %u-byte elements", (unsigned)elem);
		return throw_error(ctx, "TypeError", msg, exc);
	}
	*len = JSObjectGetTypedArrayByteLength(ctx, o, exc) / elem;
	off = JSObjectGetTypedArrayByteOffset(ctx, o, exc);
	p = JSObjectGetTypedArrayBytesPtr(ctx, o, exc); /* valid until the next API call: the last */
	return *exc ? NULL : p + off;
}

/* obj_from_js reads the whole object of script_to_host_object; its strings are in scratch. 0, or -1 with *exc set
 * (or after bb_error, out of memory). */
static int obj_from_js(JSContextRef ctx, JSValueRef v, bb_obj_in *o, JSValueRef *exc)
{
	JSStringRef s[4] = {NULL, NULL, NULL, NULL}; /* name, tags[0..2] */
	bb_str t[4];
	JSObjectRef obj, tags, pos;
	unsigned i;
	int rc = -1;

	if (!(obj = JSValueToObject(ctx, v, exc)) || prop_int(ctx, obj, K_id, &o->id, exc) < 0 ||
	    !(s[0] = prop_str(ctx, obj, K_name, exc)) || prop_num(ctx, obj, K_x, &o->x, exc) < 0 ||
	    prop_num(ctx, obj, K_y, &o->y, exc) < 0 || !(tags = prop_obj(ctx, obj, K_tags, exc)))
		goto out;
	for (i = 0; i < 3; i++) {
		JSValueRef e = JSObjectGetPropertyAtIndex(ctx, tags, i, exc);

		if (*exc || !(s[1 + i] = JSValueToStringCopy(ctx, e, exc)))
			goto out;
	}
	if (!(pos = prop_obj(ctx, obj, K_pos, exc)) || prop_num(ctx, pos, K_a, &o->pos_a, exc) < 0 ||
	    prop_num(ctx, pos, K_b, &o->pos_b, exc) < 0 || utf8_all(s, t, 4) < 0)
		goto out;
	o->name = t[0];
	for (i = 0; i < 3; i++)
		o->tags[i] = t[1 + i];
	rc = 0;
out:
	release(s, 4);
	return rc;
}

static int obj_out_from_js(JSContextRef ctx, JSValueRef v, bb_obj_out *o, JSValueRef *exc)
{
	JSObjectRef obj = JSValueToObject(ctx, v, exc);
	JSValueRef ok;

	if (!obj || prop_int(ctx, obj, K_id, &o->id, exc) < 0 || prop_num(ctx, obj, K_x, &o->x, exc) < 0)
		return -1;
	ok = JSObjectGetProperty(ctx, obj, name(K_ok), exc);
	if (*exc)
		return -1;
	o->ok = JSValueToBoolean(ctx, ok);
	return 0;
}

/* record_from_js reads {id, text}; the text is in scratch. */
static int record_from_js(JSContextRef ctx, JSValueRef v, bb_record *out, JSValueRef *exc)
{
	JSObjectRef obj = JSValueToObject(ctx, v, exc);
	JSStringRef s;
	int rc;

	if (!obj || prop_int(ctx, obj, K_id, &out->id, exc) < 0 || !(s = prop_str(ctx, obj, K_text, exc)))
		return -1;
	rc = utf8_of(s, &out->text);
	JSStringRelease(s);
	return rc;
}

/* ==== Making JavaScript values from host values ==== */

/* make_string makes a JavaScript string of the NUL-terminated UTF-8 text p. */
static JSValueRef make_string(JSContextRef ctx, const char *p)
{
	JSStringRef s = JSStringCreateWithUTF8CString(p);
	JSValueRef v = JSValueMakeString(ctx, s);

	JSStringRelease(s);
	return v;
}

/* put adds property k to a fresh object. 0, or -1 with *exc set. */
static int put(JSContextRef ctx, JSObjectRef o, int k, JSValueRef v, JSValueRef *exc)
{
	JSObjectSetProperty(ctx, o, name(k), v, kJSPropertyAttributeNone, exc);
	return *exc ? -1 : 0;
}

static JSObjectRef obj_out_to_js(JSContextRef ctx, const bb_obj_out *r, JSValueRef *exc)
{
	JSObjectRef o = JSObjectMake(ctx, NULL, NULL);

	if (put(ctx, o, K_id, JSValueMakeNumber(ctx, r->id), exc) < 0 ||
	    put(ctx, o, K_ok, JSValueMakeBoolean(ctx, r->ok), exc) < 0 ||
	    put(ctx, o, K_x, JSValueMakeNumber(ctx, r->x), exc) < 0)
		return NULL;
	return o;
}

/* obj_in_to_js builds the whole object of host_to_script_object. */
static JSObjectRef obj_in_to_js(JSContextRef ctx, const bb_obj_in *in, JSValueRef *exc)
{
	JSValueRef tag[3];
	JSObjectRef o, tags, pos;
	int i;

	for (i = 0; i < 3; i++)
		tag[i] = make_string(ctx, in->tags[i].p);
	tags = JSObjectMakeArray(ctx, 3, tag, exc);
	if (*exc)
		return NULL;
	pos = JSObjectMake(ctx, NULL, NULL);
	o = JSObjectMake(ctx, NULL, NULL);
	if (put(ctx, pos, K_a, JSValueMakeNumber(ctx, in->pos_a), exc) < 0 ||
	    put(ctx, pos, K_b, JSValueMakeNumber(ctx, in->pos_b), exc) < 0 ||
	    put(ctx, o, K_id, JSValueMakeNumber(ctx, in->id), exc) < 0 ||
	    put(ctx, o, K_name, make_string(ctx, in->name.p), exc) < 0 ||
	    put(ctx, o, K_x, JSValueMakeNumber(ctx, in->x), exc) < 0 ||
	    put(ctx, o, K_y, JSValueMakeNumber(ctx, in->y), exc) < 0 || put(ctx, o, K_tags, tags, exc) < 0 ||
	    put(ctx, o, K_pos, pos, exc) < 0)
		return NULL;
	return o;
}

static JSObjectRef record_to_js(JSContextRef ctx, const bb_record *r, JSValueRef *exc)
{
	JSObjectRef o = JSObjectMake(ctx, NULL, NULL);

	if (put(ctx, o, K_id, JSValueMakeNumber(ctx, r->id), exc) < 0 ||
	    put(ctx, o, K_text, make_string(ctx, r->text.p), exc) < 0)
		return NULL;
	return o;
}

/* ==== Host functions ====
 * Each returns NULL with *exc set when it throws; an out-of-memory failure (after bb_error) throws too. */

#define JF_HOST_FN(fn)                                                                                   \
	static JSValueRef fn(JSContextRef ctx, JSObjectRef self_fn, JSObjectRef self, size_t argc,        \
			     const JSValueRef argv[], JSValueRef *exc)
#define JF_UNUSED (void)self_fn, (void)self

static JSValueRef out_of_memory(JSContextRef ctx, JSValueRef *exc)
{
	return *exc ? NULL : throw_error(ctx, NULL, "out of memory", exc);
}

JF_HOST_FN(host_add)
{
	double a, b;

	JF_UNUSED;
	if (to_num(ctx, arg(ctx, argc, argv, 0), &a, exc) < 0 || to_num(ctx, arg(ctx, argc, argv, 1), &b, exc) < 0)
		return NULL;
	return JSValueMakeNumber(ctx, bb_add(a, b));
}

JF_HOST_FN(host_upper)
{
	JSStringRef s = JSValueToStringCopy(ctx, arg(ctx, argc, argv, 0), exc);
	bb_str t;
	int rc;

	JF_UNUSED;
	if (!s)
		return NULL;
	rc = utf8_of(s, &t);
	JSStringRelease(s);
	if (rc < 0)
		return out_of_memory(ctx, exc);
	bb_upper_ascii(scratch, t.p, t.len);
	return make_string(ctx, scratch);
}

JF_HOST_FN(host_obj)
{
	bb_obj_in in;
	bb_obj_out out;

	JF_UNUSED;
	if (obj_from_js(ctx, arg(ctx, argc, argv, 0), &in, exc) < 0)
		return out_of_memory(ctx, exc);
	out = bb_obj_host(&in);
	return obj_out_to_js(ctx, &out, exc);
}

JF_HOST_FN(host_sum)
{
	double v[BB_ARRAY_LEN], len;
	JSObjectRef a = JSValueToObject(ctx, arg(ctx, argc, argv, 0), exc);
	unsigned i;

	JF_UNUSED;
	if (!a || prop_num(ctx, a, K_length, &len, exc) < 0)
		return NULL;
	if (len != BB_ARRAY_LEN)
		return throw_error(ctx, "RangeError", "host_sum: expected 64 numbers", exc);
	for (i = 0; i < BB_ARRAY_LEN; i++) {
		JSValueRef e = JSObjectGetPropertyAtIndex(ctx, a, i, exc);

		if (*exc || to_num(ctx, e, &v[i], exc) < 0)
			return NULL;
	}
	return JSValueMakeNumber(ctx, bb_sum(v, BB_ARRAY_LEN));
}

/* host_register keeps the script's function in the state (protected), in place of the one it had. */
JF_HOST_FN(host_register)
{
	JSValueRef f = arg(ctx, argc, argv, 0);

	JF_UNUSED;
	if (!JSValueIsObject(ctx, f) || !JSObjectIsFunction(ctx, (JSObjectRef)f))
		return throw_error(ctx, "TypeError", "host_register: not a function", exc);
	JSValueProtect(ctx, f);
	if (live->fn)
		JSValueUnprotect(ctx, live->fn);
	live->fn = (JSObjectRef)f;
	return JSValueMakeUndefined(ctx);
}

JF_HOST_FN(host_fail)
{
	char msg[64];
	double i;

	JF_UNUSED;
	if (to_num(ctx, arg(ctx, argc, argv, 0), &i, exc) < 0)
		return NULL;
	bb_fail_message(msg, sizeof msg, int32_of(i));
	return throw_error(ctx, NULL, msg, exc);
}

JF_HOST_FN(set_prop)
{
	double id, value;
	JSStringRef s;
	bb_str key;
	int k, rc;

	JF_UNUSED;
	if (to_num(ctx, arg(ctx, argc, argv, 0), &id, exc) < 0 ||
	    !(s = JSValueToStringCopy(ctx, arg(ctx, argc, argv, 1), exc)))
		return NULL;
	rc = utf8_of(s, &key);
	JSStringRelease(s);
	if (rc < 0)
		return out_of_memory(ctx, exc);
	k = bb_ui_key(key.p, key.len);
	if (to_num(ctx, arg(ctx, argc, argv, 2), &value, exc) < 0)
		return NULL;
	if (bb_ui_set(&live->ui, id, k, value) < 0)
		return throw_error(ctx, "RangeError", "set_prop: bad node or key", exc);
	return JSValueMakeUndefined(ctx);
}

JF_HOST_FN(apply_ops)
{
	size_t n;
	const double *ops = typed_data(ctx, arg(ctx, argc, argv, 0), sizeof(double), &n, exc);

	JF_UNUSED;
	if (!ops)
		return NULL;
	if (bb_ui_apply(&live->ui, ops, n) < 0)
		return throw_error(ctx, "RangeError", "apply_ops: bad node or key", exc);
	return JSValueMakeUndefined(ctx);
}

JF_HOST_FN(host_bytes)
{
	size_t n;
	const uint8_t *p = typed_data(ctx, arg(ctx, argc, argv, 0), 1, &n, exc);

	JF_UNUSED;
	return p ? JSValueMakeNumber(ctx, bb_bytes_sum(p, n)) : NULL;
}

JF_HOST_FN(host_record)
{
	bb_record in, out;

	JF_UNUSED;
	if (record_from_js(ctx, arg(ctx, argc, argv, 0), &in, exc) < 0)
		return out_of_memory(ctx, exc);
	out = bb_record_host(&in);
	return record_to_js(ctx, &out, exc);
}

/* apply_node applies the mutation {id, key, value}. 0, or -1 with *exc set. */
static int apply_node(JSContextRef ctx, JSValueRef v, JSValueRef *exc)
{
	JSObjectRef o = JSValueToObject(ctx, v, exc);
	double id, value;
	JSStringRef s;
	bb_str key;
	int rc;

	if (!o || prop_num(ctx, o, K_id, &id, exc) < 0 || !(s = prop_str(ctx, o, K_key, exc)))
		return -1;
	rc = utf8_of(s, &key);
	JSStringRelease(s);
	if (rc < 0) {
		out_of_memory(ctx, exc);
		return -1;
	}
	if (prop_num(ctx, o, K_value, &value, exc) < 0)
		return -1;
	if (bb_ui_set_named(&live->ui, id, key.p, key.len, value) < 0) {
		throw_error(ctx, "RangeError", "bad node or key", exc);
		return -1;
	}
	return 0;
}

JF_HOST_FN(set_node)
{
	JF_UNUSED;
	return apply_node(ctx, arg(ctx, argc, argv, 0), exc) < 0 ? NULL : JSValueMakeUndefined(ctx);
}

JF_HOST_FN(apply_batch)
{
	JSObjectRef list = JSValueToObject(ctx, arg(ctx, argc, argv, 0), exc);
	double len;
	unsigned i;

	JF_UNUSED;
	if (!list || prop_num(ctx, list, K_length, &len, exc) < 0)
		return NULL;
	for (i = 0; i < len; i++) {
		JSValueRef e = JSObjectGetPropertyAtIndex(ctx, list, i, exc);

		if (*exc || apply_node(ctx, e, exc) < 0)
			return NULL;
	}
	return JSValueMakeUndefined(ctx);
}

/* The host functions: host_functions.h's list (JavaScriptCore's functions take no length). */
static const struct {
	const char *name;
	JSObjectCallAsFunctionCallback fn;
	int arity;
} host_fns[] = {BB_HOST_FNS(BB_HOST_ENTRY, BB_HOST_ENTRY)};

/* ==== Host -> script calls ==== */

/* call1 calls st->fn with one argument; NULL with *exc set when it throws. */
static JSValueRef call1(jf_state *st, JSValueRef arg1, JSValueRef *exc)
{
	bb_crossing();
	return *exc ? NULL : JSObjectCallAsFunction(st->ctx, st->fn, NULL, 1, &arg1, exc);
}

/* failed turns the exception of a host -> script call into bb_error (none after bb_error, out of memory). */
static int failed(jf_state *st, JSValueRef exc)
{
	return exc ? bb_jsc_fail(st->ctx, exc) : -1;
}

static int call_add(void *p, double a, double b, double *out)
{
	jf_state *st = p;
	JSValueRef args[2], r, exc = NULL;

	bb_crossing();
	args[0] = JSValueMakeNumber(st->ctx, a);
	args[1] = JSValueMakeNumber(st->ctx, b);
	r = JSObjectCallAsFunction(st->ctx, st->fn, NULL, 2, args, &exc);
	if (!exc)
		*out = JSValueToNumber(st->ctx, r, &exc);
	return exc ? bb_jsc_fail(st->ctx, exc) : 0;
}

static int call_text(void *p, const bb_str *in, bb_str *out)
{
	jf_state *st = p;
	JSValueRef r, exc = NULL;
	JSStringRef s;
	int rc;

	r = call1(st, make_string(st->ctx, in->p), &exc);
	if (exc || !(s = JSValueToStringCopy(st->ctx, r, &exc)))
		return failed(st, exc);
	rc = utf8_of(s, out);
	JSStringRelease(s);
	return rc;
}

static int call_obj(void *p, const bb_obj_in *in, bb_obj_out *out)
{
	jf_state *st = p;
	JSValueRef exc = NULL, r = call1(st, obj_in_to_js(st->ctx, in, &exc), &exc);

	return exc || obj_out_from_js(st->ctx, r, out, &exc) < 0 ? failed(st, exc) : 0;
}

/* call_record: the text that comes back is in scratch until the next call. */
static int call_record(void *p, const bb_record *in, bb_record *out)
{
	jf_state *st = p;
	JSValueRef exc = NULL, r = call1(st, record_to_js(st->ctx, in, &exc), &exc);

	return exc || record_from_js(st->ctx, r, out, &exc) < 0 ? failed(st, exc) : 0;
}

/* call_fail calls the script's fail(i), which throws; the host takes the error's text, a newline and its stack
 * (JavaScriptCore's stack has no first line of the message to skip). */
static int call_fail(void *p, int32_t i, bb_str *text)
{
	jf_state *st = p;
	JSValueRef exc = NULL, stack = NULL;
	size_t n;

	call1(st, JSValueMakeNumber(st->ctx, i), &exc);
	if (!exc) {
		bb_error("fail(%d) returned instead of throwing", (int)i);
		return -1;
	}
	bb_jsc_exception_text(st->ctx, exc, st->err, sizeof st->err);
	n = strlen(st->err);
	if (JSValueIsObject(st->ctx, exc))
		stack = JSObjectGetProperty(st->ctx, (JSObjectRef)exc, st->names[K_stack], NULL);
	if (stack && JSValueIsString(st->ctx, stack) && n + 1 < sizeof st->err) {
		JSStringRef s = JSValueToStringCopy(st->ctx, stack, NULL);

		st->err[n++] = '\n';
		n += JSStringGetUTF8CString(s, st->err + n, sizeof st->err - n) - 1;
		JSStringRelease(s);
	}
	text->p = st->err;
	text->len = n;
	return 0;
}

/* ==== Set-ups, loops and the table ==== */

static void teardown(void *p)
{
	jf_state *st = p;

	if (live == st)
		live = NULL;
	release(st->names, K_COUNT);
	if (st->ctx)
		bb_jsc_free(st->ctx); /* the protected function goes with the context's heap */
	free(st->text);
	free(st);
}

/* load makes a context with the host functions, the case's text and script, and its function fn_name in st->fn; it
 * makes the state live. */
static int load(const bb_case *c, void **out, const char *fn_name)
{
	static const char *const names[K_COUNT] = {
#define JF_STRING(n) #n,
		JF_NAMES(JF_STRING)
#undef JF_STRING
	};
	jf_state *st = calloc(1, sizeof *st);
	size_t i;

	*out = st;
	if (!st || !(st->ctx = bb_jsc_new())) {
		bb_error("out of memory");
		return -1;
	}
	for (i = 0; i < K_COUNT; i++)
		st->names[i] = JSStringCreateWithUTF8CString(names[i]);
	if (engine_text(c, &st->text, &st->text_len) < 0)
		return -1;
	for (i = 0; i < sizeof host_fns / sizeof host_fns[0]; i++)
		if (bb_jsc_set_function(st->ctx, host_fns[i].name, host_fns[i].fn) < 0)
			return -1;
	live = st;
	return bb_jsc_load(st->ctx, c->name, fn_name, fn_name ? &st->fn : NULL);
}

static int callback_registered(const jf_state *st)
{
	return st->fn != NULL;
}

static int run_bench(jf_state *st, uint64_t n, double *result)
{
	return bb_jsc_run_bench(st->ctx, st->fn, n, result);
}

#define BB_STATE jf_state
#include "engine_cases.h"
