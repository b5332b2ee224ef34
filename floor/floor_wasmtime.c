/* floor_wasmtime.c: the floor of Wasmtime (the C API library and headers that the Go module wasmtime-go carries,
 * Cranelift: build/modulelib.go), the host of the WebAssembly guest catalogue (floor/wasm/guest.wat, whose header is
 * the contract: imports, exports, memory layout, which export runs which case), every crossing written straight
 * against wasmtime.h along its cheapest documented paths. The host-side work is the harness's (harness_host.c), as in
 * every floor.
 *
 * - A host function is defined once per process in a wasmtime_linker_t by wasmtime_linker_define_func_unchecked: its
 *   callback reads its arguments from, and writes its result into, one array of wasmtime_val_raw_t, with no type
 *   checks or conversions on the way (the linker checks the guest's imports against the types once, at
 *   instantiation).
 * - A call into the guest is wasmtime_func_call_unchecked, the arguments and results in one array of
 *   wasmtime_val_raw_t; the callback case calls the function the guest's table holds (wasmtime_table_get) the same
 *   way.
 * - Texts, records and arrays cross through the guest's linear memory, read and written in place at the offsets the
 *   guest gives (wasmtime_memory_data, whose base stays put: the memory is 5 pages, its maximum), each range checked
 *   against the memory's size.
 * - A host error is a trap (wasmtime_trap_new) the host function returns; a guest's error is its trap, which comes
 *   back from the call, its message read from the guest's memory and its stack from the trap's frames.
 *
 * The set-ups, timed loops and case table are case_loops.h's, as every floor's (through engine_cases.h): the guest
 * stands for the case's script (load), its bench_* export for the script's bench (run_bench), its add, text, obj,
 * record and fail for the script's functions. The guest is compiled once per process (wasmtime_module_new) and
 * instantiated in a store of each case's own. The program holds it (wasm_guest.h, written by build). The harness is compiled with -DBB_ENGINE_NONE: this file is its
 * Wasmtime adapter too (engine.h). Wasmtime takes no allocator from its embedder: the memory records have the host's
 * counts alone. */
#include "engine.h"
#include "harness_core.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wasmtime.h>

#include "engine_cases.h"
#include "wasm_guest.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the guest's memory is little-endian, and this floor reads it in place"
#endif

const char *const bb_program = "floor";
const char *const bb_codec = NULL;

void bb_engine_meta(void)
{
	printf("meta engine wasmtime %s\n", WASMTIME_VERSION);
}

BB_ENGINE_UNCOUNTED

/* The guest's layout (its header): the records' sizes and the host's areas' sizes. */
enum {
	OBJ_SIZE = 72,
	OBJ_OUT_SIZE = 16,
	RECORD_SIZE = 12,
	NODE_SIZE = 24,
	TEXT_AREA = 65536,
	OBJ_AREA = 256,
	ERR_AREA = 4 + 256,
};

typedef struct wt_state {
	wasmtime_store_t *store;
	wasmtime_context_t *cx;
	wasmtime_instance_t instance;
	uint8_t *mem; /* the guest's linear memory, mem_size bytes */
	size_t mem_size;
	wasmtime_func_t fn; /* the export the timed loop calls, or the callback */
	int host_loop;      /* error_host_to_script: the host calls fn once per op */
	int registered;     /* host_register was called, with callback */
	uint32_t callback;
	uint32_t text_in, obj_in, record_in, err; /* the guest's areas for the host (its exported globals) */
	bb_ui ui;           /* what set_prop, apply_ops, set_node and apply_batch mutate */
	uint64_t unit_ops;  /* ops per loop unit */
	char *text;         /* the host's text of a case with bytes */
	size_t text_len;
	char error[1024];   /* the text of the last guest error the host caught */
} wt_state;

/* live is the state whose case runs (cases run one at a time): the host functions, defined once per process, find
 * the guest's memory and the UI table here. */
static wt_state *live;

/* fail turns an error or a trap of Wasmtime's into bb_error, frees it and returns -1. */
static int fail(const char *what, wasmtime_error_t *err, wasm_trap_t *trap)
{
	wasm_byte_vec_t msg;

	if (err) {
		wasmtime_error_message(err, &msg);
		wasmtime_error_delete(err);
	} else {
		wasm_trap_message(trap, &msg);
		wasm_trap_delete(trap);
	}
	bb_error("%s: %.*s", what, (int)msg.size, msg.data);
	wasm_byte_vec_delete(&msg);
	return -1;
}

/* ==== The guest's memory ==== */

/* at is the guest's memory at [p, p + len), NULL when that is outside it. */
static inline uint8_t *at(uint32_t p, uint64_t len)
{
	return (uint64_t)p + len <= live->mem_size ? live->mem + p : NULL;
}

static inline uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof v);
	return v;
}

static inline double rdf64(const uint8_t *p)
{
	double v;

	memcpy(&v, p, sizeof v);
	return v;
}

static inline void wr32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof v);
}

static inline void wrf64(uint8_t *p, double v)
{
	memcpy(p, &v, sizeof v);
}

/* str_at reads the string (ptr, len) at p: its bytes in the guest's memory. 0, or -1 when they are outside it. */
static inline int str_at(const uint8_t *p, bb_str *s)
{
	uint32_t len = rd32(p + 4);

	s->p = (const char *)at(rd32(p), len);
	s->len = len;
	return s->p ? 0 : -1;
}

/* doubles_at is count f64 at p, aligned as C's doubles are (the memory's base is page-aligned), or NULL. */
static inline const double *doubles_at(uint32_t p, uint32_t count)
{
	return p % sizeof(double) == 0 ? (const double *)at(p, (uint64_t)count * sizeof(double)) : NULL;
}

/* ==== The host functions: host_functions.h's list, with their WebAssembly types ==== */

static wasm_trap_t *trap(const char *fn, const char *why)
{
	char msg[128];

	snprintf(msg, sizeof msg, "%s: %s", fn, why);
	return wasmtime_trap_new(msg, strlen(msg));
}

#define OUTSIDE(fn) trap(fn, "a range outside the guest's memory")

typedef wasm_trap_t *host_fn(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n);

static wasm_trap_t *host_add(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n)
{
	(void)env, (void)caller, (void)n;
	v[0].i32 = (int32_t)bb_add(v[0].i32, v[1].i32);
	return NULL;
}

static wasm_trap_t *host_upper(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n)
{
	uint32_t len = (uint32_t)v[1].i32;
	const uint8_t *src = at((uint32_t)v[0].i32, len);
	uint8_t *dst = at((uint32_t)v[2].i32, len);

	(void)env, (void)caller, (void)n;
	if (!src || !dst)
		return OUTSIDE("host_upper");
	bb_upper_ascii((char *)dst, (const char *)src, len);
	v[0].i32 = (int32_t)len;
	return NULL;
}

static wasm_trap_t *host_obj(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n)
{
	const uint8_t *o = at((uint32_t)v[0].i32, OBJ_SIZE);
	uint8_t *out = at((uint32_t)v[1].i32, OBJ_OUT_SIZE);
	bb_obj_in in;
	bb_obj_out r;

	(void)env, (void)caller, (void)n;
	if (!o || !out || str_at(o + 4, &in.name) < 0 || str_at(o + 32, &in.tags[0]) < 0 ||
	    str_at(o + 40, &in.tags[1]) < 0 || str_at(o + 48, &in.tags[2]) < 0)
		return OUTSIDE("host_obj");
	in.id = (int32_t)rd32(o);
	in.x = rdf64(o + 16);
	in.y = rdf64(o + 24);
	in.pos_a = rdf64(o + 56);
	in.pos_b = rdf64(o + 64);
	r = bb_obj_host(&in);
	wr32(out, (uint32_t)r.id);
	out[4] = (uint8_t)r.ok;
	wrf64(out + 8, r.x);
	return NULL;
}

static wasm_trap_t *host_record(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n)
{
	const uint8_t *p = at((uint32_t)v[0].i32, RECORD_SIZE);
	uint8_t *out = at((uint32_t)v[1].i32, RECORD_SIZE);
	bb_record in, r;

	(void)env, (void)caller, (void)n;
	if (!p || !out || str_at(p + 4, &in.text) < 0)
		return OUTSIDE("host_record");
	in.id = (int32_t)rd32(p);
	r = bb_record_host(&in);
	/* the same text: its ptr and len as read */
	wr32(out, (uint32_t)r.id);
	memmove(out + 4, p + 4, 8);
	return NULL;
}

static wasm_trap_t *host_sum(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n)
{
	uint32_t count = (uint32_t)v[1].i32;
	const double *a = doubles_at((uint32_t)v[0].i32, count);

	(void)env, (void)caller, (void)n;
	if (!a)
		return OUTSIDE("host_sum");
	v[0].f64 = bb_sum(a, count);
	return NULL;
}

static wasm_trap_t *host_bytes(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n)
{
	uint32_t len = (uint32_t)v[1].i32;
	const uint8_t *p = at((uint32_t)v[0].i32, len);

	(void)env, (void)caller, (void)n;
	if (!p)
		return OUTSIDE("host_bytes");
	v[0].i32 = (int32_t)bb_bytes_sum(p, len);
	return NULL;
}

static wasm_trap_t *host_fail(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n)
{
	char msg[64];

	(void)env, (void)caller, (void)n;
	bb_fail_message(msg, sizeof msg, v[0].i32);
	return wasmtime_trap_new(msg, strlen(msg));
}

static wasm_trap_t *host_register(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n)
{
	(void)env, (void)caller, (void)n;
	live->callback = (uint32_t)v[0].i32;
	live->registered = 1;
	return NULL;
}

static wasm_trap_t *set_prop(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n)
{
	uint32_t len = (uint32_t)v[2].i32;
	const uint8_t *key = at((uint32_t)v[1].i32, len);

	(void)env, (void)caller, (void)n;
	if (!key)
		return OUTSIDE("set_prop");
	if (bb_ui_set_named(&live->ui, v[0].i32, (const char *)key, len, v[3].f64) < 0)
		return trap("set_prop", "bad node or key");
	return NULL;
}

static wasm_trap_t *apply_ops(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n)
{
	uint32_t count = (uint32_t)v[1].i32;
	const double *ops = doubles_at((uint32_t)v[0].i32, count);

	(void)env, (void)caller, (void)n;
	if (!ops)
		return OUTSIDE("apply_ops");
	if (bb_ui_apply(&live->ui, ops, count) < 0)
		return trap("apply_ops", "bad node or key");
	return NULL;
}

/* node applies the Node at p (set_node's and each of apply_batch's). */
static wasm_trap_t *node(const char *fn, uint32_t p)
{
	const uint8_t *nd = at(p, NODE_SIZE);
	bb_str key;

	if (!nd || str_at(nd + 4, &key) < 0)
		return OUTSIDE(fn);
	if (bb_ui_set_named(&live->ui, (int32_t)rd32(nd), key.p, key.len, rdf64(nd + 16)) < 0)
		return trap(fn, "bad node or key");
	return NULL;
}

static wasm_trap_t *set_node(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n)
{
	(void)env, (void)caller, (void)n;
	return node("set_node", (uint32_t)v[0].i32);
}

static wasm_trap_t *apply_batch(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n)
{
	uint32_t p = (uint32_t)v[0].i32, count = (uint32_t)v[1].i32, i;
	wasm_trap_t *t = NULL;

	(void)env, (void)caller, (void)n;
	for (i = 0; i < count && !t; i++)
		t = node("apply_batch", p + i * NODE_SIZE);
	return t;
}

/* Each host function's type, params:results, one letter a value: i for i32, F for f64 (the guest's imports). */
#define SIG_host_add "ii:i"
#define SIG_host_upper "iii:i"
#define SIG_host_obj "ii:"
#define SIG_host_record "ii:"
#define SIG_host_sum "ii:F"
#define SIG_host_bytes "ii:i"
#define SIG_host_fail "i:"
#define SIG_host_register "i:"
#define SIG_set_prop "iiiF:"
#define SIG_apply_ops "ii:"
#define SIG_set_node "i:"
#define SIG_apply_batch "ii:"

#define WT_HOST_ENTRY(name, arity, fast) {#name, name, SIG_##name},

static const struct {
	const char *name;
	host_fn *fn;
	const char *sig;
} host_fns[] = {BB_HOST_FNS(WT_HOST_ENTRY, WT_HOST_ENTRY)};

/* ==== The runtime: one engine, linker and compiled guest per process ==== */

static wasm_engine_t *engine;
static wasmtime_linker_t *linker;
static wasmtime_module_t *guest;

/* valtypes makes the vector of the types letters (i, F) say. */
static void valtypes(wasm_valtype_vec_t *out, const char *letters, size_t n)
{
	wasm_valtype_t *types[8];
	size_t i;

	for (i = 0; i < n && i < 8; i++)
		types[i] = wasm_valtype_new(letters[i] == 'F' ? WASM_F64 : WASM_I32);
	wasm_valtype_vec_new(out, i, types);
}

/* functype is the function type of a signature of host_fns. */
static wasm_functype_t *functype(const char *sig)
{
	const char *colon = strchr(sig, ':');
	wasm_valtype_vec_t params, results;

	valtypes(&params, sig, (size_t)(colon - sig));
	valtypes(&results, colon + 1, strlen(colon + 1));
	return wasm_functype_new(&params, &results);
}

/* runtime makes the engine (Cranelift), the linker with the host functions and the compiled guest, once. 0, or -1
 * after bb_error. */
static int runtime(void)
{
	wasm_config_t *config;
	wasmtime_error_t *err;
	size_t i;

	if (guest)
		return 0;
	/* A Rust error captures the native stack when the environment sets RUST_BACKTRACE (this machine's does): each
	 * trap would then time the environment, not Wasmtime. */
	setenv("RUST_LIB_BACKTRACE", "0", 1);
	config = wasm_config_new();
	wasmtime_config_strategy_set(config, WASMTIME_STRATEGY_CRANELIFT);
	engine = wasm_engine_new_with_config(config);
	linker = wasmtime_linker_new(engine);
	for (i = 0; i < sizeof host_fns / sizeof host_fns[0]; i++) {
		wasm_functype_t *ty = functype(host_fns[i].sig);

		err = wasmtime_linker_define_func_unchecked(linker, "bb", 2, host_fns[i].name, strlen(host_fns[i].name), ty,
							    host_fns[i].fn, NULL, NULL);
		wasm_functype_delete(ty);
		if (err)
			return fail(host_fns[i].name, err, NULL);
	}
	err = wasmtime_module_new(engine, bb_wasm_guest, bb_wasm_guest_len, &guest);
	return err ? fail("compiling the guest", err, NULL) : 0;
}

/* ==== A case's guest ==== */

/* export_of finds the guest's export name of kind (WASMTIME_EXTERN_*). 0, or -1 after bb_error. */
static int export_of(wt_state *st, const char *name, wasmtime_extern_kind_t kind, wasmtime_extern_t *ext)
{
	if (!wasmtime_instance_export_get(st->cx, &st->instance, name, strlen(name), ext) || ext->kind != kind) {
		bb_error("the guest exports no %s %s", kind == WASMTIME_EXTERN_FUNC ? "function" : "global, memory or table", name);
		return -1;
	}
	return 0;
}

/* area reads the guest's exported i32 global name, the offset of an area of size bytes for the host. */
static int area(wt_state *st, const char *name, uint32_t size, uint32_t *offset)
{
	wasmtime_extern_t ext;
	wasmtime_val_t v;

	if (export_of(st, name, WASMTIME_EXTERN_GLOBAL, &ext) < 0)
		return -1;
	wasmtime_global_get(st->cx, &ext.of.global, &v);
	if (v.kind != WASMTIME_I32 || (uint64_t)(uint32_t)v.of.i32 + size > st->mem_size) {
		bb_error("the guest's %s is not an i32 offset of %" PRIu32 " bytes in its memory", name, size);
		return -1;
	}
	*offset = (uint32_t)v.of.i32;
	return 0;
}

/* call runs the guest's fn with its arguments in v (and its results there after). 0, or -1 after bb_error. */
static inline int call(wt_state *st, const char *what, const wasmtime_func_t *fn, wasmtime_val_raw_t *v, size_t n)
{
	wasm_trap_t *t = NULL;
	wasmtime_error_t *err = wasmtime_func_call_unchecked(st->cx, fn, v, n, &t);

	return err || t ? fail(what, err, t) : 0;
}

/* call_export calls the guest's export name, which takes and returns nothing (check_*, register). */
static int call_export(wt_state *st, const char *name)
{
	wasmtime_extern_t ext;
	wasmtime_val_raw_t v[1];

	return export_of(st, name, WASMTIME_EXTERN_FUNC, &ext) < 0 ? -1 : call(st, name, &ext.of.func, v, 0);
}

/* The script of each case (cases.def's), in bb_cases' order: which of the guest's loops and checks a case runs. */
static const char *const case_scripts[] = {
#define BB_CASE(name, crossing, unit_ops, bytes, setup, run, script, op) #script,
#define BB_CASE_TYPED_ARRAYS(name, crossing, unit_ops, bytes, setup, run, script, op, why) #script,
#include "cases.def"
#undef BB_CASE
#undef BB_CASE_TYPED_ARRAYS
};

/* The guest's loop of each script -> host case, by the case's script, and the check that stands for the script's
 * expect lines (the guest's header says which export runs which case). js_error's loop is the host's (error_host). */
static const struct {
	const char *script, *check, *bench;
} loops[] = {
	{"js_ref", "check_ref", "bench_ref"},
	{"js_scalar", "check_scalar", "bench_scalar"},
	{"js_string", "check_string", "bench_string"},
	{"js_object", "check_object", "bench_object"},
	{"js_record", "check_record", "bench_record"},
	{"js_array", "check_array", "bench_array"},
	{"js_bytes", "check_bytes", "bench_bytes"},
	{"js_ui_calls", NULL, "bench_ui_calls"},
	{"js_ui_buffer", NULL, "bench_ui_buffer"},
	{"js_ui_object_calls", NULL, "bench_ui_object_calls"},
	{"js_ui_object_batch", NULL, "bench_ui_object_batch"},
	{"js_error", NULL, "error_host"},
};

/* teardown frees the case's store (its instance and memory with it). */
static void teardown(void *state)
{
	wt_state *st = state;

	if (live == st)
		live = NULL;
	if (st->store)
		wasmtime_store_delete(st->store);
	bb_free(st->text);
	free(st);
}

/* error_host makes one op of error_host_to_script: the host calls the guest's error_host(i), whose call of host_fail
 * traps; the trap comes back to the host, which reads its message (to free). The message's length, or -1 after
 * bb_error. A trap a host function made comes back as an error, not a wasm_trap_t (one only a trap of the guest's own
 * is). */
static inline int64_t error_host(wt_state *st, int32_t i, wasm_byte_vec_t *msg)
{
	wasmtime_val_raw_t v[1];
	wasm_trap_t *t = NULL;
	wasmtime_error_t *err;

	v[0].i32 = i;
	err = wasmtime_func_call_unchecked(st->cx, &st->fn, v, 1, &t);
	if (err) {
		wasmtime_error_message(err, msg);
		wasmtime_error_delete(err);
	} else if (t) {
		wasm_trap_message(t, msg);
		wasm_trap_delete(t);
	} else {
		bb_error("error_host(%" PRId32 ") returned instead of trapping", i);
		return -1;
	}
	return (int64_t)msg->size;
}

/* check_error_host is js_error's check: one call of error_host, whose trap must bring host_fail's message back. */
static int check_error_host(wt_state *st)
{
	static const char want[] = "host_fail: refused 12";
	wasm_byte_vec_t msg;
	int found;

	if (error_host(st, 12, &msg) < 0)
		return -1;
	found = memmem(msg.data, msg.size, want, sizeof want - 1) != NULL;
	if (!found)
		bb_error("error_host(12) trapped with %.*s, want %s", (int)(msg.size < 200 ? msg.size : 200), msg.data, want);
	wasm_byte_vec_delete(&msg);
	return found ? 0 : -1;
}

/* callback_from_table keeps as st->fn the function the guest's register() handed host_register: an element of its
 * table "callbacks", which the host calls directly. */
static int callback_from_table(wt_state *st)
{
	wasmtime_extern_t ext;
	wasmtime_val_t fn;

	if (call_export(st, "register") < 0)
		return -1;
	if (!st->registered)
		return 0; /* case_loops.h's setup_callback says so */
	if (export_of(st, "callbacks", WASMTIME_EXTERN_TABLE, &ext) < 0)
		return -1;
	if (!wasmtime_table_get(st->cx, &ext.of.table, st->callback, &fn) || fn.kind != WASMTIME_FUNCREF ||
	    wasmtime_funcref_is_null(&fn.of.funcref)) {
		bb_error("the guest's callbacks[%" PRIu32 "] is no function", st->callback);
		return -1;
	}
	st->fn = fn.of.funcref;
	return 0;
}

/* load is case_loops.h's: a store and instance of the case's own, the guest's memory and areas found, init(bytes)
 * called and the case's text made; then what stands for the case's script: fn_name "bench" is the guest's loop of
 * the case's script, checked as its script's expect lines are; another fn_name is the guest's export of that name;
 * none (the callback case) is the function register() hands host_register. *state is set even on failure; 0, or -1
 * after bb_error. */
static int load(const bb_case *c, void **state, const char *fn_name)
{
	const char *script = case_scripts[c - bb_cases], *check = NULL;
	wt_state *st = calloc(1, sizeof *st);
	wasmtime_extern_t ext;
	wasmtime_val_raw_t v[1];
	wasm_trap_t *t = NULL;
	wasmtime_error_t *err;
	size_t i;

	*state = st;
	if (!st) {
		bb_error("out of memory");
		return -1;
	}
	if (runtime() < 0)
		return -1;
	st->store = wasmtime_store_new(engine, NULL, NULL);
	st->cx = wasmtime_store_context(st->store);
	live = st;
	err = wasmtime_linker_instantiate(linker, st->cx, guest, &st->instance, &t);
	if (err || t)
		return fail("instantiating the guest", err, t);
	if (export_of(st, "memory", WASMTIME_EXTERN_MEMORY, &ext) < 0)
		return -1;
	st->mem = wasmtime_memory_data(st->cx, &ext.of.memory);
	st->mem_size = wasmtime_memory_data_size(st->cx, &ext.of.memory);
	if (area(st, "text_in", TEXT_AREA, &st->text_in) < 0 || area(st, "obj_in", OBJ_AREA, &st->obj_in) < 0 ||
	    area(st, "record_in", RECORD_SIZE, &st->record_in) < 0 || area(st, "err", ERR_AREA, &st->err) < 0)
		return -1;
	if (engine_text(c, &st->text, &st->text_len) < 0 || export_of(st, "init", WASMTIME_EXTERN_FUNC, &ext) < 0)
		return -1;
	v[0].i32 = bb_case_bytes(c->name);
	if (call(st, "init", &ext.of.func, v, 1) < 0)
		return -1;
	if (!fn_name)
		return callback_from_table(st);
	if (strcmp(fn_name, "bench") == 0) {
		for (i = 0; i < sizeof loops / sizeof loops[0] && strcmp(loops[i].script, script) != 0; i++)
			;
		if (i == sizeof loops / sizeof loops[0]) {
			bb_error("the guest has no loop for %s's script %s (floor/wasm/guest.wat)", c->name, script);
			return -1;
		}
		fn_name = loops[i].bench;
		check = loops[i].check;
		st->host_loop = strcmp(script, "js_error") == 0;
	}
	if (export_of(st, fn_name, WASMTIME_EXTERN_FUNC, &ext) < 0)
		return -1;
	st->fn = ext.of.func;
	if (st->host_loop)
		return check_error_host(st);
	return check ? call_export(st, check) : 0;
}

static int callback_registered(const wt_state *st)
{
	return st->registered;
}

/* run_bench is a script -> host case's n ops (n frames for ui_ops_*): one call of the guest's bench_*(n), whose
 * result is the sink; for error_host_to_script the host's loop, one call of error_host per op, the messages' lengths
 * the sink. */
static int run_bench(wt_state *st, uint64_t n, double *result)
{
	wasmtime_val_raw_t v[1];
	wasm_byte_vec_t msg;
	uint64_t i;

	*result = 0;
	if (!st->host_loop) {
		v[0].i32 = (int32_t)n;
		if (call(st, "bench", &st->fn, v, 1) < 0)
			return -1;
		*result = v[0].i32;
		return 0;
	}
	for (i = 0; i < n; i++) {
		int64_t len = error_host(st, (int32_t)(i & 0x7fffffff), &msg);

		if (len < 0)
			return -1;
		wasm_byte_vec_delete(&msg);
		*result += (double)len;
	}
	return 0;
}

/* ==== Host -> guest calls ==== */

/* call_add calls add, or the callback: the catalogue's numbers are doubles, the guest's i32 (harness_core.h keeps them
 * below 2^31). */
static int call_add(void *state, double a, double b, double *out)
{
	wt_state *st = state;
	wasmtime_val_raw_t v[2];

	bb_crossing();
	v[0].i32 = (int32_t)a;
	v[1].i32 = (int32_t)b;
	if (call(st, "add", &st->fn, v, 2) < 0)
		return -1;
	*out = v[0].i32;
	return 0;
}

/* guest_str is the guest's string (ptr, len) as the host reads it in place. 0, or -1 after bb_error. */
static int guest_str(const char *fn, uint32_t ptr, uint32_t len, bb_str *out)
{
	if (!(out->p = (const char *)at(ptr, len))) {
		bb_error("%s gave a string outside the guest's memory", fn);
		return -1;
	}
	out->len = len;
	return 0;
}

/* put_text writes the host's text at text_in (the host -> guest cases' copy into the guest). */
static int put_text(wt_state *st, const bb_str *in)
{
	if (in->len > TEXT_AREA) {
		bb_error("a text of %zu bytes does not fit the guest's %d", in->len, TEXT_AREA);
		return -1;
	}
	memcpy(st->mem + st->text_in, in->p, in->len);
	return 0;
}

static int call_text(void *state, const bb_str *in, bb_str *out)
{
	wt_state *st = state;
	wasmtime_val_raw_t v[2];

	bb_crossing();
	if (put_text(st, in) < 0)
		return -1;
	v[0].i32 = (int32_t)st->text_in;
	v[1].i32 = (int32_t)in->len;
	if (call(st, "text", &st->fn, v, 2) < 0)
		return -1;
	return guest_str("text", (uint32_t)v[0].i32, (uint32_t)v[1].i32, out);
}

/* put_str writes s into the guest at *next and its (ptr, len) at p, moving *next past it, within end. */
static int put_str(uint8_t *p, uint32_t *next, uint32_t end, bb_str s)
{
	if ((uint64_t)*next + s.len > end) {
		bb_error("the object's strings do not fit the guest's obj_in");
		return -1;
	}
	memcpy(live->mem + *next, s.p, s.len);
	wr32(p, *next);
	wr32(p + 4, (uint32_t)s.len);
	*next += (uint32_t)s.len;
	return 0;
}

static int call_obj(void *state, const bb_obj_in *in, bb_obj_out *out)
{
	wt_state *st = state;
	uint8_t *o = st->mem + st->obj_in, *r;
	uint32_t next = st->obj_in + OBJ_SIZE, end = st->obj_in + OBJ_AREA;
	wasmtime_val_raw_t v[1];

	bb_crossing();
	wr32(o, (uint32_t)in->id);
	wrf64(o + 16, in->x);
	wrf64(o + 24, in->y);
	wrf64(o + 56, in->pos_a);
	wrf64(o + 64, in->pos_b);
	if (put_str(o + 4, &next, end, in->name) < 0 || put_str(o + 32, &next, end, in->tags[0]) < 0 ||
	    put_str(o + 40, &next, end, in->tags[1]) < 0 || put_str(o + 48, &next, end, in->tags[2]) < 0)
		return -1;
	v[0].i32 = (int32_t)st->obj_in;
	if (call(st, "obj", &st->fn, v, 1) < 0)
		return -1;
	if (!(r = at((uint32_t)v[0].i32, OBJ_OUT_SIZE))) {
		bb_error("obj gave an ObjOut outside the guest's memory");
		return -1;
	}
	out->id = (int32_t)rd32(r);
	out->ok = r[4];
	out->x = rdf64(r + 8);
	return 0;
}

static int call_record(void *state, const bb_record *in, bb_record *out)
{
	wt_state *st = state;
	uint8_t *rec = st->mem + st->record_in, *r;
	wasmtime_val_raw_t v[1];

	bb_crossing();
	if (put_text(st, &in->text) < 0)
		return -1;
	wr32(rec, (uint32_t)in->id);
	wr32(rec + 4, st->text_in);
	wr32(rec + 8, (uint32_t)in->text.len);
	v[0].i32 = (int32_t)st->record_in;
	if (call(st, "record", &st->fn, v, 1) < 0)
		return -1;
	if (!(r = at((uint32_t)v[0].i32, RECORD_SIZE))) {
		bb_error("record gave a Record outside the guest's memory");
		return -1;
	}
	out->id = (int32_t)rd32(r);
	return guest_str("record", rd32(r + 4), rd32(r + 8), &out->text);
}

/* stack appends the trap's frames to buf at *len, one "    at NAME (wasm-function[INDEX]:0xOFFSET)" line each, as V8
 * writes a WebAssembly frame (the guest keeps its functions' names). */
static void stack(const wasm_trap_t *t, char *buf, size_t size, size_t *len)
{
	wasm_frame_vec_t frames;
	size_t i;

	wasm_trap_trace(t, &frames);
	for (i = 0; i < frames.size && *len < size; i++) {
		const wasm_name_t *name = wasmtime_frame_func_name(frames.data[i]);
		int k = snprintf(buf + *len, size - *len, "\n    at %.*s (wasm-function[%" PRIu32 "]:0x%zx)",
				 name ? (int)name->size : 1, name ? name->data : "?", wasm_frame_func_index(frames.data[i]),
				 wasm_frame_module_offset(frames.data[i]));
		*len = k < 0 ? size : *len + (size_t)k;
	}
	wasm_frame_vec_delete(&frames);
	if (*len >= size)
		*len = size - 1;
}

/* call_fail calls the guest's fail(i), which traps: the error's text is "Error: " and the message the guest wrote at
 * err, then the trap's stack. */
static int call_fail(void *state, int32_t i, bb_str *text)
{
	wt_state *st = state;
	wasmtime_val_raw_t v[1];
	wasm_trap_t *t = NULL;
	wasmtime_error_t *err;
	const uint8_t *msg;
	size_t len;
	uint32_t n;

	bb_crossing();
	v[0].i32 = i;
	err = wasmtime_func_call_unchecked(st->cx, &st->fn, v, 1, &t);
	if (err)
		return fail("fail", err, NULL);
	if (!t) {
		bb_error("fail(%" PRId32 ") returned instead of trapping", i);
		return -1;
	}
	n = rd32(st->mem + st->err);
	if (n > ERR_AREA - 4 || !(msg = at(st->err + 4, n))) {
		wasm_trap_delete(t);
		bb_error("fail(%" PRId32 ") wrote a message of %" PRIu32 " bytes at err", i, n);
		return -1;
	}
	len = (size_t)snprintf(st->error, sizeof st->error, "Error: %.*s", (int)n, (const char *)msg);
	stack(t, st->error, sizeof st->error, &len);
	wasm_trap_delete(t);
	text->p = st->error;
	text->len = len;
	return 0;
}

/* ==== The cases: case_loops.h's set-ups, timed loops and table (cases.def's), over the calls above ==== */

#define BB_STATE wt_state
#include "engine_cases.h"
