/* harness.h: the harness for a program over QuickJS: the protocol's core (harness_core.h) and QuickJS's helpers
 * (engine_quickjs.c, the harness's QuickJS adapter). The floor, the reference bridge and a user's QuickJS bridge
 * include it; harness.c uses QuickJS unless the build says otherwise. */
#ifndef BB_HARNESS_H
#define BB_HARNESS_H

#include "harness_core.h"

/* quickjs.h is not -Wextra clean (unused ctx parameters, a function cast): keep its warnings out of ours. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wunknown-warning-option"
#else
#pragma GCC diagnostic ignored "-Wpragmas"
#endif
#pragma GCC diagnostic ignored "-Wcast-function-type"
#endif
#include "quickjs.h"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- QuickJS helpers ---- */

/* bb_js_new creates a runtime and a context whose opaque pointer is opaque. NULL after bb_error on failure. */
JSContext *bb_js_new(void *opaque);
/* bb_js_free frees the context and its runtime. */
void bb_js_free(JSContext *ctx);
/* bb_js_exception_text takes the pending exception and writes its text ("Error: message") into buf. */
void bb_js_exception_text(JSContext *ctx, char *buf, size_t size);
/* bb_js_error_text takes the pending exception and writes its text and, for an Error, a newline and its stack
 * into buf: what a host gets of an exception in JavaScript. */
void bb_js_error_text(JSContext *ctx, char *buf, size_t size);
/* bb_js_fail turns the pending exception into bb_error and returns -1. */
int bb_js_fail(JSContext *ctx);
/* bb_js_load evaluates the case's script and stores the global function fn_name in *fn (fn_name and fn may be
 * NULL). Returns 0, or -1 after bb_error. */
int bb_js_load(JSContext *ctx, const char *case_name, const char *fn_name, JSValue *fn);
/* bb_js_run_bench calls bench(n) and stores its numeric result in *result. Returns 0, or -1 after bb_error. */
int bb_js_run_bench(JSContext *ctx, JSValueConst bench, uint64_t n, double *result);

#ifdef __cplusplus
}
#endif

#endif
