/* case_table.h: the set-ups, the timed loops and the case table that the floor and the reference bridge share, so
 * that the two programs differ only in how a value crosses. The table is cases.def's list.
 *
 * Each program includes it once, after defining BB_STATE (its state type, with ctx, fn, ui, unit_ops, text and
 * text_len) and the static functions it names:
 *   new_state(state)            a context with the program's host functions; *state set; NULL after bb_error()
 *   callback_registered(st)     whether the script has handed a function to host_register
 *   call_add, call_obj, call_text, call_record, call_fail
 *                               the host -> script calls (harness.h: bb_check_add, bb_check_obj, bb_check_text,
 *                               bb_check_record, bb_check_script_error)
 *   teardown(state)             frees the state, st->text included
 * A header rather than a shared .c file keeps those calls direct in the timed loops, with no function pointer
 * between the loop and the crossing. The casts from void * let C++ programs include it too (docs/bridge.md). */
#ifndef BB_CASE_TABLE_H
#define BB_CASE_TABLE_H

#include <stdlib.h>

/* What the table says of each case besides its functions, in bb_cases' order. */
static const struct {
	uint64_t unit_ops;
	size_t bytes;
} case_facts[] = {
#define BB_CASE(name, crossing, unit_ops, bytes, setup, run, script, op) {unit_ops, bytes},
#include "cases.def"
#undef BB_CASE
};

/* ==== Set-ups ==== */

/* load makes the state, loads the case's script (keeping fn_name's function in st->fn) and, for a case with bytes,
 * the host's text of that length. */
static int load(const bb_case *c, void **state, const char *fn_name)
{
	BB_STATE *st = new_state(state);
	size_t bytes;

	if (!st)
		return -1;
	st->unit_ops = case_facts[c - bb_cases].unit_ops;
	bytes = case_facts[c - bb_cases].bytes;
	if (bytes > 0) {
		st->text = bb_text_new(bytes);
		st->text_len = bytes;
		if (!st->text) {
			bb_error("out of memory");
			return -1;
		}
	}
	return bb_js_load(st->ctx, c->name, fn_name, fn_name ? &st->fn : NULL);
}

static int setup_js_loop(const bb_case *c, void **state)
{
	return load(c, state, "bench");
}

/* setup_ui also checks that three frames leave the node table as the script's mutations should. */
static int setup_ui(const bb_case *c, void **state)
{
	BB_STATE *st;
	double r;

	if (load(c, state, "bench") < 0)
		return -1;
	st = (BB_STATE *)*state;
	if (st->unit_ops != BB_UI_FRAME) {
		bb_error("cases.def gives %s %d ops per unit, its script makes %d", c->name, (int)st->unit_ops, BB_UI_FRAME);
		return -1;
	}
	if (bb_js_run_bench(st->ctx, st->fn, 3, &r) < 0 || bb_ui_check(&st->ui, 3) < 0)
		return -1;
	memset(&st->ui, 0, sizeof st->ui);
	return 0;
}

static int setup_h2s_scalar(const bb_case *c, void **state)
{
	return load(c, state, "add") < 0 ? -1 : bb_check_add(*state, call_add);
}

static int setup_h2s_object(const bb_case *c, void **state)
{
	return load(c, state, "obj") < 0 ? -1 : bb_check_obj(*state, call_obj);
}

/* text_of is the host's text of a case with bytes. */
static bb_str text_of(const BB_STATE *st)
{
	bb_str t;

	t.p = st->text;
	t.len = st->text_len;
	return t;
}

static int setup_h2s_string(const bb_case *c, void **state)
{
	return load(c, state, "text") < 0 ? -1 : bb_check_text(*state, text_of((BB_STATE *)*state), call_text);
}

static int setup_h2s_record(const bb_case *c, void **state)
{
	return load(c, state, "record") < 0 ? -1 : bb_check_record(*state, text_of((BB_STATE *)*state), call_record);
}

static int setup_script_error(const bb_case *c, void **state)
{
	return load(c, state, "fail") < 0 ? -1 : bb_check_script_error(*state, call_fail);
}

/* setup_callback: the script hands its function to host_register, which the program keeps. */
static int setup_callback(const bb_case *c, void **state)
{
	if (load(c, state, NULL) < 0)
		return -1;
	if (!callback_registered((BB_STATE *)*state)) {
		bb_error("the script registered no callback");
		return -1;
	}
	return bb_check_add(*state, call_add);
}

/* ==== Timed loops ==== */

/* run_js_loop: the loop runs in JavaScript, bench(n) makes n crossings (n frames for ui_ops_*). */
static int run_js_loop(void *state, uint64_t n, uint64_t *ops)
{
	BB_STATE *st = (BB_STATE *)state;
	double r;

	if (bb_js_run_bench(st->ctx, st->fn, n, &r) < 0)
		return -1;
	bb_sink += r + st->ui.props[0][0];
	*ops = n * st->unit_ops;
	return 0;
}

#define BB_LOOPS_ALL 1
#include "case_loops.h"

/* ==== The table ==== */

const bb_case bb_cases[] = {
#define BB_CASE(name, crossing, unit_ops, bytes, setup, run, script, op) {#name, setup, run, teardown},
#include "cases.def"
#undef BB_CASE
};
const int bb_ncases = sizeof bb_cases / sizeof bb_cases[0];

#endif
