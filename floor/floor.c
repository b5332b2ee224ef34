/* floor.c: every case written directly against the QuickJS C API, values converted without text.
 *
 * This is the target a bridge can approach: each host function reads its arguments straight from argv
 * (JS_ToFloat64, JS_ToCStringLen, property reads, typed array memory) into the same typed host values the
 * reference bridge builds, does the same host-side work (harness_host.c), and makes its result with JS_New*. */
#include "harness.h"
#include "host_functions.h"

#include <stdlib.h>
#include <string.h>

const char *const bb_program = "floor";
const char *const bb_codec = NULL;

typedef struct fl_state {
	JSContext *ctx;
	JSValue fn;         /* bench(n), or the JavaScript function the host calls */
	uint64_t unit_ops;  /* ops per loop unit */
	bb_ui ui;           /* set_prop / apply_ops target */
	char *scratch;      /* host_upper's output, reused from call to call */
	size_t scratch_cap;
	char *text;         /* the host's text of a case with bytes */
	size_t text_len;
	const char *held;   /* the last host -> script string result, until the next call (JS_FreeCString) */
	char err[512];      /* the text of the last script error the host caught */
} fl_state;

static fl_state *state_of(JSContext *ctx)
{
	return JS_GetContextOpaque(ctx);
}

/* ==== Reading JavaScript values into host values ==== */

/* to_str converts v (which it frees) to UTF-8; the caller frees out->p with JS_FreeCString. */
static int to_str(JSContext *ctx, JSValue v, bb_str *out)
{
	out->p = JS_IsException(v) ? NULL : JS_ToCStringLen(ctx, &out->len, v);
	JS_FreeValue(ctx, v);
	return out->p ? 0 : -1;
}

/* to_num converts v (which it frees) to a double. */
static int to_num(JSContext *ctx, JSValue v, double *out)
{
	int rc = JS_IsException(v) ? -1 : JS_ToFloat64(ctx, out, v);

	JS_FreeValue(ctx, v);
	return rc;
}

static int prop_num(JSContext *ctx, JSValueConst obj, const char *key, double *out)
{
	return to_num(ctx, JS_GetPropertyStr(ctx, obj, key), out);
}

static int prop_int(JSContext *ctx, JSValueConst obj, const char *key, int32_t *out)
{
	JSValue v = JS_GetPropertyStr(ctx, obj, key);
	int rc = JS_IsException(v) ? -1 : JS_ToInt32(ctx, out, v);

	JS_FreeValue(ctx, v);
	return rc;
}

/* typed_data returns the memory of typed array v without copying, checking its element size. */
static const void *typed_data(JSContext *ctx, JSValueConst v, size_t elem_size, size_t *len)
{
	size_t off, nbytes, elem, size;
	JSValue buf = JS_GetTypedArrayBuffer(ctx, v, &off, &nbytes, &elem);
	uint8_t *data;

	if (JS_IsException(buf))
		return NULL;
	/* the typed array keeps the buffer alive while the call runs */
	data = JS_GetArrayBuffer(ctx, &size, buf);
	JS_FreeValue(ctx, buf);
	if (!data)
		return NULL;
	if (elem != elem_size) {
		JS_ThrowTypeError(ctx, "expected a typed array of %u-byte elements", (unsigned)elem_size);
		return NULL;
	}
	*len = nbytes / elem;
	return data + off;
}

static void obj_free(JSContext *ctx, bb_obj_in *o)
{
	int i;

	JS_FreeCString(ctx, o->name.p);
	for (i = 0; i < 3; i++)
		JS_FreeCString(ctx, o->tags[i].p);
}

/* obj_from_js reads the whole object of script_to_host_object; free its strings with obj_free. */
static int obj_from_js(JSContext *ctx, JSValueConst v, bb_obj_in *o)
{
	JSValue tags = JS_UNDEFINED, pos = JS_UNDEFINED;
	int i, rc = -1;

	memset(o, 0, sizeof *o);
	if (prop_int(ctx, v, "id", &o->id) < 0 || to_str(ctx, JS_GetPropertyStr(ctx, v, "name"), &o->name) < 0 ||
	    prop_num(ctx, v, "x", &o->x) < 0 || prop_num(ctx, v, "y", &o->y) < 0)
		goto out;
	tags = JS_GetPropertyStr(ctx, v, "tags");
	if (JS_IsException(tags))
		goto out;
	for (i = 0; i < 3; i++)
		if (to_str(ctx, JS_GetPropertyUint32(ctx, tags, i), &o->tags[i]) < 0)
			goto out;
	pos = JS_GetPropertyStr(ctx, v, "pos");
	if (JS_IsException(pos) || prop_num(ctx, pos, "a", &o->pos_a) < 0 || prop_num(ctx, pos, "b", &o->pos_b) < 0)
		goto out;
	rc = 0;
out:
	JS_FreeValue(ctx, tags);
	JS_FreeValue(ctx, pos);
	if (rc < 0)
		obj_free(ctx, o);
	return rc;
}

static int obj_out_from_js(JSContext *ctx, JSValueConst v, bb_obj_out *o)
{
	JSValue ok;

	if (prop_int(ctx, v, "id", &o->id) < 0 || prop_num(ctx, v, "x", &o->x) < 0)
		return -1;
	ok = JS_GetPropertyStr(ctx, v, "ok");
	o->ok = JS_ToBool(ctx, ok);
	JS_FreeValue(ctx, ok);
	return o->ok < 0 ? -1 : 0;
}

/* ==== Making JavaScript values from host values ==== */

/* def adds a property to a fresh object (no setters to look up, unlike JS_SetPropertyStr). */
static int def(JSContext *ctx, JSValueConst obj, const char *key, JSValue v)
{
	return JS_DefinePropertyValueStr(ctx, obj, key, v, JS_PROP_C_W_E);
}

static JSValue obj_out_to_js(JSContext *ctx, const bb_obj_out *r)
{
	JSValue o = JS_NewObject(ctx);

	if (JS_IsException(o))
		return o;
	if (def(ctx, o, "id", JS_NewInt32(ctx, r->id)) < 0 || def(ctx, o, "ok", JS_NewBool(ctx, r->ok)) < 0 ||
	    def(ctx, o, "x", JS_NewFloat64(ctx, r->x)) < 0) {
		JS_FreeValue(ctx, o);
		return JS_EXCEPTION;
	}
	return o;
}

/* obj_in_to_js builds the whole object of host_to_script_object. */
static JSValue obj_in_to_js(JSContext *ctx, const bb_obj_in *in)
{
	JSValue o = JS_NewObject(ctx), tags = JS_NewArray(ctx), pos = JS_NewObject(ctx);
	int i, bad = JS_IsException(o) || JS_IsException(tags) || JS_IsException(pos);

	for (i = 0; i < 3 && !bad; i++)
		bad = JS_DefinePropertyValueUint32(ctx, tags, i, JS_NewStringLen(ctx, in->tags[i].p, in->tags[i].len),
						   JS_PROP_C_W_E) < 0;
	bad = bad || def(ctx, pos, "a", JS_NewFloat64(ctx, in->pos_a)) < 0 ||
	      def(ctx, pos, "b", JS_NewFloat64(ctx, in->pos_b)) < 0 || def(ctx, o, "id", JS_NewInt32(ctx, in->id)) < 0 ||
	      def(ctx, o, "name", JS_NewStringLen(ctx, in->name.p, in->name.len)) < 0 ||
	      def(ctx, o, "x", JS_NewFloat64(ctx, in->x)) < 0 || def(ctx, o, "y", JS_NewFloat64(ctx, in->y)) < 0 ||
	      def(ctx, o, "tags", JS_DupValue(ctx, tags)) < 0 || def(ctx, o, "pos", JS_DupValue(ctx, pos)) < 0;
	JS_FreeValue(ctx, tags);
	JS_FreeValue(ctx, pos);
	if (bad) {
		JS_FreeValue(ctx, o);
		return JS_EXCEPTION;
	}
	return o;
}

/* ==== Host functions ====
 * QuickJS pads argv with undefined up to the length a function is registered with, so argv[0..length-1] exist. */

static JSValue host_add(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
	double a, b;

	(void)this_val, (void)argc;
	if (JS_ToFloat64(ctx, &a, argv[0]) < 0 || JS_ToFloat64(ctx, &b, argv[1]) < 0)
		return JS_EXCEPTION;
	return JS_NewFloat64(ctx, bb_add(a, b));
}

static JSValue host_upper(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
	fl_state *st = state_of(ctx);
	bb_str s;

	(void)this_val, (void)argc;
	if (to_str(ctx, JS_DupValue(ctx, argv[0]), &s) < 0)
		return JS_EXCEPTION;
	if (s.len > st->scratch_cap) {
		char *p = bb_realloc(st->scratch, s.len);
		if (!p) {
			JS_FreeCString(ctx, s.p);
			return JS_ThrowOutOfMemory(ctx);
		}
		st->scratch = p;
		st->scratch_cap = s.len;
	}
	bb_upper_ascii(st->scratch, s.p, s.len);
	JS_FreeCString(ctx, s.p);
	return JS_NewStringLen(ctx, st->scratch, s.len);
}

static JSValue host_obj(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
	bb_obj_in in;
	bb_obj_out out;

	(void)this_val, (void)argc;
	if (obj_from_js(ctx, argv[0], &in) < 0)
		return JS_EXCEPTION;
	out = bb_obj_host(&in);
	obj_free(ctx, &in);
	return obj_out_to_js(ctx, &out);
}

static JSValue host_sum(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
	double v[BB_ARRAY_LEN], len;
	uint32_t i;

	(void)this_val, (void)argc;
	if (prop_num(ctx, argv[0], "length", &len) < 0)
		return JS_EXCEPTION;
	if (len != BB_ARRAY_LEN)
		return JS_ThrowRangeError(ctx, "host_sum: expected %d numbers", BB_ARRAY_LEN);
	for (i = 0; i < BB_ARRAY_LEN; i++)
		if (to_num(ctx, JS_GetPropertyUint32(ctx, argv[0], i), &v[i]) < 0)
			return JS_EXCEPTION;
	return JS_NewFloat64(ctx, bb_sum(v, BB_ARRAY_LEN));
}

static JSValue host_register(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
	fl_state *st = state_of(ctx);

	(void)this_val, (void)argc;
	if (!JS_IsFunction(ctx, argv[0]))
		return JS_ThrowTypeError(ctx, "host_register: not a function");
	JS_FreeValue(ctx, st->fn);
	st->fn = JS_DupValue(ctx, argv[0]);
	return JS_UNDEFINED;
}

static JSValue host_fail(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
	char msg[64];
	int32_t i;

	(void)this_val, (void)argc;
	if (JS_ToInt32(ctx, &i, argv[0]) < 0)
		return JS_EXCEPTION;
	bb_fail_message(msg, sizeof msg, i);
	return JS_ThrowInternalError(ctx, "%s", msg);
}

static JSValue set_prop(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
	double id, value;
	bb_str key;
	int k;

	(void)this_val, (void)argc;
	if (JS_ToFloat64(ctx, &id, argv[0]) < 0 || to_str(ctx, JS_DupValue(ctx, argv[1]), &key) < 0)
		return JS_EXCEPTION;
	k = bb_ui_key(key.p, key.len);
	JS_FreeCString(ctx, key.p);
	if (JS_ToFloat64(ctx, &value, argv[2]) < 0)
		return JS_EXCEPTION;
	if (bb_ui_set(&state_of(ctx)->ui, id, k, value) < 0)
		return JS_ThrowRangeError(ctx, "set_prop: bad node or key");
	return JS_UNDEFINED;
}

static JSValue apply_ops(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
	size_t n;
	const double *ops = typed_data(ctx, argv[0], sizeof(double), &n);

	(void)this_val, (void)argc;
	if (!ops)
		return JS_EXCEPTION;
	if (bb_ui_apply(&state_of(ctx)->ui, ops, n) < 0)
		return JS_ThrowRangeError(ctx, "apply_ops: bad node or key");
	return JS_UNDEFINED;
}

static JSValue host_bytes(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
	size_t n;
	const uint8_t *p = typed_data(ctx, argv[0], 1, &n);

	(void)this_val, (void)argc;
	if (!p)
		return JS_EXCEPTION;
	return JS_NewFloat64(ctx, bb_bytes_sum(p, n));
}

/* record_from_js reads {id, text}; free out->text.p with JS_FreeCString. */
static int record_from_js(JSContext *ctx, JSValueConst v, bb_record *out)
{
	out->text.p = NULL;
	return prop_int(ctx, v, "id", &out->id) < 0 ? -1 : to_str(ctx, JS_GetPropertyStr(ctx, v, "text"), &out->text);
}

static JSValue record_to_js(JSContext *ctx, const bb_record *r)
{
	JSValue o = JS_NewObject(ctx);

	if (JS_IsException(o))
		return o;
	if (def(ctx, o, "id", JS_NewInt32(ctx, r->id)) < 0 ||
	    def(ctx, o, "text", JS_NewStringLen(ctx, r->text.p, r->text.len)) < 0) {
		JS_FreeValue(ctx, o);
		return JS_EXCEPTION;
	}
	return o;
}

static JSValue host_record(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
	bb_record in, out;
	JSValue r;

	(void)this_val, (void)argc;
	if (record_from_js(ctx, argv[0], &in) < 0)
		return JS_EXCEPTION;
	out = bb_record_host(&in);
	r = record_to_js(ctx, &out);
	JS_FreeCString(ctx, in.text.p);
	return r;
}

/* apply_node applies the mutation {id, key, value}. */
static int apply_node(JSContext *ctx, JSValueConst v)
{
	double id, value;
	bb_str key;
	int rc;

	if (prop_num(ctx, v, "id", &id) < 0 || to_str(ctx, JS_GetPropertyStr(ctx, v, "key"), &key) < 0)
		return -1;
	rc = prop_num(ctx, v, "value", &value);
	if (rc == 0 && bb_ui_set_named(&state_of(ctx)->ui, id, key.p, key.len, value) < 0) {
		JS_ThrowRangeError(ctx, "bad node or key");
		rc = -1;
	}
	JS_FreeCString(ctx, key.p);
	return rc;
}

static JSValue set_node(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
	(void)this_val, (void)argc;
	return apply_node(ctx, argv[0]) < 0 ? JS_EXCEPTION : JS_UNDEFINED;
}

static JSValue apply_batch(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
	double len;
	uint32_t i;

	(void)this_val, (void)argc;
	if (prop_num(ctx, argv[0], "length", &len) < 0)
		return JS_EXCEPTION;
	for (i = 0; i < len; i++) {
		JSValue v = JS_GetPropertyUint32(ctx, argv[0], i);
		int rc = JS_IsException(v) ? -1 : apply_node(ctx, v);
		JS_FreeValue(ctx, v);
		if (rc < 0)
			return JS_EXCEPTION;
	}
	return JS_UNDEFINED;
}

/* The host functions: host_functions.h's list. */
static const struct {
	const char *name;
	JSCFunction *fn;
	int length;
} host_fns[] = {BB_HOST_FNS(BB_HOST_ENTRY, BB_HOST_ENTRY)};

/* ==== Host -> script calls ==== */

static int call_add(void *state, double a, double b, double *out)
{
	fl_state *st = state;
	JSValue argv[2], r;
	int rc;

	bb_crossing();
	argv[0] = JS_NewFloat64(st->ctx, a);
	argv[1] = JS_NewFloat64(st->ctx, b);
	r = JS_Call(st->ctx, st->fn, JS_UNDEFINED, 2, argv); /* numbers hold no references: nothing to free */
	if (JS_IsException(r))
		return bb_js_fail(st->ctx);
	rc = JS_ToFloat64(st->ctx, out, r);
	JS_FreeValue(st->ctx, r);
	return rc < 0 ? bb_js_fail(st->ctx) : 0;
}

static int call_obj(void *state, const bb_obj_in *in, bb_obj_out *out)
{
	fl_state *st = state;
	JSValue arg = obj_in_to_js(st->ctx, in), r;
	int rc;

	bb_crossing();
	if (JS_IsException(arg))
		return bb_js_fail(st->ctx);
	r = JS_Call(st->ctx, st->fn, JS_UNDEFINED, 1, &arg);
	JS_FreeValue(st->ctx, arg);
	if (JS_IsException(r))
		return bb_js_fail(st->ctx);
	rc = obj_out_from_js(st->ctx, r, out);
	JS_FreeValue(st->ctx, r);
	return rc < 0 ? bb_js_fail(st->ctx) : 0;
}

/* hold keeps a string result for the host until the next call. */
static void hold(fl_state *st, const char *s)
{
	JS_FreeCString(st->ctx, st->held); /* takes NULL */
	st->held = s;
}

/* call_js1 calls st->fn with one argument, which it frees. */
static JSValue call_js1(fl_state *st, JSValue arg)
{
	JSValue r;

	bb_crossing();
	if (JS_IsException(arg))
		return arg;
	r = JS_Call(st->ctx, st->fn, JS_UNDEFINED, 1, &arg);
	JS_FreeValue(st->ctx, arg);
	return r;
}

static int call_text(void *state, const bb_str *in, bb_str *out)
{
	fl_state *st = state;
	JSValue r = call_js1(st, JS_NewStringLen(st->ctx, in->p, in->len));

	if (to_str(st->ctx, r, out) < 0) /* frees r; fails on an exception */
		return bb_js_fail(st->ctx);
	hold(st, out->p);
	return 0;
}

static int call_record(void *state, const bb_record *in, bb_record *out)
{
	fl_state *st = state;
	JSValue r = call_js1(st, record_to_js(st->ctx, in));
	int rc = JS_IsException(r) ? -1 : record_from_js(st->ctx, r, out);

	JS_FreeValue(st->ctx, r);
	if (rc < 0) {
		JS_FreeCString(st->ctx, out->text.p);
		return bb_js_fail(st->ctx);
	}
	hold(st, out->text.p);
	return 0;
}

/* call_fail calls the script's fail(i), which throws; the host takes the error's text and stack. */
static int call_fail(void *state, int32_t i, bb_str *text)
{
	fl_state *st = state;
	JSValue r = call_js1(st, JS_NewInt32(st->ctx, i));

	if (!JS_IsException(r)) {
		JS_FreeValue(st->ctx, r);
		bb_error("fail(%d) returned instead of throwing", (int)i);
		return -1;
	}
	bb_js_error_text(st->ctx, st->err, sizeof st->err);
	text->p = st->err;
	text->len = strlen(st->err);
	return 0;
}

/* ==== Cases ==== */

static void teardown(void *state)
{
	fl_state *st = state;

	if (st->ctx) {
		hold(st, NULL);
		JS_FreeValue(st->ctx, st->fn);
		bb_js_free(st->ctx);
	}
	bb_free(st->scratch);
	bb_free(st->text);
	bb_free(st);
}

/* new_state makes a context with every host function. */
static fl_state *new_state(void **state)
{
	fl_state *st = bb_calloc(1, sizeof *st);
	JSValue global;
	size_t i;
	int rc = 0;

	*state = st;
	if (!st) {
		bb_error("out of memory");
		return NULL;
	}
	st->fn = JS_UNDEFINED;
	st->ctx = bb_js_new(st);
	if (!st->ctx)
		return NULL;
	global = JS_GetGlobalObject(st->ctx);
	for (i = 0; i < sizeof host_fns / sizeof host_fns[0] && rc >= 0; i++)
		rc = JS_SetPropertyStr(st->ctx, global, host_fns[i].name,
				       JS_NewCFunction(st->ctx, host_fns[i].fn, host_fns[i].name, host_fns[i].length));
	JS_FreeValue(st->ctx, global);
	if (rc < 0) {
		bb_js_fail(st->ctx);
		return NULL;
	}
	return st;
}

/* host_register keeps the callback in st->fn. */
static int callback_registered(const fl_state *st)
{
	return JS_IsFunction(st->ctx, st->fn);
}

#define BB_STATE fl_state
#include "case_table.h"
