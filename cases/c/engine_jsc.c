/* engine_jsc.c: the harness's JavaScriptCore adapter (engine.h): its meta line; no allocation counts (the C API takes
 * no allocator from its embedder) and no heap; and the helpers of harness_jsc.h. */
#ifdef BB_HARNESS_UNITY /* compiled through harness.c, which says why */
#include "harness_internal.h"
#include "harness_jsc.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef BB_JSC_VERSION
#define BB_JSC_VERSION "unknown" /* the C API has no version call: the build passes pkg-config's */
#endif

void bb_engine_meta(void)
{
	printf("meta engine jsc %s\n", BB_JSC_VERSION);
}

BB_ENGINE_UNCOUNTED

JSGlobalContextRef bb_jsc_new(void)
{
	JSGlobalContextRef ctx = JSGlobalContextCreate(NULL);

	if (!ctx)
		bb_error("JSGlobalContextCreate failed");
	return ctx;
}

void bb_jsc_free(JSGlobalContextRef ctx)
{
	JSGlobalContextRelease(ctx);
}

void bb_jsc_exception_text(JSContextRef ctx, JSValueRef exc, char *buf, size_t size)
{
	JSStringRef s = JSValueToStringCopy(ctx, exc, NULL);

	if (!s) {
		snprintf(buf, size, "exception that cannot be converted to a string");
		return;
	}
	JSStringGetUTF8CString(s, buf, size);
	JSStringRelease(s);
}

int bb_jsc_fail(JSContextRef ctx, JSValueRef exc)
{
	char text[HARNESS_ERROR_MAX];

	bb_jsc_exception_text(ctx, exc, text, sizeof text);
	bb_error("%s", text);
	return -1;
}

/* set_global sets the global name to v. */
static int set_global(JSGlobalContextRef ctx, const char *name, JSValueRef v)
{
	JSStringRef key = JSStringCreateWithUTF8CString(name);
	JSValueRef exc = NULL;

	JSObjectSetProperty(ctx, JSContextGetGlobalObject(ctx), key, v, kJSPropertyAttributeNone, &exc);
	JSStringRelease(key);
	return exc ? bb_jsc_fail(ctx, exc) : 0;
}

int bb_jsc_set_function(JSGlobalContextRef ctx, const char *name, JSObjectCallAsFunctionCallback cb)
{
	JSStringRef s = JSStringCreateWithUTF8CString(name);
	JSObjectRef fn = JSObjectMakeFunctionWithCallback(ctx, s, cb);

	JSStringRelease(s);
	return set_global(ctx, name, fn);
}

static int eval(JSGlobalContextRef ctx, const char *src, const char *file)
{
	JSStringRef script = JSStringCreateWithUTF8CString(src), url = JSStringCreateWithUTF8CString(file);
	JSValueRef exc = NULL;

	JSEvaluateScript(ctx, script, NULL, url, 1, &exc);
	JSStringRelease(script);
	JSStringRelease(url);
	return exc ? bb_jsc_fail(ctx, exc) : 0;
}

int bb_jsc_load(JSGlobalContextRef ctx, const char *case_name, const char *fn_name, JSObjectRef *fn)
{
	/* bb_case_script, not the harness's table, so that a program with scripts of its own (floor/engine_conformance.c's
	 * corpus) gets them */
	const char *src = bb_case_script(case_name);
	int32_t bytes = bb_case_bytes(case_name);
	JSStringRef key;
	JSValueRef v, exc = NULL;

	if (!src) {
		bb_error("no script for case %s", case_name);
		return -1;
	}
	if (set_global(ctx, "N", JSValueMakeNumber(ctx, bytes > 0 ? bytes : 0)) < 0 ||
	    eval(ctx, harness_prelude, "prelude.js") < 0 || eval(ctx, src, case_name) < 0)
		return -1;
	if (!fn_name)
		return 0;
	key = JSStringCreateWithUTF8CString(fn_name);
	v = JSObjectGetProperty(ctx, JSContextGetGlobalObject(ctx), key, &exc);
	JSStringRelease(key);
	if (exc)
		return bb_jsc_fail(ctx, exc);
	if (!JSValueIsObject(ctx, v) || !JSObjectIsFunction(ctx, (JSObjectRef)v)) {
		bb_error("the script of %s defines no function %s", case_name, fn_name);
		return -1;
	}
	*fn = (JSObjectRef)v;
	JSValueProtect(ctx, v);
	return 0;
}

int bb_jsc_run_bench(JSContextRef ctx, JSObjectRef bench, uint64_t n, double *result)
{
	JSValueRef arg = JSValueMakeNumber(ctx, (double)n), exc = NULL, r;

	r = JSObjectCallAsFunction(ctx, bench, NULL, 1, &arg, &exc);
	if (exc)
		return bb_jsc_fail(ctx, exc);
	*result = JSValueToNumber(ctx, r, &exc);
	return exc ? bb_jsc_fail(ctx, exc) : 0;
}

#endif /* BB_HARNESS_UNITY */
