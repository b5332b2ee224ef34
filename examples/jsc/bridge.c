/* bridge.c: a bridge of a user's over JavaScriptCore's C API, linked with bench-bridge's harness, which speaks
 * protocol 2 for it: this file has no line of protocol, only the engine's side of three cases (ref_js_loop,
 * script_to_host_scalar, callback).
 *
 * The bridge's own design, as an app's might be: host functions are rows of a table, exposed through one JSClass
 * whose callAsFunction reads the row from the function object's private data and converts the arguments to
 * doubles, so that adding a host function is adding a row. */
#include <stdlib.h>

#include "harness_jsc.h"

const char *const bb_program = "bridge";
const char *const bb_codec = "jsc-class"; /* how values cross: JSValueToNumber through a class's private row */

typedef struct state {
	JSGlobalContextRef ctx;
	JSObjectRef fn; /* bench(n), or the callback the script registered */
} state;

/* A host function of the bridge: its name, its arity and what it does with its numbers. */
typedef struct host_fn {
	const char *name;
	size_t arity;
	double (*call)(state *st, const JSValueRef *args, JSContextRef ctx, JSValueRef *exc);
} host_fn;

static double do_add(state *st, const JSValueRef *args, JSContextRef ctx, JSValueRef *exc)
{
	(void)st;
	return bb_add(JSValueToNumber(ctx, args[0], exc), JSValueToNumber(ctx, args[1], exc));
}

static double do_register(state *st, const JSValueRef *args, JSContextRef ctx, JSValueRef *exc)
{
	(void)exc;
	if (JSValueIsObject(ctx, args[0]) && JSObjectIsFunction(ctx, (JSObjectRef)args[0])) {
		st->fn = (JSObjectRef)args[0];
		JSValueProtect(ctx, args[0]);
	}
	return 0;
}

static const host_fn host_fns[] = {{"host_add", 2, do_add}, {"host_register", 1, do_register}};

/* call_row is every host function: the row is the function object's private data, the case's state the global's. */
static JSValueRef call_row(JSContextRef ctx, JSObjectRef fn, JSObjectRef self, size_t argc, const JSValueRef argv[],
			   JSValueRef *exc)
{
	const host_fn *row = JSObjectGetPrivate(fn);
	state *st = JSObjectGetPrivate(JSContextGetGlobalObject(ctx));

	(void)self;
	if (argc < row->arity) {
		JSStringRef msg = JSStringCreateWithUTF8CString("too few arguments");
		*exc = JSValueMakeString(ctx, msg);
		JSStringRelease(msg);
		return NULL;
	}
	return JSValueMakeNumber(ctx, row->call(st, argv, ctx, exc));
}

/* load makes a context whose global holds the state and the host functions, loads the case's script and keeps its
 * function fn_name (NULL: the script registers one). */
static int load(const bb_case *c, void **out, const char *fn_name)
{
	state *st = calloc(1, sizeof *st);
	JSClassDefinition def = kJSClassDefinitionEmpty, global_def = kJSClassDefinitionEmpty;
	JSClassRef cls, global_cls;
	size_t i;

	*out = st;
	if (!st) {
		bb_error("out of memory");
		return -1;
	}
	def.className = "HostFunction";
	def.callAsFunction = call_row;
	global_def.className = "Global";
	cls = JSClassCreate(&def);
	global_cls = JSClassCreate(&global_def);
	st->ctx = JSGlobalContextCreate(global_cls); /* a global of a class of its own carries the state */
	JSClassRelease(global_cls);
	JSObjectSetPrivate(JSContextGetGlobalObject(st->ctx), st);
	for (i = 0; i < sizeof host_fns / sizeof host_fns[0]; i++) {
		JSStringRef name = JSStringCreateWithUTF8CString(host_fns[i].name);
		JSObjectSetProperty(st->ctx, JSContextGetGlobalObject(st->ctx), name,
				    JSObjectMake(st->ctx, cls, (void *)&host_fns[i]), kJSPropertyAttributeNone, NULL);
		JSStringRelease(name);
	}
	JSClassRelease(cls);
	return bb_jsc_load(st->ctx, c->name, fn_name, &st->fn);
}

static int setup(const bb_case *c, void **out)
{
	return load(c, out, "bench");
}

static int setup_callback(const bb_case *c, void **out)
{
	if (load(c, out, NULL) < 0)
		return -1;
	if (!((state *)*out)->fn) {
		bb_error("the script registered no callback");
		return -1;
	}
	return 0;
}

static int run_bench(void *p, uint64_t n, uint64_t *ops)
{
	state *st = p;
	double r;

	if (bb_jsc_run_bench(st->ctx, st->fn, n, &r) < 0)
		return -1;
	bb_sink += r;
	*ops = n;
	return 0;
}

/* run_callback: the loop runs in C, one call of the registered function per op, each through bb_crossing(). */
static int run_callback(void *p, uint64_t n, uint64_t *ops)
{
	state *st = p;
	JSValueRef args[2], r, exc = NULL;
	double s = 0;
	uint64_t i;

	for (i = 0; i < n; i++) {
		bb_crossing();
		args[0] = JSValueMakeNumber(st->ctx, s);
		args[1] = JSValueMakeNumber(st->ctx, (double)i);
		r = JSObjectCallAsFunction(st->ctx, st->fn, NULL, 2, args, &exc);
		if (exc)
			return bb_jsc_fail(st->ctx, exc);
		s = JSValueToNumber(st->ctx, r, &exc);
	}
	bb_sink += s;
	*ops = n;
	return 0;
}

static void teardown(void *p)
{
	state *st = p;

	if (st->ctx)
		bb_jsc_free(st->ctx);
	free(st);
}

const bb_case bb_cases[] = {
	{"ref_js_loop", setup, run_bench, teardown},
	{"script_to_host_scalar", setup, run_bench, teardown},
	{"callback", setup_callback, run_callback, teardown},
};
const int bb_ncases = sizeof bb_cases / sizeof bb_cases[0];
