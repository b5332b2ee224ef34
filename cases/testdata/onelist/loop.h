/* onelist_add_twice's set-up and timed loop: two calls of add per loop unit (cases.def's unit_ops). */
static int setup_add_twice(const bb_case *c, void **state)
{
	return case_load(c, state, "add") < 0 ? -1 : bb_check_add(*state, call_add);
}

static int run_add_twice(void *state, uint64_t n, uint64_t *ops)
{
	double s = 0;
	uint64_t i;

	for (i = 0; i < n; i++)
		if (call_add(state, s, (double)i, &s) < 0 || call_add(state, s, 1, &s) < 0)
			return -1;
	bb_sink += s;
	*ops = n * ((BB_STATE *)state)->unit_ops;
	return 0;
}
