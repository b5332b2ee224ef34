/* floor_jsc.c: the floor of JavaScriptCore, the cases written straight against its C API (JavaScript.h), along its
 * cheapest documented paths: a host function is JSObjectMakeFunctionWithCallback's, a call into script is
 * JSObjectCallAsFunction, numbers cross as JSValueMakeNumber and JSValueToNumber, strings through a JSStringRef and
 * its UTF-8 copy (the C API has no view of a string's bytes). The host-side work is the harness's (harness_host.c),
 * as in floor/floor.c. The cases it does not list yet are recorded as not implemented. */
#include "harness_jsc.h"

#include <stdlib.h>

#include "engine_cases.h"

const char *const bb_program = "floor";
const char *const bb_codec = NULL;

typedef struct jf_state {
	JSGlobalContextRef ctx;
	JSObjectRef fn; /* bench(n), or the function the host calls; protected */
	char *text;     /* the host's text of a case with bytes */
	size_t text_len;
} jf_state;

/* text_of is the host's text of a case with bytes. */
static bb_str text_of(const jf_state *st)
{
	bb_str t;

	t.p = st->text;
	t.len = st->text_len;
	return t;
}

/* scratch holds host_upper's result and a host -> script call's string result (until the next call): engine_scratch's
 * buffer, as utf8_of last grew it. */
static char *scratch;

/* registered is the state whose set-up runs: host_register stores the script's function in it. */
static jf_state *registered;

/* ==== Strings ==== */

/* utf8_of copies s into scratch as UTF-8 (NUL-terminated) and stores its length. 0, or -1 after bb_error. */
static int utf8_of(JSStringRef s, size_t *len)
{
	size_t max = JSStringGetMaximumUTF8CStringSize(s);

	if (!(scratch = engine_scratch(max)))
		return -1;
	*len = JSStringGetUTF8CString(s, scratch, max) - 1; /* it counts the NUL */
	return 0;
}

/* make_string makes a JavaScript string of the NUL-terminated UTF-8 text p. */
static JSValueRef make_string(JSContextRef ctx, const char *p)
{
	JSStringRef s = JSStringCreateWithUTF8CString(p);
	JSValueRef v = JSValueMakeString(ctx, s);

	JSStringRelease(s);
	return v;
}

/* ==== Host functions ==== */

static JSValueRef host_add(JSContextRef ctx, JSObjectRef fn, JSObjectRef self, size_t argc, const JSValueRef argv[],
			   JSValueRef *exc)
{
	double a, b;

	(void)fn, (void)self, (void)argc;
	a = JSValueToNumber(ctx, argv[0], exc);
	b = JSValueToNumber(ctx, argv[1], exc);
	return JSValueMakeNumber(ctx, bb_add(a, b));
}

static JSValueRef host_upper(JSContextRef ctx, JSObjectRef fn, JSObjectRef self, size_t argc, const JSValueRef argv[],
			     JSValueRef *exc)
{
	JSStringRef s = JSValueToStringCopy(ctx, argv[0], exc);
	size_t len;
	int rc;

	(void)fn, (void)self, (void)argc;
	if (!s)
		return NULL;
	rc = utf8_of(s, &len);
	JSStringRelease(s);
	if (rc < 0)
		return NULL;
	bb_upper_ascii(scratch, scratch, len);
	return make_string(ctx, scratch);
}

static JSValueRef host_register(JSContextRef ctx, JSObjectRef fn, JSObjectRef self, size_t argc,
				const JSValueRef argv[], JSValueRef *exc)
{
	(void)fn, (void)self, (void)argc, (void)exc;
	if (registered && JSValueIsObject(ctx, argv[0]) && JSObjectIsFunction(ctx, (JSObjectRef)argv[0])) {
		registered->fn = (JSObjectRef)argv[0];
		JSValueProtect(ctx, argv[0]);
	}
	return JSValueMakeUndefined(ctx);
}

/* ==== Host -> script calls ==== */

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
	JSValueRef arg, r, exc = NULL;
	JSStringRef s;
	int rc;

	bb_crossing();
	arg = make_string(st->ctx, in->p);
	r = JSObjectCallAsFunction(st->ctx, st->fn, NULL, 1, &arg, &exc);
	if (exc || !(s = JSValueToStringCopy(st->ctx, r, &exc)))
		return bb_jsc_fail(st->ctx, exc);
	rc = utf8_of(s, &out->len);
	JSStringRelease(s);
	out->p = scratch;
	return rc;
}

/* ==== Set-ups, loops and the table ==== */

static void teardown(void *p)
{
	jf_state *st = p;

	if (st->ctx)
		bb_jsc_free(st->ctx); /* unprotects nothing that outlives it: the context goes with its values */
	free(st->text);
	free(st);
}

/* load makes a context with the host functions, the case's text and script, and its function fn_name in st->fn. */
static int load(const bb_case *c, void **out, const char *fn_name)
{
	jf_state *st = calloc(1, sizeof *st);

	*out = st;
	if (!st || !(st->ctx = bb_jsc_new())) {
		bb_error("out of memory");
		return -1;
	}
	if (engine_text(c, &st->text, &st->text_len) < 0)
		return -1;
	if (bb_jsc_set_function(st->ctx, "host_add", host_add) < 0 ||
	    bb_jsc_set_function(st->ctx, "host_upper", host_upper) < 0 ||
	    bb_jsc_set_function(st->ctx, "host_register", host_register) < 0)
		return -1;
	registered = st;
	if (bb_jsc_load(st->ctx, c->name, fn_name, fn_name ? &st->fn : NULL) < 0)
		return -1;
	registered = NULL;
	return 0;
}

static int callback_registered(const jf_state *st)
{
	return st->fn != NULL;
}

static int run_js_loop(void *p, uint64_t n, uint64_t *ops)
{
	jf_state *st = p;
	double r;

	if (bb_jsc_run_bench(st->ctx, st->fn, n, &r) < 0)
		return -1;
	bb_sink += r;
	*ops = n;
	return 0;
}

#define BB_STATE jf_state
#include "engine_cases.h"

const bb_case bb_cases[] = {BB_ENGINE_CASES};
const bb_missing bb_missing_cases[] = {BB_ENGINE_MISSING};
const int bb_ncases = sizeof bb_cases / sizeof bb_cases[0];
