/* floor_mujs.c: the floor of MuJS (1.3.6, built from Debian's source package: build/engine.go), the cases written
 * straight against its C API (mujs.h) along its cheapest documented paths: a host function is a js_CFunction
 * (js_newcfunction) that reads its arguments off the stack, a call into script is js_pcall on a function kept in the
 * registry (js_setregistry, js_getregistry), numbers cross as js_tonumber and js_pushnumber, strings as js_tostring
 * (the bytes in place, NUL-terminated: MuJS gives no length, so strlen counts them) and js_pushlstring (one copy). The
 * host-side work is the harness's (harness_host.c). The harness is compiled with -DBB_ENGINE_NONE: this file is its
 * MuJS adapter too (engine.h). MuJS takes an allocator from its embedder (js_newstate): the memory pass's state counts
 * through engine_realloc (engine_cases.h), so its memory records have the engine's allocations and the state's live
 * size, as QuickJS's. The cases it does not list are recorded as not implemented. */
#include "engine.h"
#include "harness_core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujs.h>

#include "engine_cases.h"

const char *const bb_program = "floor";
const char *const bb_codec = NULL;

/* BB_MUJS_VERSION is the release the build fetched (build/engine.go): MuJS 1.3.6's mujs.h still says 1.3.5. */
void bb_engine_meta(void)
{
#ifdef BB_MUJS_VERSION
	printf("meta engine mujs %s\n", BB_MUJS_VERSION);
#else
	printf("meta engine mujs %d.%d.%d\n", JS_VERSION_MAJOR, JS_VERSION_MINOR, JS_VERSION_PATCH);
#endif
}

BB_ENGINE_COUNTED

/* FN is the registry's name of the function the host calls (bench, the case's function or the callback). */
#define FN "bb_fn"

typedef struct mj_state {
	js_State *J;
	engine_heap heap; /* the state's live counts, when the memory pass counts it */
	int has_fn; /* the registry holds FN */
	int held;   /* 1 while a host -> script call's result stays on the stack (until the next call) */
	char *text; /* the host's text of a case with bytes */
	size_t text_len;
} mj_state;

static bb_str text_of(const mj_state *st)
{
	bb_str t;

	t.p = st->text;
	t.len = st->text_len;
	return t;
}

/* registered is the state whose set-up runs: host_register keeps the script's function in its registry. */
static mj_state *registered;

/* fail turns the error on top of the stack into bb_error, pops it and returns -1. */
static int fail(js_State *J)
{
	bb_error("%s", js_trystring(J, -1, "an error that cannot be converted to a string"));
	js_pop(J, 1);
	return -1;
}

/* ==== Host functions (argument 0 is this) ==== */

static void host_add(js_State *J)
{
	js_pushnumber(J, bb_add(js_tonumber(J, 1), js_tonumber(J, 2)));
}

static void host_upper(js_State *J)
{
	const char *s = js_tostring(J, 1);
	size_t len = strlen(s); /* the case's strings hold no NUL */
	char *dst = engine_scratch(len ? len : 1);

	if (!dst)
		js_error(J, "host_upper: out of memory");
	bb_upper_ascii(dst, s, len);
	js_pushlstring(J, dst, (int)len);
}

static void host_register(js_State *J)
{
	if (!js_iscallable(J, 1))
		js_typeerror(J, "host_register: not a function");
	js_copy(J, 1);
	js_setregistry(J, FN);
	if (registered)
		registered->has_fn = 1;
	js_pushundefined(J);
}

/* ==== Host -> script calls ==== */

static int call_add(void *p, double a, double b, double *out)
{
	js_State *J = ((mj_state *)p)->J;

	bb_crossing();
	js_getregistry(J, FN);
	js_pushundefined(J);
	js_pushnumber(J, a);
	js_pushnumber(J, b);
	if (js_pcall(J, 2))
		return fail(J);
	*out = js_tonumber(J, -1);
	js_pop(J, 1);
	return 0;
}

/* call_text leaves the result on the stack, so that the bytes js_tostring points at (a short string's are inside
 * the stack slot) stay until the next call. */
static int call_text(void *p, const bb_str *in, bb_str *out)
{
	mj_state *st = p;
	js_State *J = st->J;

	bb_crossing();
	if (st->held)
		js_pop(J, 1);
	st->held = 0;
	js_getregistry(J, FN);
	js_pushundefined(J);
	js_pushlstring(J, in->p, (int)in->len);
	if (js_pcall(J, 1))
		return fail(J);
	st->held = 1;
	if (!js_isstring(J, -1)) {
		bb_error("text returned a %s, not a string", js_trystring(J, -1, "value"));
		return -1;
	}
	out->p = js_tostring(J, -1);
	out->len = strlen(out->p);
	return 0;
}

/* ==== Set-ups, loops and the table ==== */

static void teardown(void *p)
{
	mj_state *st = p;

	if (st->J)
		js_freestate(st->J);
	engine_heap_end(&st->heap);
	free(st->text);
	free(st);
}

/* eval runs src, its let and const read as var (engine_es5). */
static int eval(js_State *J, const char *src, const char *file)
{
	char *es5 = engine_es5(src);
	int rc = 0;

	if (!es5)
		return -1;
	if (js_ploadstring(J, file, es5)) {
		rc = fail(J);
	} else {
		js_pushundefined(J);
		if (js_pcall(J, 0))
			rc = fail(J);
		else
			js_pop(J, 1);
	}
	free(es5);
	return rc;
}

/* mj_alloc is the allocator of a counted state (js_newstate): actx is its engine_heap. */
static void *mj_alloc(void *actx, void *ptr, int size)
{
	return engine_realloc(actx, ptr, size > 0 ? (size_t)size : 0);
}

/* load makes a state with the host functions, the case's text and script, and its function fn_name in the
 * registry. */
static int load(const bb_case *c, void **out, const char *fn_name)
{
	static const struct {
		const char *name;
		js_CFunction fn;
		int nargs;
	} host[] = {{"host_add", host_add, 2}, {"host_upper", host_upper, 1}, {"host_register", host_register, 1}};
	mj_state *st = calloc(1, sizeof *st);
	size_t i;
	int rc;

	*out = st;
	if (!st) {
		bb_error("out of memory");
		return -1;
	}
	st->J = engine_heap_begin(&st->heap) ? js_newstate(mj_alloc, &st->heap, 0) : js_newstate(NULL, NULL, 0);
	if (!st->J) {
		bb_error("out of memory");
		return -1;
	}
	if (engine_text(c, &st->text, &st->text_len) < 0)
		return -1;
	for (i = 0; i < sizeof host / sizeof host[0]; i++) {
		js_newcfunction(st->J, host[i].fn, host[i].name, host[i].nargs);
		js_setglobal(st->J, host[i].name);
	}
	js_pushnumber(st->J, (double)st->text_len);
	js_setglobal(st->J, "N");
	registered = st;
	rc = eval(st->J, bb_prelude, "prelude.js") < 0 || eval(st->J, bb_case_script(c->name), c->name) < 0 ? -1 : 0;
	registered = NULL;
	if (rc < 0 || !fn_name)
		return rc;
	js_getglobal(st->J, fn_name);
	if (!js_iscallable(st->J, -1)) {
		bb_error("the script of %s defines no function %s", c->name, fn_name);
		return -1;
	}
	js_setregistry(st->J, FN);
	st->has_fn = 1;
	return 0;
}

static int callback_registered(const mj_state *st)
{
	return st->has_fn;
}

static int run_js_loop(void *p, uint64_t n, uint64_t *ops)
{
	js_State *J = ((mj_state *)p)->J;

	js_getregistry(J, FN);
	js_pushundefined(J);
	js_pushnumber(J, (double)n);
	if (js_pcall(J, 1))
		return fail(J);
	bb_sink += js_tonumber(J, -1);
	js_pop(J, 1);
	*ops = n;
	return 0;
}

#define BB_STATE mj_state
#define BB_ENGINE_NO_TYPED_ARRAYS "mujs has no typed arrays (ES5): "
#include "engine_cases.h"

const bb_case bb_cases[] = {BB_ENGINE_CASES};
const bb_missing bb_missing_cases[] = {BB_ENGINE_MISSING};
const int bb_ncases = sizeof bb_cases / sizeof bb_cases[0];
