/* case_table.h: the set-ups, the timed loops and the case table of the QuickJS programs (the floor, the reference
 * bridge, a bridge of a user's: docs/bridge.md): case_loops.h's, which every program shares, so that the programs
 * differ only in how a value crosses. The table is cases.def's list.
 *
 * Each program includes it once, after defining BB_STATE (its state type, with ctx, fn, ui, unit_ops, text and
 * text_len) and the static functions it names:
 *   new_state(state)            a context with the program's host functions; *state set; NULL after bb_error()
 *   callback_registered(st)     whether the script has handed a function to host_register
 *   call_add, call_obj, call_text, call_record, call_fail
 *                               the host -> script calls (harness.h: bb_check_add, bb_check_obj, bb_check_text,
 *                               bb_check_record, bb_check_script_error)
 *   teardown(state)             frees the state, st->text included
 * It writes what case_loops.h asks of a program besides these (load, run_bench) with QuickJS's helpers (harness.h).
 * The casts from void * let C++ programs include it too (docs/bridge.md). */
#ifndef BB_CASE_TABLE_H
#define BB_CASE_TABLE_H

static int load(const bb_case *c, void **state, const char *fn_name);
static int run_bench(BB_STATE *st, uint64_t n, double *result);

#include "case_loops.h"

/* load makes the state, loads the case's script (keeping fn_name's function in st->fn) and, for a case with bytes,
 * the host's text of that length. */
static int load(const bb_case *c, void **state, const char *fn_name)
{
	BB_STATE *st = new_state(state);
	size_t bytes;

	if (!st)
		return -1;
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

/* run_bench calls the script's bench(n). */
static int run_bench(BB_STATE *st, uint64_t n, double *result)
{
	return bb_js_run_bench(st->ctx, st->fn, n, result);
}

#endif
