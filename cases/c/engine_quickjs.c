/* engine_quickjs.c: the harness's QuickJS adapter (engine.h): its meta lines, the counting allocator of the memory
 * pass and the live heap; and the QuickJS helpers the programs share (harness.h): a runtime and context per case,
 * loading a case's script and calling its bench(n), and exceptions turned into text and error records. */
#ifdef BB_HARNESS_UNITY /* compiled through harness.c, which says why */
#include "harness_internal.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(BB_QUICKJS_VERSION)
#define QUICKJS_VERSION BB_QUICKJS_VERSION
#elif defined(CONFIG_VERSION)
#define QUICKJS_VERSION CONFIG_VERSION
#else
#define QUICKJS_VERSION "2025-04-26" /* the pinned source; quickjs.h has no version macro */
#endif

void bb_engine_meta(void)
{
	printf("meta engine quickjs %s\n", QUICKJS_VERSION);
	printf("meta quickjs %s\n", QUICKJS_VERSION);
}

/* The engine's allocator in the memory pass: QuickJS's default one (js_def_malloc and its kin in quickjs.c), which
 * keeps the runtime's malloc_count and malloc_size (its GC threshold and JS_ComputeMemoryUsage read them), plus the
 * count, with one change: it tells QuickJS the size it asked for, kept in a header, as a block's usable size.
 * malloc_usable_size depends on where glibc placed the block, and QuickJS grows string buffers into that slack and
 * runs its GC by it; with the requested size the counts depend on the requests alone and repeat exactly from
 * process to process. Timed samples run on the default allocator (JS_NewRuntime), untouched. ENGINE_OVERHEAD is
 * quickjs.c's MALLOC_OVERHEAD. */
#define ENGINE_OVERHEAD 8

typedef union engine_header {
	size_t size;
	max_align_t align; /* keeps the block after it aligned as malloc's */
} engine_header;

static size_t engine_usable_size(const void *p)
{
	return ((const engine_header *)p - 1)->size;
}

static void *engine_malloc(JSMallocState *s, size_t size)
{
	engine_header *h;

	if (s->malloc_size + size > s->malloc_limit)
		return NULL;
	h = malloc(sizeof *h + size);
	if (!h)
		return NULL;
	h->size = size;
	s->malloc_count++;
	s->malloc_size += size + ENGINE_OVERHEAD;
	harness_count_engine(size);
	return h + 1;
}

static void engine_free(JSMallocState *s, void *p)
{
	engine_header *h;

	if (!p)
		return;
	h = (engine_header *)p - 1;
	s->malloc_count--;
	s->malloc_size -= h->size + ENGINE_OVERHEAD;
	free(h);
}

static void *engine_realloc(JSMallocState *s, void *p, size_t size)
{
	engine_header *h;
	size_t old;

	if (!p)
		return size ? engine_malloc(s, size) : NULL;
	if (size == 0) {
		engine_free(s, p);
		return NULL;
	}
	h = (engine_header *)p - 1;
	old = h->size;
	if (s->malloc_size + size - old > s->malloc_limit)
		return NULL;
	h = realloc(h, sizeof *h + size);
	if (!h)
		return NULL;
	h->size = size;
	s->malloc_size += size - old;
	harness_count_engine(size);
	return h + 1;
}

static const JSMallocFunctions engine_mf = {engine_malloc, engine_free, engine_realloc, engine_usable_size};

/* counted_runtime is set while the memory pass sets its case up: runtime_new then uses engine_mf. */
static int counted_runtime;

/* live_rt is the runtime made last and not yet freed: the case's, whose heap the memory record reports. */
static JSRuntime *live_rt;

static JSRuntime *runtime_new(void)
{
	JSRuntime *rt = counted_runtime ? JS_NewRuntime2(&engine_mf, NULL) : JS_NewRuntime();

	if (rt)
		live_rt = rt;
	return rt;
}

static void runtime_free(JSRuntime *rt)
{
	if (rt == live_rt)
		live_rt = NULL;
	JS_FreeRuntime(rt);
}

int bb_engine_count_setup(int on)
{
	if (on)
		live_rt = NULL;
	counted_runtime = on;
	return 1;
}

int bb_engine_heap(int64_t *bytes, int64_t *allocs)
{
	JSMemoryUsage u;

	if (!live_rt)
		return 0;
	JS_ComputeMemoryUsage(live_rt, &u);
	*bytes = u.malloc_size;
	*allocs = u.malloc_count;
	return 1;
}


JSContext *bb_js_new(void *opaque)
{
	JSRuntime *rt = runtime_new();
	JSContext *ctx;

	if (!rt) {
		bb_error("JS_NewRuntime failed");
		return NULL;
	}
	ctx = JS_NewContext(rt);
	if (!ctx) {
		runtime_free(rt);
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
	runtime_free(rt);
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

#endif /* BB_HARNESS_UNITY */
