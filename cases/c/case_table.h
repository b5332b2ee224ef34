/* case_table.h: the timed loops and the case table that the floor and the reference bridge share, so that the two
 * programs differ only in how a value crosses. Each program includes it once, after defining BB_STATE (its state
 * type, with ctx, fn, ui and unit_ops) and the static functions it names: call_add, call_obj, the setup_* functions
 * and teardown. A header rather than a shared .c file keeps those calls direct in the timed loops, with no function
 * pointer between the loop and the crossing. */
#ifndef BB_CASE_TABLE_H
#define BB_CASE_TABLE_H

/* run_js_loop: the loop runs in JavaScript, bench(n) makes n crossings (n frames for ui_ops_*). */
static int run_js_loop(void *state, uint64_t n, uint64_t *ops)
{
	BB_STATE *st = state;
	double r;

	if (bb_js_run_bench(st->ctx, st->fn, n, &r) < 0)
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

const bb_case bb_cases[] = {
	{"ref_js_loop", setup_js_loop, run_js_loop, teardown},
	{"script_to_host_scalar", setup_js_loop, run_js_loop, teardown},
	{"script_to_host_string_16", setup_js_loop, run_js_loop, teardown},
	{"script_to_host_string_1k", setup_js_loop, run_js_loop, teardown},
	{"script_to_host_string_64k", setup_js_loop, run_js_loop, teardown},
	{"script_to_host_object", setup_js_loop, run_js_loop, teardown},
	{"script_to_host_array", setup_js_loop, run_js_loop, teardown},
	{"host_to_script_scalar", setup_h2s_scalar, run_call_add, teardown},
	{"host_to_script_object", setup_h2s_object, run_call_obj, teardown},
	{"callback", setup_callback, run_call_add, teardown},
	{"error_host_to_script", setup_js_loop, run_js_loop, teardown},
	{"ui_ops_calls", setup_ui, run_js_loop, teardown},
	{"ui_ops_buffer", setup_ui, run_js_loop, teardown},
	{"bytes_64k", setup_js_loop, run_js_loop, teardown},
};
const int bb_ncases = sizeof bb_cases / sizeof bb_cases[0];

#endif
