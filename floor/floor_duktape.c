/* floor_duktape.c: the floor of Duktape (2.7.0, built from Debian's source package: build/engine.go), every case
 * written straight against its C API (duktape.h) along its cheapest documented paths. The host-side work is the
 * harness's (harness_host.c), and each host function reads, does and returns what floor/floor.c's does.
 *
 * - A host function is a duk_c_function (duk_push_c_function, its nargs fixed, so that a missing argument reads as
 *   undefined, as QuickJS pads argv) that reads its arguments off the value stack and leaves what it pushed there
 *   (its frame is unwound on return); a call into script is duk_pcall on a function pushed by its heap pointer
 *   (duk_push_heapptr: the function stays reachable from the heap stash). A call that builds or reads objects runs
 *   whole in one duk_safe_call, so that an error anywhere in it comes back to the host, not to the fatal handler.
 * - Numbers cross as duk_to_number (duk_to_int32 for an int32) and duk_push_number; host_add and call_add read
 *   theirs by duk_get_number.
 * - Strings as duk_to_lstring (ToString in place on the value stack, the bytes read there without a copy for as long
 *   as the value stays on the stack) and duk_push_lstring (one copy into the heap, interned).
 * - Properties are read by duk_get_prop_literal (the literal cache spares the interning of the name), elements by
 *   duk_get_prop_index; a fresh object is duk_push_object and duk_put_prop_literal, a fresh array duk_push_array and
 *   duk_put_prop_index.
 * - A Float64Array's and a Uint8Array's memory is duk_get_buffer_data's (the view's slice, its offset included), no
 *   copy, its element size checked by its BYTES_PER_ELEMENT.
 * - A host error is duk_error (DUK_ERR_ERROR), duk_range_error or duk_type_error with floor.c's message; a script
 *   error's text is its ToString, a newline and its "stack" less the first line, which repeats the ToString.
 *
 * The harness is compiled with -DBB_ENGINE_NONE: this file is its Duktape adapter too (engine.h). Duktape takes an
 * allocator from its embedder (duk_create_heap): the memory pass's heap counts through engine_realloc
 * (engine_cases.h), so its memory records have the engine's allocations and the heap's live size, as QuickJS's. */
#include "engine.h"
#include "harness_core.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	int held;    /* 1 while a host -> script call's string result stays on the value stack (until the next call) */
	bb_ui ui;    /* what set_prop, apply_ops, set_node and apply_batch mutate */
	uint64_t unit_ops; /* ops per loop unit */
	char *text;  /* the host's text of a case with bytes */
	size_t text_len;
	char err[512]; /* the text of the last script error the host caught */
} dk_state;

/* live is the state whose case runs (cases run one at a time): the host functions find its UI table here, and
 * host_register keeps the script's function in it. */
static dk_state *live;

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

/* ==== Reading JavaScript values into host values ====
 * These run inside a Duktape call (a host function or a duk_safe_call), where a property read or a conversion may
 * throw. obj is an absolute index; the names are literals (duk_get_prop_literal's cache is keyed by them). */

static double prop_num_raw(duk_context *ctx, duk_idx_t obj, const char *key, duk_size_t key_len)
{
	double d;

	duk_get_prop_literal_raw(ctx, obj, key, key_len);
	d = duk_to_number(ctx, -1);
	duk_pop(ctx);
	return d;
}

static int32_t prop_int_raw(duk_context *ctx, duk_idx_t obj, const char *key, duk_size_t key_len)
{
	int32_t i;

	duk_get_prop_literal_raw(ctx, obj, key, key_len);
	i = duk_to_int32(ctx, -1);
	duk_pop(ctx);
	return i;
}

/* prop_str pushes property key as a string and gives its bytes, valid while it stays on the value stack. */
static bb_str prop_str_raw(duk_context *ctx, duk_idx_t obj, const char *key, duk_size_t key_len)
{
	bb_str s;
	duk_size_t len;

	duk_get_prop_literal_raw(ctx, obj, key, key_len);
	s.p = duk_to_lstring(ctx, -1, &len);
	s.len = len;
	return s;
}

#define prop_num(ctx, obj, key) prop_num_raw((ctx), (obj), (key), sizeof(key) - 1)
#define prop_int(ctx, obj, key) prop_int_raw((ctx), (obj), (key), sizeof(key) - 1)
#define prop_str(ctx, obj, key) prop_str_raw((ctx), (obj), (key), sizeof(key) - 1)

/* typed_data returns the memory of the typed array at idx without copying, checking its element size, and its
 * length in elements in *len; a TypeError otherwise. */
static const void *typed_data(duk_context *ctx, duk_idx_t idx, unsigned elem, size_t *len)
{
	duk_size_t size;
	void *p;

	if (!duk_is_buffer_data(ctx, idx) || prop_num(ctx, idx, "BYTES_PER_ELEMENT") != elem)
		(void)duk_type_error(ctx, "expected a typed array of %u-byte elements", elem);
	p = duk_get_buffer_data(ctx, idx, &size); /* NULL for an empty view, which has no element to read */
	*len = size / elem;
	return p;
}

/* obj_from_js reads the whole object at obj (absolute) of script_to_host_object; its strings stay on the value stack
 * (five values pushed). */
static void obj_from_js(duk_context *ctx, duk_idx_t obj, bb_obj_in *o)
{
	duk_idx_t tags;
	int i;

	o->id = prop_int(ctx, obj, "id");
	o->name = prop_str(ctx, obj, "name");
	o->x = prop_num(ctx, obj, "x");
	o->y = prop_num(ctx, obj, "y");
	duk_get_prop_literal(ctx, obj, "tags");
	tags = duk_get_top_index(ctx);
	for (i = 0; i < 3; i++) {
		duk_size_t len;

		duk_get_prop_index(ctx, tags, (duk_uarridx_t)i);
		o->tags[i].p = duk_to_lstring(ctx, -1, &len);
		o->tags[i].len = len;
	}
	duk_get_prop_literal(ctx, obj, "pos");
	o->pos_a = prop_num(ctx, duk_get_top_index(ctx), "a");
	o->pos_b = prop_num(ctx, duk_get_top_index(ctx), "b");
	duk_pop(ctx);
}

static void obj_out_from_js(duk_context *ctx, duk_idx_t obj, bb_obj_out *o)
{
	o->id = prop_int(ctx, obj, "id");
	o->x = prop_num(ctx, obj, "x");
	duk_get_prop_literal(ctx, obj, "ok");
	o->ok = duk_to_boolean(ctx, -1);
	duk_pop(ctx);
}

/* record_from_js reads {id, text} at obj (absolute); the text stays on top of the value stack. */
static void record_from_js(duk_context *ctx, duk_idx_t obj, bb_record *out)
{
	out->id = prop_int(ctx, obj, "id");
	out->text = prop_str(ctx, obj, "text");
}

/* ==== Making JavaScript values from host values ====
 * Each pushes a fresh object; put adds number d as property key of the object on top. */

#define put_num(ctx, key, d) (duk_push_number((ctx), (d)), duk_put_prop_literal((ctx), -2, (key)))
#define put_str(ctx, key, s) (duk_push_lstring((ctx), (s).p, (s).len), duk_put_prop_literal((ctx), -2, (key)))

static void obj_out_to_js(duk_context *ctx, const bb_obj_out *r)
{
	duk_push_object(ctx);
	put_num(ctx, "id", r->id);
	duk_push_boolean(ctx, r->ok);
	duk_put_prop_literal(ctx, -2, "ok");
	put_num(ctx, "x", r->x);
}

/* obj_in_to_js builds the whole object of host_to_script_object. */
static void obj_in_to_js(duk_context *ctx, const bb_obj_in *in)
{
	int i;

	duk_push_object(ctx);
	put_num(ctx, "id", in->id);
	put_str(ctx, "name", in->name);
	put_num(ctx, "x", in->x);
	put_num(ctx, "y", in->y);
	duk_push_array(ctx);
	for (i = 0; i < 3; i++) {
		duk_push_lstring(ctx, in->tags[i].p, in->tags[i].len);
		duk_put_prop_index(ctx, -2, (duk_uarridx_t)i);
	}
	duk_put_prop_literal(ctx, -2, "tags");
	duk_push_object(ctx);
	put_num(ctx, "a", in->pos_a);
	put_num(ctx, "b", in->pos_b);
	duk_put_prop_literal(ctx, -2, "pos");
}

static void record_to_js(duk_context *ctx, const bb_record *r)
{
	duk_push_object(ctx);
	put_num(ctx, "id", r->id);
	put_str(ctx, "text", r->text);
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

static duk_ret_t host_obj(duk_context *ctx)
{
	bb_obj_in in;
	bb_obj_out out;

	obj_from_js(ctx, 0, &in);
	out = bb_obj_host(&in);
	obj_out_to_js(ctx, &out);
	return 1;
}

static duk_ret_t host_sum(duk_context *ctx)
{
	double v[BB_ARRAY_LEN];
	duk_uarridx_t i;

	if (prop_num(ctx, 0, "length") != BB_ARRAY_LEN)
		return duk_range_error(ctx, "host_sum: expected %d numbers", BB_ARRAY_LEN);
	for (i = 0; i < BB_ARRAY_LEN; i++) {
		duk_get_prop_index(ctx, 0, i);
		v[i] = duk_to_number(ctx, -1);
		duk_pop(ctx);
	}
	duk_push_number(ctx, bb_sum(v, BB_ARRAY_LEN));
	return 1;
}

static duk_ret_t host_register(duk_context *ctx)
{
	if (!duk_is_function(ctx, 0))
		return duk_type_error(ctx, "host_register: not a function");
	if (live)
		live->fn = keep(ctx, 0);
	return 0;
}

static duk_ret_t host_fail(duk_context *ctx)
{
	char msg[64];

	bb_fail_message(msg, sizeof msg, duk_to_int32(ctx, 0));
	return duk_error(ctx, DUK_ERR_ERROR, "%s", msg);
}

static duk_ret_t set_prop(duk_context *ctx)
{
	double id = duk_to_number(ctx, 0), value;
	duk_size_t len;
	const char *key = duk_to_lstring(ctx, 1, &len);
	int k = bb_ui_key(key, len);

	value = duk_to_number(ctx, 2);
	if (bb_ui_set(&live->ui, id, k, value) < 0)
		return duk_range_error(ctx, "set_prop: bad node or key");
	return 0;
}

static duk_ret_t apply_ops(duk_context *ctx)
{
	size_t n;
	const double *ops = typed_data(ctx, 0, sizeof(double), &n);

	if (bb_ui_apply(&live->ui, ops, n) < 0)
		return duk_range_error(ctx, "apply_ops: bad node or key");
	return 0;
}

static duk_ret_t host_bytes(duk_context *ctx)
{
	size_t n;
	const uint8_t *p = typed_data(ctx, 0, 1, &n);

	duk_push_number(ctx, bb_bytes_sum(p, n));
	return 1;
}

static duk_ret_t host_record(duk_context *ctx)
{
	bb_record in, out;

	record_from_js(ctx, 0, &in);
	out = bb_record_host(&in);
	record_to_js(ctx, &out);
	return 1;
}

/* apply_node applies the mutation {id, key, value} at obj (absolute), the value stack as it was. */
static void apply_node(duk_context *ctx, duk_idx_t obj)
{
	double id = prop_num(ctx, obj, "id"), value;
	bb_str key = prop_str(ctx, obj, "key");

	value = prop_num(ctx, obj, "value");
	if (bb_ui_set_named(&live->ui, id, key.p, key.len, value) < 0)
		(void)duk_range_error(ctx, "bad node or key");
	duk_pop(ctx);
}

static duk_ret_t set_node(duk_context *ctx)
{
	apply_node(ctx, 0);
	return 0;
}

static duk_ret_t apply_batch(duk_context *ctx)
{
	double len = prop_num(ctx, 0, "length");
	duk_uarridx_t i;

	for (i = 0; i < len; i++) {
		duk_get_prop_index(ctx, 0, i);
		apply_node(ctx, 1);
		duk_pop(ctx);
	}
	return 0;
}

/* The host functions: host_functions.h's list. */
static const struct {
	const char *name;
	duk_c_function fn;
	duk_idx_t nargs;
} host_fns[] = {BB_HOST_FNS(BB_HOST_ENTRY, BB_HOST_ENTRY)};

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

/* unhold pops the string result of the last call, which the host had until this one. */
static void unhold(dk_state *st)
{
	if (st->held)
		duk_pop(st->ctx);
	st->held = 0;
}

/* call_text leaves the result on the value stack, so that its bytes stay where duk_get_lstring found them until the
 * next call. */
static int call_text(void *p, const bb_str *in, bb_str *out)
{
	dk_state *st = p;
	duk_size_t len;

	bb_crossing();
	unhold(st);
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

/* A call that builds an object and reads one: its arguments for duk_safe_call. */
typedef struct dk_call {
	void *fn;
	const void *in;
	void *out;
} dk_call;

/* safe runs f (obj_call or record_call) with c in one duk_safe_call, which leaves one value on the value stack: f's
 * result, or the error. 0, or -1 after bb_error (the error popped). */
static int safe(dk_state *st, duk_safe_call_function f, dk_call *c)
{
	bb_crossing();
	c->fn = st->fn;
	return duk_safe_call(st->ctx, f, c, 0, 1) != DUK_EXEC_SUCCESS ? fail(st->ctx) : 0;
}

static duk_ret_t obj_call(duk_context *ctx, void *udata)
{
	dk_call *c = udata;

	duk_push_heapptr(ctx, c->fn);
	obj_in_to_js(ctx, c->in);
	duk_call(ctx, 1);
	obj_out_from_js(ctx, duk_get_top_index(ctx), c->out);
	return 0;
}

static int call_obj(void *p, const bb_obj_in *in, bb_obj_out *out)
{
	dk_state *st = p;
	dk_call c = {NULL, in, out};

	if (safe(st, obj_call, &c) < 0)
		return -1;
	duk_pop(st->ctx);
	return 0;
}

/* record_call returns the text, which the host reads in place. */
static duk_ret_t record_call(duk_context *ctx, void *udata)
{
	dk_call *c = udata;

	duk_push_heapptr(ctx, c->fn);
	record_to_js(ctx, c->in);
	duk_call(ctx, 1);
	record_from_js(ctx, duk_get_top_index(ctx), c->out);
	return 1;
}

/* call_record leaves the text on the value stack until the next call, as call_text does. */
static int call_record(void *p, const bb_record *in, bb_record *out)
{
	dk_state *st = p;
	dk_call c = {NULL, in, out};

	unhold(st);
	if (safe(st, record_call, &c) < 0)
		return -1;
	st->held = 1;
	return 0;
}

/* call_fail calls the script's fail(i), which throws; the host takes the error's text, a newline and its stack,
 * whose first line, Duktape's own "Error: message", is the text already. */
static int call_fail(void *p, int32_t i, bb_str *text)
{
	dk_state *st = p;
	duk_context *ctx = st->ctx;
	const char *msg, *stack = NULL;
	size_t n;

	bb_crossing();
	duk_push_heapptr(ctx, st->fn);
	duk_push_int(ctx, i);
	if (duk_pcall(ctx, 1) == DUK_EXEC_SUCCESS) {
		duk_pop(ctx);
		bb_error("fail(%d) returned instead of throwing", (int)i);
		return -1;
	}
	if (duk_is_object(ctx, -1))
		duk_get_prop_literal(ctx, -1, "stack");
	else
		duk_push_undefined(ctx);
	if (duk_is_string(ctx, -1))
		stack = duk_get_string(ctx, -1);
	msg = duk_safe_to_string(ctx, -2); /* the error's ToString, in its place */
	n = strlen(msg);
	if (stack && strncmp(stack, msg, n) == 0 && (stack[n] == '\n' || stack[n] == '\0'))
		stack = stack[n] ? stack + n + 1 : NULL;
	snprintf(st->err, sizeof st->err, "%s%s%s", msg, stack && *stack ? "\n" : "", stack && *stack ? stack : "");
	duk_pop_2(ctx);
	text->p = st->err;
	text->len = strlen(st->err);
	return 0;
}

/* ==== Set-ups, loops and the table ==== */

static void teardown(void *p)
{
	dk_state *st = p;

	if (live == st)
		live = NULL;
	if (st->ctx) {
		/* every path leaves the value stack as it found it, less the string a host holds */
		assert(duk_get_top(st->ctx) == st->held);
		duk_destroy_heap(st->ctx);
	}
	engine_heap_end(&st->heap);
	free(st->text);
	free(st);
}

/* eval runs src, ES5 as every case's script is. */
static int eval(duk_context *ctx, const char *src, const char *file)
{
	duk_push_string(ctx, file);
	if (duk_pcompile_string_filename(ctx, 0, src) != 0 || duk_pcall(ctx, 0) != DUK_EXEC_SUCCESS)
		return fail(ctx);
	duk_pop(ctx);
	return 0;
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
	for (i = 0; i < sizeof host_fns / sizeof host_fns[0]; i++) {
		duk_push_c_function(st->ctx, host_fns[i].fn, host_fns[i].nargs);
		duk_put_global_string(st->ctx, host_fns[i].name);
	}
	duk_push_number(st->ctx, (double)st->text_len);
	duk_put_global_string(st->ctx, "N");
	live = st;
	rc = eval(st->ctx, bb_prelude, "prelude.js") < 0 || eval(st->ctx, bb_case_script(c->name), c->name) < 0 ? -1 : 0;
	if (rc < 0 || !fn_name)
		return rc;
	duk_get_global_string(st->ctx, fn_name);
	if (!duk_is_function(st->ctx, -1)) {
		duk_pop(st->ctx);
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

static int run_bench(dk_state *st, uint64_t n, double *result)
{
	duk_push_heapptr(st->ctx, st->fn);
	duk_push_number(st->ctx, (double)n);
	if (duk_pcall(st->ctx, 1) != DUK_EXEC_SUCCESS)
		return fail(st->ctx);
	*result = duk_get_number(st->ctx, -1);
	duk_pop(st->ctx);
	return 0;
}

#define BB_STATE dk_state
#include "engine_cases.h"
