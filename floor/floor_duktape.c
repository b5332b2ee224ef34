/* floor_duktape.c: the floor of Duktape (2.7.0, built from Debian's source package: build/engine.go), the cases
 * written straight against its C API (duktape.h) along its cheapest documented paths: a host function is a
 * duk_c_function (duk_push_c_function) that reads its arguments off the value stack, a call into script is duk_pcall
 * on a function pushed by its heap pointer (duk_push_heapptr: the function stays reachable from the heap stash),
 * numbers cross as duk_get_number and duk_push_number, strings as duk_get_lstring (the bytes in place, no copy) and
 * duk_push_lstring (one copy into the heap). The host-side work is the harness's (harness_host.c). The harness is
 * compiled with -DBB_ENGINE_NONE: this file is its Duktape adapter too (engine.h). Duktape takes an allocator from its
 * embedder (duk_create_heap): the memory pass's heap counts through engine_realloc (engine_cases.h), so its memory
 * records have the engine's allocations and the heap's live size, as QuickJS's. The cases it does not list are recorded as not implemented. */
#include "engine.h"
#include "harness_core.h"

#include <stdio.h>
#include <stdlib.h>

#include <duktape.h>

#include "engine_cases.h"

const char *const bb_program = "floor";
const char *const bb_codec = NULL;

void bb_engine_meta(void)
{
	printf("meta engine duktape %ld.%ld.%ld\n", (long)DUK_VERSION / 10000, (long)DUK_VERSION / 100 % 100,
	       (long)DUK_VERSION % 100);
}

BB_ENGINE_COUNTED

typedef struct dk_state {
	duk_context *ctx;
	engine_heap heap; /* the heap's live counts, when the memory pass counts it */
	void *fn;    /* bench(n), or the function the host calls: reachable from the heap stash */
	int held;    /* 1 while a host -> script call's result stays on the value stack (until the next call) */
	char *text;  /* the host's text of a case with bytes */
	size_t text_len;
} dk_state;

static bb_str text_of(const dk_state *st)
{
	bb_str t;

	t.p = st->text;
	t.len = st->text_len;
	return t;
}

/* registered is the state whose set-up runs: host_register keeps the script's function in it. */
static dk_state *registered;

/* fail turns the error on top of the value stack into bb_error, pops it and returns -1. */
static int fail(duk_context *ctx)
{
	bb_error("%s", duk_safe_to_string(ctx, -1));
	duk_pop(ctx);
	return -1;
}

/* keep stores the function at idx in the heap stash, so that its heap pointer stays valid, and returns the pointer. */
static void *keep(duk_context *ctx, duk_idx_t idx)
{
	void *p = duk_get_heapptr(ctx, idx);

	duk_push_heap_stash(ctx);
	duk_dup(ctx, idx < 0 ? idx - 1 : idx);
	duk_put_prop_string(ctx, -2, "fn");
	duk_pop(ctx);
	return p;
}

/* ==== Host functions ==== */

static duk_ret_t host_add(duk_context *ctx)
{
	duk_push_number(ctx, bb_add(duk_get_number(ctx, 0), duk_get_number(ctx, 1)));
	return 1;
}

static duk_ret_t host_upper(duk_context *ctx)
{
	duk_size_t len;
	const char *s = duk_require_lstring(ctx, 0, &len);
	char *dst = engine_scratch(len ? len : 1);

	if (!dst)
		return duk_error(ctx, DUK_ERR_ERROR, "host_upper: out of memory");
	bb_upper_ascii(dst, s, len);
	duk_push_lstring(ctx, dst, len);
	return 1;
}

static duk_ret_t host_register(duk_context *ctx)
{
	if (!duk_is_function(ctx, 0))
		return duk_type_error(ctx, "host_register: not a function");
	if (registered)
		registered->fn = keep(ctx, 0);
	return 0;
}

/* ==== Host -> script calls ==== */

static int call_add(void *p, double a, double b, double *out)
{
	dk_state *st = p;

	bb_crossing();
	duk_push_heapptr(st->ctx, st->fn);
	duk_push_number(st->ctx, a);
	duk_push_number(st->ctx, b);
	if (duk_pcall(st->ctx, 2) != DUK_EXEC_SUCCESS)
		return fail(st->ctx);
	*out = duk_get_number(st->ctx, -1);
	duk_pop(st->ctx);
	return 0;
}

/* call_text leaves the result on the value stack, so that its bytes stay where duk_get_lstring found them until the
 * next call. */
static int call_text(void *p, const bb_str *in, bb_str *out)
{
	dk_state *st = p;
	duk_size_t len;

	bb_crossing();
	if (st->held)
		duk_pop(st->ctx);
	st->held = 0;
	duk_push_heapptr(st->ctx, st->fn);
	duk_push_lstring(st->ctx, in->p, in->len);
	if (duk_pcall(st->ctx, 1) != DUK_EXEC_SUCCESS)
		return fail(st->ctx);
	st->held = 1;
	if (!(out->p = duk_get_lstring(st->ctx, -1, &len))) {
		bb_error("text returned a %s, not a string", duk_safe_to_string(st->ctx, -1));
		return -1;
	}
	out->len = len;
	return 0;
}

/* ==== Set-ups, loops and the table ==== */

static void teardown(void *p)
{
	dk_state *st = p;

	if (st->ctx)
		duk_destroy_heap(st->ctx);
	engine_heap_end(&st->heap);
	free(st->text);
	free(st);
}

/* eval runs src, its let and const read as var (engine_es5). */
static int eval(duk_context *ctx, const char *src, const char *file)
{
	char *es5 = engine_es5(src);
	int rc = 0;

	if (!es5)
		return -1;
	duk_push_string(ctx, file);
	if (duk_pcompile_string_filename(ctx, 0, es5) != 0 || duk_pcall(ctx, 0) != DUK_EXEC_SUCCESS)
		rc = fail(ctx);
	else
		duk_pop(ctx);
	free(es5);
	return rc;
}

/* The allocator of a counted heap (duk_create_heap): udata is its engine_heap. */
static void *dk_alloc(void *udata, duk_size_t size)
{
	return engine_realloc(udata, NULL, size);
}

static void *dk_realloc(void *udata, void *ptr, duk_size_t size)
{
	return engine_realloc(udata, ptr, size);
}

static void dk_free(void *udata, void *ptr)
{
	engine_realloc(udata, ptr, 0);
}

/* load makes a heap with the host functions, the case's text and script, and its function fn_name in st->fn. */
static int load(const bb_case *c, void **out, const char *fn_name)
{
	static const struct {
		const char *name;
		duk_c_function fn;
		duk_idx_t nargs;
	} host[] = {{"host_add", host_add, 2}, {"host_upper", host_upper, 1}, {"host_register", host_register, 1}};
	dk_state *st = calloc(1, sizeof *st);
	size_t i;
	int rc;

	*out = st;
	if (!st) {
		bb_error("out of memory");
		return -1;
	}
	if (engine_heap_begin(&st->heap))
		st->ctx = duk_create_heap(dk_alloc, dk_realloc, dk_free, &st->heap, NULL);
	else
		st->ctx = duk_create_heap_default();
	if (!st->ctx) {
		bb_error("out of memory");
		return -1;
	}
	if (engine_text(c, &st->text, &st->text_len) < 0)
		return -1;
	for (i = 0; i < sizeof host / sizeof host[0]; i++) {
		duk_push_c_function(st->ctx, host[i].fn, host[i].nargs);
		duk_put_global_string(st->ctx, host[i].name);
	}
	duk_push_number(st->ctx, (double)st->text_len);
	duk_put_global_string(st->ctx, "N");
	registered = st;
	rc = eval(st->ctx, bb_prelude, "prelude.js") < 0 || eval(st->ctx, bb_case_script(c->name), c->name) < 0 ? -1 : 0;
	registered = NULL;
	if (rc < 0 || !fn_name)
		return rc;
	duk_get_global_string(st->ctx, fn_name);
	if (!duk_is_function(st->ctx, -1)) {
		bb_error("the script of %s defines no function %s", c->name, fn_name);
		return -1;
	}
	st->fn = keep(st->ctx, -1);
	duk_pop(st->ctx);
	return 0;
}

static int callback_registered(const dk_state *st)
{
	return st->fn != NULL;
}

static int run_js_loop(void *p, uint64_t n, uint64_t *ops)
{
	dk_state *st = p;

	duk_push_heapptr(st->ctx, st->fn);
	duk_push_number(st->ctx, (double)n);
	if (duk_pcall(st->ctx, 1) != DUK_EXEC_SUCCESS)
		return fail(st->ctx);
	bb_sink += duk_get_number(st->ctx, -1);
	duk_pop(st->ctx);
	*ops = n;
	return 0;
}

#define BB_STATE dk_state
#include "engine_cases.h"

const bb_case bb_cases[] = {BB_ENGINE_CASES};
const bb_missing bb_missing_cases[] = {BB_ENGINE_MISSING};
const int bb_ncases = sizeof bb_cases / sizeof bb_cases[0];
