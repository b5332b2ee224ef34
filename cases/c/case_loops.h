/* case_loops.h: each case's set-up and timed loop, and the case table, the same in every program over any engine: the
 * table is cases.def's list, so that the programs differ only in how a value crosses. case_table.h includes it for the
 * QuickJS programs (the floor, the reference bridge, a bridge of a user's), floor/engine_cases.h for the floors of the
 * other engines.
 *
 * A program includes it once, at file scope, after defining BB_STATE (its state type, with ui, unit_ops, text and
 * text_len) and the functions it names:
 *   load(c, state, fn_name)     a state with the program's host functions, the case's text (text, text_len) and its
 *                               script evaluated, the script's function fn_name kept (none when fn_name is NULL);
 *                               *state set, even on failure; -1 after bb_error()
 *   run_bench(st, n, &result)   calls the script's bench(n): n crossings (n frames for ui_ops_*), its result
 *   callback_registered(st)     whether the script has handed a function to host_register
 *   call_add, call_obj, call_text, call_record, call_fail
 *                               the host -> script calls (harness_core.h: bb_check_add, bb_check_obj, bb_check_text,
 *                               bb_check_record, bb_check_script_error)
 *   teardown(state)             frees the state, text included
 * A program whose engine has no typed arrays defines BB_ENGINE_NO_TYPED_ARRAYS first: its table leaves out the cases
 * cases.def lists with BB_CASE_TYPED_ARRAYS.
 *
 * A case needs no more than its entry in cases.def and its script, unless no set-up and loop here fit it: they are
 * then added here, for every program. A header rather than a shared .c file keeps the host -> script calls direct in
 * the timed loops, with no function pointer between the loop and the crossing. The casts from void * let C++ programs
 * include it too (docs/bridge.md). */
#ifndef BB_CASE_LOOPS_H
#define BB_CASE_LOOPS_H

#include <stdlib.h>
#include <string.h>

/* cases.def's cases of typed arrays: in the table, unless the engine has none. */
#ifdef BB_ENGINE_NO_TYPED_ARRAYS
#define BB_CASE_TYPED_ARRAYS(name, crossing, unit_ops, bytes, setup, run, script, op, why)
#else
#define BB_CASE_TYPED_ARRAYS(name, crossing, unit_ops, bytes, setup, run, script, op, why) \
	BB_CASE(name, crossing, unit_ops, bytes, setup, run, script, op)
#endif

/* What the table says of each case besides its functions, in bb_cases' order. */
static const struct {
	uint64_t unit_ops;
	size_t bytes;
} case_facts[] = {
#define BB_CASE(name, crossing, unit_ops, bytes, setup, run, script, op) {unit_ops, bytes},
#include "cases.def"
#undef BB_CASE
};

/* text_of is the host's text of a case with bytes. */
static bb_str text_of(const BB_STATE *st)
{
	bb_str t;

	t.p = st->text;
	t.len = st->text_len;
	return t;
}

/* case_load is the program's load, and the case's ops per loop unit. */
static int case_load(const bb_case *c, void **state, const char *fn_name)
{
	if (load(c, state, fn_name) < 0)
		return -1;
	((BB_STATE *)*state)->unit_ops = case_facts[c - bb_cases].unit_ops;
	return 0;
}

/* ==== Timed loops ==== */

/* run_js_loop: the loop runs in JavaScript, bench(n) makes n crossings (n frames for ui_ops_*). */
static int run_js_loop(void *state, uint64_t n, uint64_t *ops)
{
	BB_STATE *st = (BB_STATE *)state;
	double r;

	if (run_bench(st, n, &r) < 0)
		return -1;
	bb_sink += r + st->ui.props[0][0];
	*ops = n * st->unit_ops;
	return 0;
}

/* run_call_add: the loop runs in C, one call of add (or the callback) per op. */
static int run_call_add(void *state, uint64_t n, uint64_t *ops)
{
	double s = 0;
	uint64_t i;

	for (i = 0; i < n; i++)
		if (call_add(state, s, (double)i, &s) < 0)
			return -1;
	bb_sink += s;
	*ops = n;
	return 0;
}

static int run_call_obj(void *state, uint64_t n, uint64_t *ops)
{
	bb_obj_out out;
	bb_obj_in in;
	uint64_t i;

	for (i = 0; i < n; i++) {
		in = bb_obj_sample((int32_t)(i & 0x7fffffff));
		if (call_obj(state, &in, &out) < 0)
			return -1;
		bb_sink += out.x + out.id;
	}
	*ops = n;
	return 0;
}

/* run_call_text: the host sends its text, one call per op, and reads the length of what comes back. */
static int run_call_text(void *state, uint64_t n, uint64_t *ops)
{
	bb_str in = text_of((BB_STATE *)state), out;
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (call_text(state, &in, &out) < 0)
			return -1;
		bb_sink += (double)out.len;
	}
	*ops = n;
	return 0;
}

static int run_call_record(void *state, uint64_t n, uint64_t *ops)
{
	bb_record in, out;
	uint64_t i;

	in.text = text_of((BB_STATE *)state);
	for (i = 0; i < n; i++) {
		in.id = (int32_t)(i & 0x7fffffff);
		if (call_record(state, &in, &out) < 0)
			return -1;
		bb_sink += (double)out.id + (double)out.text.len;
	}
	*ops = n;
	return 0;
}

/* run_call_fail: one call of the throwing function per op; the host reads the length of the error's text. */
static int run_call_fail(void *state, uint64_t n, uint64_t *ops)
{
	bb_str text;
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (call_fail(state, (int32_t)(i & 0x7fffffff), &text) < 0)
			return -1;
		bb_sink += (double)text.len;
	}
	*ops = n;
	return 0;
}

/* ==== Set-ups ==== */

static int setup_js_loop(const bb_case *c, void **state)
{
	return case_load(c, state, "bench");
}

/* setup_ui also checks that three frames leave the node table as the script's mutations should. */
static int setup_ui(const bb_case *c, void **state)
{
	BB_STATE *st;
	uint64_t ops;

	if (case_load(c, state, "bench") < 0)
		return -1;
	st = (BB_STATE *)*state;
	if (st->unit_ops != BB_UI_FRAME) {
		bb_error("cases.def gives %s %d ops per unit, its script makes %d", c->name, (int)st->unit_ops, BB_UI_FRAME);
		return -1;
	}
	if (run_js_loop(st, 3, &ops) < 0 || bb_ui_check(&st->ui, 3) < 0)
		return -1;
	memset(&st->ui, 0, sizeof st->ui);
	return 0;
}

static int setup_h2s_scalar(const bb_case *c, void **state)
{
	return case_load(c, state, "add") < 0 ? -1 : bb_check_add(*state, call_add);
}

static int setup_h2s_object(const bb_case *c, void **state)
{
	return case_load(c, state, "obj") < 0 ? -1 : bb_check_obj(*state, call_obj);
}

static int setup_h2s_string(const bb_case *c, void **state)
{
	return case_load(c, state, "text") < 0 ? -1 : bb_check_text(*state, text_of((BB_STATE *)*state), call_text);
}

static int setup_h2s_record(const bb_case *c, void **state)
{
	if (case_load(c, state, "record") < 0)
		return -1;
	return bb_check_record(*state, text_of((BB_STATE *)*state), call_record);
}

static int setup_script_error(const bb_case *c, void **state)
{
	return case_load(c, state, "fail") < 0 ? -1 : bb_check_script_error(*state, call_fail);
}

/* setup_callback: the script hands its function to host_register, which the program keeps. */
static int setup_callback(const bb_case *c, void **state)
{
	if (case_load(c, state, NULL) < 0)
		return -1;
	if (!callback_registered((BB_STATE *)*state)) {
		bb_error("the script registered no callback");
		return -1;
	}
	return bb_check_add(*state, call_add);
}

/* ==== The table ==== */

const bb_case bb_cases[] = {
#define BB_CASE(name, crossing, unit_ops, bytes, setup, run, script, op) {#name, setup, run, teardown},
#include "cases.def"
#undef BB_CASE
};
const int bb_ncases = sizeof bb_cases / sizeof bb_cases[0];

#undef BB_CASE_TYPED_ARRAYS

#endif
