/* floor_mujs.c: the floor of MuJS (1.3.6, built from Debian's source package: build/engine.go), every case MuJS can
 * express written straight against its C API (mujs.h) along its cheapest documented paths. The host-side work is the
 * harness's (harness_host.c), and each host function reads, does and returns what floor.c's does.
 *
 * - A host function is a js_CFunction (js_newcfunction) that reads its arguments off the value stack (index 0 is
 *   this, arguments from 1, padded with undefined up to its length as QuickJS pads argv); it returns the value on top
 *   of the stack (undefined when it pushes none), and MuJS clears the rest of its stack when it returns. A call into
 *   script is js_call on a function kept in the registry (js_setregistry, js_getregistry), under js_pcall or js_try.
 * - Numbers cross as js_tonumber (js_toint32 for an int32) and js_pushnumber.
 * - Strings as js_tostring (the bytes in place, NUL-terminated: MuJS gives no length, so strlen counts them; a short
 *   string's bytes are inside its stack slot, so the value stays on the stack while the host reads them) and
 *   js_pushlstring (one copy).
 * - Properties are read by name by js_getproperty, elements by js_getindex, lengths by js_getlength; a fresh object
 *   is js_newobject and js_defproperty (attributes 0: writable, enumerable, configurable, as an object literal's; no
 *   setter looked up), a fresh array js_newarray and js_setindex.
 * - A host error is js_error's Error (js_rangeerror, js_typeerror where floor.c throws those), a longjmp to the
 *   script's catch; a script error's text is its toString and its "stackTrace" (MuJS's stack: "\n\tat fail (...)").
 * - MuJS has no typed arrays (ES5): ui_ops_buffer and bytes_64k are recorded as not implemented, with the reason.
 *
 * The harness is compiled with -DBB_ENGINE_NONE: this file is its MuJS adapter too (engine.h). MuJS takes an
 * allocator from its embedder (js_newstate): the memory pass's state counts through engine_realloc (engine_cases.h),
 * so its memory records have the engine's allocations and the state's live size, as QuickJS's. Every path leaves the
 * value stack as it found it, but for a host -> script call's string result, which stays until the next call. */
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
	int has_fn;       /* the registry holds FN */
	int held;         /* the values a host -> script call's string result keeps on the stack (until the next call) */
	bb_ui ui;         /* what set_prop, set_node and apply_batch mutate */
	uint64_t unit_ops; /* ops per loop unit */
	char *text;       /* the host's text of a case with bytes */
	size_t text_len;
	char err[512]; /* the text of the last script error the host caught */
} mj_state;

/* state_of is the state of J (js_setcontext in load). */
static mj_state *state_of(js_State *J)
{
	return js_getcontext(J);
}

/* fail turns the error on top of the stack into bb_error, pops it and returns -1. */
static int fail(js_State *J)
{
	bb_error("%s", js_trystring(J, -1, "an error that cannot be converted to a string"));
	js_pop(J, 1);
	return -1;
}

/* top is the absolute index of the value on top of the stack, which stays put while the host pushes above it. */
static int top(js_State *J)
{
	return js_gettop(J) - 1;
}

/* ==== Reading JavaScript values into host values (they throw into script, or to the caller's js_try) ==== */

static double prop_num(js_State *J, int idx, const char *name)
{
	double d;

	js_getproperty(J, idx, name);
	d = js_tonumber(J, -1);
	js_pop(J, 1);
	return d;
}

static int32_t prop_int(js_State *J, int idx, const char *name)
{
	int32_t i;

	js_getproperty(J, idx, name);
	i = js_toint32(J, -1);
	js_pop(J, 1);
	return i;
}

/* str_of reads the value at idx as a string, in place. */
static bb_str str_of(js_State *J, int idx)
{
	bb_str s;

	s.p = js_tostring(J, idx);
	s.len = strlen(s.p); /* the case's strings hold no NUL */
	return s;
}

/* prop_str reads property name of the object at idx as a string; the value stays on top of the stack, which holds
 * its bytes. */
static bb_str prop_str(js_State *J, int idx, const char *name)
{
	js_getproperty(J, idx, name);
	return str_of(J, -1);
}

/* obj_from_js reads the whole object of script_to_host_object at idx; it leaves OBJ_HELD values on the stack, which
 * hold its strings' bytes. */
#define OBJ_HELD 5
static void obj_from_js(js_State *J, int idx, bb_obj_in *o)
{
	int i, tags;

	o->id = prop_int(J, idx, "id");
	o->name = prop_str(J, idx, "name");
	o->x = prop_num(J, idx, "x");
	o->y = prop_num(J, idx, "y");
	js_getproperty(J, idx, "tags");
	tags = top(J);
	for (i = 0; i < 3; i++) {
		js_getindex(J, tags, i);
		o->tags[i] = str_of(J, -1);
	}
	js_getproperty(J, idx, "pos");
	o->pos_a = prop_num(J, -1, "a");
	o->pos_b = prop_num(J, -1, "b");
	js_pop(J, 1);
}

static void obj_out_from_js(js_State *J, int idx, bb_obj_out *o)
{
	o->id = prop_int(J, idx, "id");
	o->x = prop_num(J, idx, "x");
	js_getproperty(J, idx, "ok");
	o->ok = js_toboolean(J, -1);
	js_pop(J, 1);
}

/* record_from_js reads {id, text} at idx; the text's value stays on top of the stack. */
static void record_from_js(js_State *J, int idx, bb_record *out)
{
	out->id = prop_int(J, idx, "id");
	out->text = prop_str(J, idx, "text");
}

/* ==== Making JavaScript values from host values: each pushes one ==== */

/* def_num and def_str add a property to the fresh object on top of the stack. */
static void def_num(js_State *J, const char *name, double v)
{
	js_pushnumber(J, v);
	js_defproperty(J, -2, name, 0);
}

static void def_str(js_State *J, const char *name, const bb_str *s)
{
	js_pushlstring(J, s->p, (int)s->len);
	js_defproperty(J, -2, name, 0);
}

static void obj_out_to_js(js_State *J, const bb_obj_out *r)
{
	js_newobject(J);
	def_num(J, "id", r->id);
	js_pushboolean(J, r->ok);
	js_defproperty(J, -2, "ok", 0);
	def_num(J, "x", r->x);
}

/* obj_in_to_js builds the whole object of host_to_script_object. */
static void obj_in_to_js(js_State *J, const bb_obj_in *in)
{
	int i;

	js_newobject(J);
	def_num(J, "id", in->id);
	def_str(J, "name", &in->name);
	def_num(J, "x", in->x);
	def_num(J, "y", in->y);
	js_newarray(J);
	for (i = 0; i < 3; i++) {
		js_pushlstring(J, in->tags[i].p, (int)in->tags[i].len);
		js_setindex(J, -2, i);
	}
	js_defproperty(J, -2, "tags", 0);
	js_newobject(J);
	def_num(J, "a", in->pos_a);
	def_num(J, "b", in->pos_b);
	js_defproperty(J, -2, "pos", 0);
}

static void record_to_js(js_State *J, const bb_record *r)
{
	js_newobject(J);
	def_num(J, "id", r->id);
	def_str(J, "text", &r->text);
}

/* ==== Host functions (argument 0 is this) ==== */

static void host_add(js_State *J)
{
	js_pushnumber(J, bb_add(js_tonumber(J, 1), js_tonumber(J, 2)));
}

static void host_upper(js_State *J)
{
	bb_str s = str_of(J, 1);
	char *dst = engine_scratch(s.len ? s.len : 1);

	if (!dst)
		js_error(J, "host_upper: out of memory");
	bb_upper_ascii(dst, s.p, s.len);
	js_pushlstring(J, dst, (int)s.len);
}

static void host_obj(js_State *J)
{
	bb_obj_in in;
	bb_obj_out out;

	obj_from_js(J, 1, &in);
	out = bb_obj_host(&in);
	obj_out_to_js(J, &out);
}

static void host_sum(js_State *J)
{
	double v[BB_ARRAY_LEN];
	int i;

	if (js_getlength(J, 1) != BB_ARRAY_LEN)
		js_rangeerror(J, "host_sum: expected %d numbers", BB_ARRAY_LEN);
	for (i = 0; i < BB_ARRAY_LEN; i++) {
		js_getindex(J, 1, i);
		v[i] = js_tonumber(J, -1);
		js_pop(J, 1);
	}
	js_pushnumber(J, bb_sum(v, BB_ARRAY_LEN));
}

static void host_register(js_State *J)
{
	if (!js_iscallable(J, 1))
		js_typeerror(J, "host_register: not a function");
	js_copy(J, 1);
	js_setregistry(J, FN);
	state_of(J)->has_fn = 1;
}

static void host_fail(js_State *J)
{
	char msg[64];

	bb_fail_message(msg, sizeof msg, js_toint32(J, 1));
	js_error(J, "%s", msg);
}

static void set_prop(js_State *J)
{
	double id = js_tonumber(J, 1);
	bb_str key = str_of(J, 2);
	int k = bb_ui_key(key.p, key.len);

	if (bb_ui_set(&state_of(J)->ui, id, k, js_tonumber(J, 3)) < 0)
		js_rangeerror(J, "set_prop: bad node or key");
}

static void host_record(js_State *J)
{
	bb_record in, out;

	record_from_js(J, 1, &in);
	out = bb_record_host(&in);
	record_to_js(J, &out);
}

/* apply_node applies the mutation {id, key, value} at idx. */
static void apply_node(js_State *J, int idx)
{
	double id = prop_num(J, idx, "id"), value;
	bb_str key = prop_str(J, idx, "key");
	int rc;

	value = prop_num(J, idx, "value");
	rc = bb_ui_set_named(&state_of(J)->ui, id, key.p, key.len, value);
	js_pop(J, 1);
	if (rc < 0)
		js_rangeerror(J, "bad node or key");
}

static void set_node(js_State *J)
{
	apply_node(J, 1);
}

static void apply_batch(js_State *J)
{
	int len = js_getlength(J, 1), i;

	for (i = 0; i < len; i++) {
		js_getindex(J, 1, i);
		apply_node(J, top(J));
		js_pop(J, 1);
	}
}

/* ==== Host -> script calls ==== */

/* push_fn pushes the function the host calls and its this, after what the last call's result held. */
static void push_fn(mj_state *st)
{
	bb_crossing();
	js_pop(st->J, st->held);
	st->held = 0;
	js_getregistry(st->J, FN);
	js_pushundefined(st->J);
}

static int call_add(void *p, double a, double b, double *out)
{
	js_State *J = ((mj_state *)p)->J;

	push_fn(p);
	js_pushnumber(J, a);
	js_pushnumber(J, b);
	if (js_pcall(J, 2))
		return fail(J);
	*out = js_tonumber(J, -1);
	js_pop(J, 1);
	return 0;
}

/* call_text leaves the result on the stack, so that the bytes js_tostring points at stay until the next call. */
static int call_text(void *p, const bb_str *in, bb_str *out)
{
	mj_state *st = p;
	js_State *J = st->J;

	push_fn(st);
	js_pushlstring(J, in->p, (int)in->len);
	if (js_pcall(J, 1))
		return fail(J);
	st->held = 1;
	if (!js_isstring(J, -1)) {
		bb_error("text returned a %s, not a string", js_trystring(J, -1, "value"));
		return -1;
	}
	*out = str_of(J, -1);
	return 0;
}

/* call_obj and call_record make the argument, call and read the result under one js_try (what js_pcall does around
 * js_call alone): an error anywhere unwinds the stack to where it was, with the error on top. */
static int call_obj(void *p, const bb_obj_in *in, bb_obj_out *out)
{
	mj_state *st = p;
	js_State *J = st->J;

	push_fn(st);
	if (js_try(J)) {
		fail(J);
		js_pop(J, 2);
		return -1;
	}
	obj_in_to_js(J, in);
	js_call(J, 1);
	obj_out_from_js(J, top(J), out);
	js_endtry(J);
	js_pop(J, 1);
	return 0;
}

/* call_record: the result and its text's value stay on the stack, so that the text's bytes stay until the next
 * call. */
static int call_record(void *p, const bb_record *in, bb_record *out)
{
	mj_state *st = p;
	js_State *J = st->J;

	push_fn(st);
	if (js_try(J)) {
		fail(J);
		js_pop(J, 2);
		return -1;
	}
	record_to_js(J, in);
	js_call(J, 1);
	record_from_js(J, top(J), out);
	js_endtry(J);
	st->held = 2;
	return 0;
}

/* call_fail calls the script's fail(i), which throws; the host takes the error's text and its stackTrace, which
 * begins with the newline that separates them ("\n\tat fail (error_script_to_host:1)"). */
static int call_fail(void *p, int32_t i, bb_str *text)
{
	mj_state *st = p;
	js_State *J = st->J;
	const char *msg;

	push_fn(st);
	js_pushnumber(J, i);
	if (!js_pcall(J, 1)) {
		js_pop(J, 1);
		bb_error("fail(%d) returned instead of throwing", (int)i);
		return -1;
	}
	if (js_try(J)) { /* the error's toString threw */
		fail(J);
		js_pop(J, 1);
		return -1;
	}
	if (js_isobject(J, -1))
		js_getproperty(J, -1, "stackTrace");
	else
		js_pushundefined(J);
	msg = js_tostring(J, -2); /* in place: after the error's stackTrace is read */
	snprintf(st->err, sizeof st->err, "%s%s", msg, js_isstring(J, -1) ? js_tostring(J, -1) : "");
	js_endtry(J);
	js_pop(J, 2);
	text->p = st->err;
	text->len = strlen(st->err);
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

/* eval runs src, ES5 as every case's script is. */
static int eval(js_State *J, const char *src, const char *file)
{
	if (js_ploadstring(J, file, src))
		return fail(J);
	js_pushundefined(J);
	if (js_pcall(J, 0))
		return fail(J);
	js_pop(J, 1);
	return 0;
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
	/* host_functions.h's list, less the functions of typed arrays */
	static const struct {
		const char *name;
		js_CFunction fn;
		int nargs;
	} host[] = {BB_HOST_FNS(BB_HOST_ENTRY, BB_HOST_NONE)};
	mj_state *st = calloc(1, sizeof *st);
	size_t i;

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
	js_setcontext(st->J, st);
	if (engine_text(c, &st->text, &st->text_len) < 0)
		return -1;
	for (i = 0; i < sizeof host / sizeof host[0]; i++) {
		js_newcfunction(st->J, host[i].fn, host[i].name, host[i].nargs);
		js_setglobal(st->J, host[i].name);
	}
	js_pushnumber(st->J, (double)st->text_len);
	js_setglobal(st->J, "N");
	if (eval(st->J, bb_prelude, "prelude.js") < 0 || eval(st->J, bb_case_script(c->name), c->name) < 0)
		return -1;
	if (!fn_name)
		return 0;
	js_getglobal(st->J, fn_name);
	if (!js_iscallable(st->J, -1)) {
		js_pop(st->J, 1);
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

static int run_bench(mj_state *st, uint64_t n, double *result)
{
	js_State *J = st->J;

	js_getregistry(J, FN);
	js_pushundefined(J);
	js_pushnumber(J, (double)n);
	if (js_pcall(J, 1))
		return fail(J);
	*result = js_tonumber(J, -1);
	js_pop(J, 1);
	return 0;
}

#define BB_STATE mj_state
#define BB_ENGINE_NO_TYPED_ARRAYS "mujs has no typed arrays (ES5): "
#include "engine_cases.h"
