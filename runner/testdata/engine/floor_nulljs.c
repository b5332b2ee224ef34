/* floor_nulljs.c: the floor of "nulljs", an engine that exists only in runner's TestAnEngineIsItsEntryAndItsFloor.
 * It links nothing but the harness (built with -DBB_ENGINE_NONE): its one case, ref_js_loop, is a loop in C that
 * makes no crossing, and it defines engine.h's hooks itself. */
#include <stdio.h>

#include "engine.h"
#include "harness_core.h"

void bb_engine_meta(void)
{
	printf("meta engine nulljs 0.1\n");
}

BB_ENGINE_UNCOUNTED

static int setup_loop(const bb_case *c, void **state)
{
	(void)c, (void)state;
	return 0;
}

static int run_loop(void *state, uint64_t n, uint64_t *ops)
{
	double s = 0;
	(void)state;
	for (uint64_t i = 0; i < n; i++)
		s += (double)i;
	bb_sink = s;
	*ops = n;
	return 0;
}

static void teardown_loop(void *state)
{
	(void)state;
}

const bb_case bb_cases[] = {{"ref_js_loop", setup_loop, run_loop, teardown_loop}};
const int bb_ncases = 1;
const char *const bb_program = "floor";
const char *const bb_codec = NULL;
