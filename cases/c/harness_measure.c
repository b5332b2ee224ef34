/* harness_measure.c: one case's run in `run` (docs/protocol.md): set-up, warm-up, calibration, the slowdown it
 * asks for, the samples with the ref case's beside them, the memory pass and teardown. */
#ifdef BB_HARNESS_UNITY /* compiled through harness.c, which says why */
#include "harness_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* beside is the --ref case, set up once per process and calibrated once, so that its samples beside every case
 * are alike. */
static struct {
	const bb_case *c;
	void *state;
	uint64_t n;
} beside;

const bb_case *harness_find_case(const char *name)
{
	int i;

	for (i = 0; i < bb_ncases; i++)
		if (strcmp(bb_cases[i].name, name) == 0)
			return &bb_cases[i];
	return NULL;
}

int harness_timed_run(const bb_case *c, void *state, uint64_t n, uint64_t *ns, uint64_t *ops)
{
	uint64_t t0, t1;
	int rc;

	*ops = 0;
	t0 = harness_now_ns();
	rc = c->run(state, n, ops);
	t1 = harness_now_ns();
	*ns = t1 - t0;
	return rc;
}

/* Growth: by the ratio still missing to reach target_ns, times 1.4, at most 10x per step and at least by one. */
uint64_t harness_next_units(uint64_t n, uint64_t ns, uint64_t target_ns)
{
	double mult = 10.0, next;

	if (ns > 0) {
		mult = (double)target_ns * 1.4 / (double)ns;
		if (mult > 10.0)
			mult = 10.0;
	}
	next = (double)n * mult;
	if (next < (double)n + 1.0)
		next = (double)n + 1.0;
	if (next > (double)HARNESS_MAX_UNITS)
		next = (double)HARNESS_MAX_UNITS;
	return (uint64_t)next;
}

int harness_setup_case(const bb_case *c, void **state)
{
	*state = NULL;
	harness_clear_error();
	if (c->setup(c, state) == 0)
		return 0;
	if (*state)
		c->teardown(*state);
	*state = NULL;
	return -1;
}

/* measure_fixed takes samples of exactly o->units loop units, after a warm-up of one such run unless --warmup-ns
 * is 0: nothing depends on the clock, so a run repeats exactly (instruction counts under callgrind). */
static int measure_fixed(const bb_case *c, void *state, const harness_options *o)
{
	uint64_t ns = 0, ops = 0, i;

	if (o->warmup_ns > 0 && harness_timed_run(c, state, o->units, &ns, &ops) < 0)
		return -1;
	for (i = 0; i < o->samples; i++) {
		if (harness_timed_run(c, state, o->units, &ns, &ops) < 0)
			return -1;
		if (i == 0)
			printf("calibrated %s %" PRIu64 "\n", c->name, ops);
		printf("sample %s %" PRIu64 " %" PRIu64 "\n", c->name, ops, ns);
		fflush(stdout);
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* What the busy work adds to a case is measured in SLOWDOWN_PAIRS pairs of runs, one with the work and one without,
 * side by side so that a pair sees one state of the machine: their ratios' median, and the 4th and 13th of the 16
 * as its interval (98% for the median), inside which the share asked for counts as what the case gained. */
enum { SLOWDOWN_PAIRS = 16, SLOWDOWN_LOW = 3, SLOWDOWN_ROUNDS = 3 };

/* added_share measures what the busy work as set adds to one op of c, in runs of n units, in alternating order:
 * the median share and its interval. */
static int added_share(const bb_case *c, void *state, uint64_t n, double *share, double *low, double *high)
{
	uint64_t q8 = bb_slowdown_q8, ns[2], ops;
	double ratio[SLOWDOWN_PAIRS];
	int i, j;

	for (i = 0; i < SLOWDOWN_PAIRS; i++) {
		for (j = 0; j < 2; j++) {
			int with = (i + j) % 2; /* without first in even pairs, with first in odd ones */

			bb_slowdown_q8 = with ? q8 : 0;
			if (harness_timed_run(c, state, n, &ns[with], &ops) < 0) {
				bb_slowdown_q8 = q8;
				return -1;
			}
		}
		ratio[i] = ns[0] ? (double)ns[1] / (double)ns[0] : 1;
	}
	bb_slowdown_q8 = q8;
	qsort(ratio, SLOWDOWN_PAIRS, sizeof ratio[0], cmp_double);
	*share = (ratio[SLOWDOWN_PAIRS / 2 - 1] + ratio[SLOWDOWN_PAIRS / 2]) / 2 - 1;
	*low = ratio[SLOWDOWN_LOW] - 1;
	*high = ratio[SLOWDOWN_PAIRS - 1 - SLOWDOWN_LOW] - 1;
	return 0;
}

/* apply_slowdown sets the busy work of case c's crossings to share of the case's own cost per op and prints what it
 * applied as one `slowdown CASE ADDED_NS BASE_NS` record (per op). BASE is the least of 3 runs of n units without the
 * work, which also count the crossings per op. The work is set from its cost in a tight loop of hook calls, then
 * checked against the case itself: where the case gained significantly more or less than share, which happens when
 * the CPU runs much of the work beside the engine's own (the fast codec's 50% gained 21%), the work is scaled by
 * what is missing, at most twice a round, and measured again. ADDED is the tight loop's cost when the case agreed
 * with it and otherwise what the case last gained (the tight loop's cost of the work as set, where the machine's
 * noise hid the gain). A case that makes no crossing gets none. Returns -1 when the case
 * failed. */
static int apply_slowdown(const bb_case *c, void *state, uint64_t n, double share)
{
	double base = 0, cost, per_op, added = 0, got, low, high, scale, q8;
	uint64_t ns, ops = 0, crossings = bb_crossings, total_ops = 0, m = n / 8 ? n / 8 : 1;
	int i, agrees;

	for (i = 0; i < 3; i++) {
		if (harness_timed_run(c, state, n, &ns, &ops) < 0)
			return -1;
		cost = (double)ns / (double)ops;
		if (i == 0 || cost < base)
			base = cost;
		total_ops += ops;
	}
	per_op = (double)(bb_crossings - crossings) / (double)total_ops;
	if (per_op > 0) {
		double tight = harness_slowdown_calibrate(share * base / per_op) * per_op;
		uint64_t tight_q8 = bb_slowdown_q8;

		added = tight;
		for (i = 0; i < SLOWDOWN_ROUNDS; i++) {
			if (added_share(c, state, m, &got, &low, &high) < 0)
				return -1;
			agrees = low <= share && share <= high;
			/* a gain the machine's noise hid still carries the work: then the tight loop's cost of it */
			if (i > 0 || !agrees)
				added = got > 0 ? got * base : tight_q8 ? tight * (double)bb_slowdown_q8 / (double)tight_q8 : 0;
			if (agrees || i == SLOWDOWN_ROUNDS - 1)
				break;
			scale = got > 0 ? share / got : 2;
			scale = scale > 2 ? 2 : scale < 0.5 ? 0.5 : scale;
			q8 = (double)bb_slowdown_q8 * scale + 0.5;
			bb_slowdown_q8 = q8 >= 1 ? (uint64_t)q8 : 1;
		}
	}
	printf("slowdown %s %.4f %.4f\n", c->name, added, base);
	fflush(stdout);
	return 0;
}

/* sample_beside takes one sample of the --ref case beside a sample of c and prints it as `ref C OPS NS`. */
static int sample_beside(const bb_case *c)
{
	uint64_t ns, ops;

	if (!beside.c || beside.c == c)
		return 0;
	if (harness_timed_run(beside.c, beside.state, beside.n, &ns, &ops) < 0) {
		bb_error("%s beside %s failed", beside.c->name, c->name);
		return -1;
	}
	printf("ref %s %" PRIu64 " %" PRIu64 "\n", c->name, ops, ns);
	return 0;
}

/* measure does warm-up, calibration and samples for one set-up case; -1 when the case failed. */
static int measure(const bb_case *c, void *state, const harness_options *o)
{
	uint64_t n = 1, ns = 0, ops = 0, spent = 0, i;

	if (o->units > 0)
		return measure_fixed(c, state, o);
	while (spent < o->warmup_ns) {
		if (harness_timed_run(c, state, n, &ns, &ops) < 0)
			return -1;
		spent += ns;
		if (spent < o->warmup_ns)
			n = harness_next_units(n, ns, o->warmup_ns - spent);
	}

	for (n = 1;; n = harness_next_units(n, ns, o->min_time_ns)) {
		if (harness_timed_run(c, state, n, &ns, &ops) < 0)
			return -1;
		if (ns >= o->min_time_ns || n >= HARNESS_MAX_UNITS)
			break;
	}
	if (o->slowdown > 0 && apply_slowdown(c, state, n, o->slowdown) < 0)
		return -1;
	printf("calibrated %s %" PRIu64 "\n", c->name, ops);
	fflush(stdout);

	for (i = 0; i < o->samples; i++) {
		if (sample_beside(c) < 0 || harness_timed_run(c, state, n, &ns, &ops) < 0)
			return -1;
		printf("sample %s %" PRIu64 " %" PRIu64 "\n", c->name, ops, ns);
		fflush(stdout);
	}
	return 0;
}

void harness_run_case(const char *name, const harness_options *o)
{
	const bb_case *c = harness_find_case(name);
	void *state;
	int rc;

	if (!c) {
		bb_error("unknown case");
		harness_report_error(name);
		return;
	}
	printf("begin %s\n", name);
	fflush(stdout);
	bb_slowdown_q8 = o->slowdown_steps * 256; /* --slowdown-steps: from set-up on, the same in every run */
	if (harness_setup_case(c, &state) < 0) {
		harness_report_error(name);
	} else {
		rc = measure(c, state, o);
		c->teardown(state);
		bb_slowdown_q8 = 0; /* the memory pass counts; its time does not matter */
		if (rc == 0 && o->units == 0)
			rc = harness_memory_pass(c); /* --ops counts instructions: nothing may run but the samples */
		if (rc < 0)
			harness_report_error(name);
	}
	bb_slowdown_q8 = 0;
	printf("end %s\n", name);
	fflush(stdout);
}

/* The --ref case is warmed up and calibrated to half the min time: it only has to see how fast the machine is at
 * that moment. On failure the ref case's own run reports the error; the others run without ref samples. */
void harness_beside_setup(const harness_options *o)
{
	const bb_case *c = harness_find_case(o->ref);
	uint64_t n = 1, ns = 0, ops = 0, target = o->min_time_ns / 2;

	if (!c || harness_setup_case(c, &beside.state) < 0)
		return;
	for (;; n = harness_next_units(n, ns, target)) {
		if (harness_timed_run(c, beside.state, n, &ns, &ops) < 0) {
			c->teardown(beside.state);
			return;
		}
		if (ns >= target || n >= HARNESS_MAX_UNITS)
			break;
	}
	beside.c = c;
	beside.n = n;
}

void harness_beside_teardown(void)
{
	if (beside.c)
		beside.c->teardown(beside.state);
}

#endif /* BB_HARNESS_UNITY */
