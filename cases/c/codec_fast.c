/* codec_fast.c: the fast codec: typed fast paths for functions whose signature is known when they are exposed
 * (step 3 of the boundary report's changes, docs/method.md#the-boundary-report).
 *
 * A host function whose signature is known when it is exposed gets a typed C entry that converts argv straight to
 * C values (numbers, and strings too, which a numbers-only fast path does not do; typed arrays read in place, with no
 * copy) and calls the typed host work directly: no text, no Dyn, no buffer. When the arguments do not fit the
 * signature, the entry falls back to the generic path, which here is the binary codec (so nothing is lost that
 * binary keeps); functions without a signature (typed[] names them with bin_entry) always take it. Host -> script
 * calls of (number, number) => number go straight to JS_Call. */
#include "bridge.h"
#include "host_functions.h"

#include <stdlib.h>
#include <string.h>

/* num reads a value JS_IsNumber accepted: never fails, no exception. */
static double num(JSValueConst v)
{
	if (JS_VALUE_GET_TAG(v) == JS_TAG_INT)
		return JS_VALUE_GET_INT(v);
	return JS_VALUE_GET_FLOAT64(v);
}

/* host_add: (number, number) => number */
static JSValue fast_add(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv, int magic)
{
	if (argc >= 2 && JS_IsNumber(argv[0]) && JS_IsNumber(argv[1]))
		return JS_NewFloat64(ctx, bb_add(num(argv[0]), num(argv[1])));
	return bin_entry(ctx, this_val, argc, argv, magic);
}

/* host_upper: (string) => string, through a scratch buffer reused from call to call */
static JSValue fast_upper(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv, int magic)
{
	br_state *st = JS_GetContextOpaque(ctx);
	const char *s;
	size_t len;
	JSValue r;

	if (argc < 1 || !JS_IsString(argv[0]))
		return bin_entry(ctx, this_val, argc, argv, magic);
	s = JS_ToCStringLen(ctx, &len, argv[0]);
	if (!s)
		return JS_EXCEPTION;
	if (len > st->scratch_cap) {
		char *p = bb_realloc(st->scratch, len);
		if (!p) {
			JS_FreeCString(ctx, s);
			return JS_ThrowOutOfMemory(ctx);
		}
		st->scratch = p;
		st->scratch_cap = len;
	}
	bb_upper_ascii(st->scratch, s, len);
	JS_FreeCString(ctx, s);
	r = JS_NewStringLen(ctx, st->scratch, len);
	return r;
}

/* set_prop: (number, string, number) => null */
static JSValue fast_set_prop(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv, int magic)
{
	br_state *st = JS_GetContextOpaque(ctx);
	const char *s;
	size_t len;
	int k;

	if (argc < 3 || !JS_IsNumber(argv[0]) || !JS_IsString(argv[1]) || !JS_IsNumber(argv[2]))
		return bin_entry(ctx, this_val, argc, argv, magic);
	s = JS_ToCStringLen(ctx, &len, argv[1]);
	if (!s)
		return JS_EXCEPTION;
	k = bb_ui_key(s, len);
	JS_FreeCString(ctx, s);
	if (bb_ui_set(&st->ui, num(argv[0]), k, num(argv[2])) < 0)
		return JS_ThrowInternalError(ctx, "set_prop: bad node or key"); /* as the generic path says it */
	return JS_NULL;
}

/* host_fail: (number) => never */
static JSValue fast_fail(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv, int magic)
{
	char msg[64];
	int32_t i;

	if (argc < 1 || !JS_IsNumber(argv[0]))
		return bin_entry(ctx, this_val, argc, argv, magic);
	if (JS_ToInt32(ctx, &i, argv[0]) < 0)
		return JS_EXCEPTION;
	bb_fail_message(msg, sizeof msg, i);
	return JS_ThrowInternalError(ctx, "%s", msg);
}

/* host_register: (function) => null */
static JSValue fast_register(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv, int magic)
{
	br_state *st = JS_GetContextOpaque(ctx);
	uint32_t h;

	if (argc < 1 || !JS_IsFunction(ctx, argv[0]))
		return bin_entry(ctx, this_val, argc, argv, magic);
	if (handle_of(st, argv[0], &h) < 0)
		return JS_ThrowOutOfMemory(ctx);
	st->callback = h;
	st->has_callback = 1;
	return JS_NULL;
}

/* in_place returns the memory of a typed array of one of the two kinds wanted, without copying, or NULL. */
static const uint8_t *in_place(br_state *st, JSValueConst v, int k1, int k2, size_t *nbytes)
{
	int kind = binary_kind(st, v);
	size_t elem;
	const uint8_t *data;

	if (kind < 0 || (kind != k1 && kind != k2))
		return NULL;
	data = typed_data(st, v, kind, nbytes, &elem);
	if (!data)
		JS_FreeValue(st->ctx, JS_GetException(st->ctx)); /* a detached buffer: the generic path says so */
	return data;
}

/* host_bytes: (Uint8Array) => number, zero-copy */
static JSValue fast_bytes(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv, int magic)
{
	br_state *st = JS_GetContextOpaque(ctx);
	size_t n;
	const uint8_t *p = argc >= 1 ? in_place(st, argv[0], BIN_U8, BIN_U8C, &n) : NULL;

	if (!p)
		return bin_entry(ctx, this_val, argc, argv, magic);
	return JS_NewFloat64(ctx, bb_bytes_sum(p, n));
}

/* apply_ops: (Float64Array) => null, zero-copy */
static JSValue fast_apply_ops(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv, int magic)
{
	br_state *st = JS_GetContextOpaque(ctx);
	size_t n;
	const uint8_t *p = argc >= 1 ? in_place(st, argv[0], BIN_F64, BIN_F64, &n) : NULL;
	double ops[3 * BB_UI_FRAME];

	if (!p || n > sizeof ops)
		return bin_entry(ctx, this_val, argc, argv, magic);
	memcpy(ops, p, n); /* the buffer's bytes may not be aligned for double */
	if (bb_ui_apply(&st->ui, ops, n / sizeof(double)) < 0)
		return JS_ThrowInternalError(ctx, "apply_ops: bad node or key");
	return JS_NULL;
}

/* typed gives every host function of host_functions.h the entry its list names, so that none is measured through the
 * fallback without saying so: its typed entry, or bin_entry for one whose argument is an object or an array, which no
 * typed entry here reads: it takes the binary path (as host_echo, the conformance suite's, does). */
#define FAST_ENTRY(name, arity, fast) {#name, fast},
static const struct {
	const char *name;
	JSCFunctionMagic *entry;
} typed[] = {BB_HOST_FNS(FAST_ENTRY, FAST_ENTRY)};
#undef FAST_ENTRY

static JSCFunctionMagic *fast_entry_of(int i)
{
	size_t k;

	for (k = 0; k < sizeof typed / sizeof typed[0]; k++)
		if (strcmp(typed[k].name, br_host_fns[i].name) == 0)
			return typed[k].entry;
	return bin_entry;
}

static int fast_call_num2(br_state *st, JSValueConst fn, double a, double b, double *out)
{
	JSValue argv[2], r;

	argv[0] = JS_NewFloat64(st->ctx, a);
	argv[1] = JS_NewFloat64(st->ctx, b);
	r = JS_Call(st->ctx, fn, JS_UNDEFINED, 2, argv); /* numbers hold no references: nothing to free */
	if (JS_IsException(r)) {
		br_exception_text(st);
		return -1;
	}
	if (!JS_IsNumber(r)) {
		JS_FreeValue(st->ctx, r);
		return host_err(st, "the JavaScript function returned no number");
	}
	*out = num(r);
	return 0;
}

/* br_fast: typed entries where the signature is known, the binary codec for everything else. */
const br_codec br_fast = {"fast", fast_entry_of, bin_call_js, fast_call_num2, bin_free};
