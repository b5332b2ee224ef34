/* harness_jsc.h: the harness for a program over JavaScriptCore's C API: the protocol's core (harness_core.h) and
 * JavaScriptCore's helpers (engine_jsc.c, the harness's JavaScriptCore adapter). Build harness.c with -DBB_ENGINE_JSC
 * and BB_JSC_VERSION defined as the library's version string, and with `pkg-config --cflags --libs
 * javascriptcoregtk-4.1`. */
#ifndef BB_HARNESS_JSC_H
#define BB_HARNESS_JSC_H

#include "harness_core.h"

#include <JavaScriptCore/JavaScript.h>

#ifdef __cplusplus
extern "C" {
#endif

/* bb_jsc_new creates a global context in a group of its own. NULL after bb_error on failure. */
JSGlobalContextRef bb_jsc_new(void);
/* bb_jsc_free releases the context. */
void bb_jsc_free(JSGlobalContextRef ctx);
/* bb_jsc_exception_text writes the text of exception exc ("Error: message") into buf. */
void bb_jsc_exception_text(JSContextRef ctx, JSValueRef exc, char *buf, size_t size);
/* bb_jsc_fail turns exception exc into bb_error and returns -1. */
int bb_jsc_fail(JSContextRef ctx, JSValueRef exc);
/* bb_jsc_set_function makes a host function of cb and sets it as the global name. 0, or -1 after bb_error. */
int bb_jsc_set_function(JSGlobalContextRef ctx, const char *name, JSObjectCallAsFunctionCallback cb);
/* bb_jsc_load evaluates the prelude and the case's script and, when fn_name is not NULL, stores the global function
 * fn_name in *fn, protected from the collector until the context goes (or JSValueUnprotect). 0, or -1 after
 * bb_error. */
int bb_jsc_load(JSGlobalContextRef ctx, const char *case_name, const char *fn_name, JSObjectRef *fn);
/* bb_jsc_run_bench calls bench(n) and stores its numeric result in *result. 0, or -1 after bb_error. */
int bb_jsc_run_bench(JSContextRef ctx, JSObjectRef bench, uint64_t n, double *result);

#ifdef __cplusplus
}
#endif

#endif
