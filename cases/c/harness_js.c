/* harness_js.c: the QuickJS helpers the programs share: a runtime and context per case, loading a case's script and
 * calling its bench(n), and exceptions turned into text and error records. */
#include "harness_internal.h"

#include <stdio.h>
#include <string.h>

JSContext *bb_js_new(void *opaque)
{
	JSRuntime *rt = harness_runtime_new();
	JSContext *ctx;

	if (!rt) {
		bb_error("JS_NewRuntime failed");
		return NULL;
	}
	ctx = JS_NewContext(rt);
	if (!ctx) {
		harness_runtime_free(rt);
		bb_error("JS_NewContext failed");
		return NULL;
	}
	JS_SetContextOpaque(ctx, opaque);
	return ctx;
}

void bb_js_free(JSContext *ctx)
{
	JSRuntime *rt = JS_GetRuntime(ctx);

	JS_FreeContext(ctx);
	harness_runtime_free(rt);
}

void bb_js_exception_text(JSContext *ctx, char *buf, size_t size)
{
	JSValue exc = JS_GetException(ctx);
	const char *s = JS_ToCString(ctx, exc); /* "Error: message" for Error objects */

	if (s) {
		snprintf(buf, size, "%s", s);
		JS_FreeCString(ctx, s);
	} else {
		JS_FreeValue(ctx, JS_GetException(ctx)); /* the exception of the failed conversion */
		snprintf(buf, size, "exception that cannot be converted to a string");
	}
	JS_FreeValue(ctx, exc);
}

void bb_js_error_text(JSContext *ctx, char *buf, size_t size)
{
	JSValue exc = JS_GetException(ctx), stack = JS_UNDEFINED;
	const char *s = JS_ToCString(ctx, exc), *t = NULL;

	if (!s)
		JS_FreeValue(ctx, JS_GetException(ctx)); /* the exception of the failed conversion */
	if (JS_IsError(ctx, exc)) {
		stack = JS_GetPropertyStr(ctx, exc, "stack");
		if (JS_IsString(stack))
			t = JS_ToCString(ctx, stack);
		else if (JS_IsException(stack))
			JS_FreeValue(ctx, JS_GetException(ctx));
	}
	snprintf(buf, size, "%s%s%s", s ? s : "exception that cannot be converted to a string", t && *t ? "\n" : "",
		 t && *t ? t : "");
	JS_FreeCString(ctx, s);
	JS_FreeCString(ctx, t);
	JS_FreeValue(ctx, stack);
	JS_FreeValue(ctx, exc);
}

int bb_js_fail(JSContext *ctx)
{
	char text[HARNESS_ERROR_MAX];

	bb_js_exception_text(ctx, text, sizeof text);
	bb_error("%s", text);
	return -1;
}

static int eval(JSContext *ctx, const char *src, const char *file)
{
	JSValue v = JS_Eval(ctx, src, strlen(src), file, JS_EVAL_TYPE_GLOBAL);

	if (JS_IsException(v))
		return bb_js_fail(ctx);
	JS_FreeValue(ctx, v);
	return 0;
}

int bb_js_load(JSContext *ctx, const char *case_name, const char *fn_name, JSValue *fn)
{
	const harness_script *script = harness_script_find(case_name);
	JSValue global;
	int rc;

	if (fn)
		*fn = JS_UNDEFINED;
	if (!script) {
		bb_error("no script for case %s", case_name);
		return -1;
	}
	global = JS_GetGlobalObject(ctx);
	rc = JS_SetPropertyStr(ctx, global, "N", JS_NewInt32(ctx, script->bytes));
	JS_FreeValue(ctx, global);
	if (rc < 0)
		return bb_js_fail(ctx);
	if (eval(ctx, harness_prelude, "prelude.js") < 0 || eval(ctx, script->src, case_name) < 0)
		return -1;
	if (!fn_name)
		return 0;
	global = JS_GetGlobalObject(ctx);
	*fn = JS_GetPropertyStr(ctx, global, fn_name);
	JS_FreeValue(ctx, global);
	if (JS_IsException(*fn))
		return bb_js_fail(ctx);
	if (!JS_IsFunction(ctx, *fn)) {
		bb_error("the script of %s defines no function %s", case_name, fn_name);
		return -1;
	}
	return 0;
}

int bb_js_run_bench(JSContext *ctx, JSValueConst bench, uint64_t n, double *result)
{
	JSValue arg = JS_NewInt64(ctx, (int64_t)n);
	JSValue r = JS_Call(ctx, bench, JS_UNDEFINED, 1, &arg);
	int rc;

	if (JS_IsException(r))
		return bb_js_fail(ctx);
	rc = JS_ToFloat64(ctx, result, r);
	JS_FreeValue(ctx, r);
	return rc < 0 ? bb_js_fail(ctx) : 0;
}
