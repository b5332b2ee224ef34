/* case_loops.h: the timed loops of the host -> script cases, the same in every program over any engine: each calls
 * the program's call_* (harness_core.h's bb_check_* describe them) directly, so that no function pointer sits between
 * the loop and the crossing. case_table.h includes it for the QuickJS programs, with every loop (BB_LOOPS_ALL); a
 * program over another engine defines BB_STATE (with text and text_len), text_of and the calls it has, then the
 * BB_LOOP_* of the loops it uses (BB_LOOP_ADD, BB_LOOP_OBJ, BB_LOOP_TEXT, BB_LOOP_RECORD, BB_LOOP_FAIL), and
 * includes it. */
#ifndef BB_CASE_LOOPS_H
#define BB_CASE_LOOPS_H

#if defined(BB_LOOPS_ALL) || defined(BB_LOOP_ADD)
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
#endif

#if defined(BB_LOOPS_ALL) || defined(BB_LOOP_OBJ)
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
#endif

#if defined(BB_LOOPS_ALL) || defined(BB_LOOP_TEXT)
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
#endif

#if defined(BB_LOOPS_ALL) || defined(BB_LOOP_RECORD)
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
#endif

#if defined(BB_LOOPS_ALL) || defined(BB_LOOP_FAIL)
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
#endif

#endif
