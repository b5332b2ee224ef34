/* harness_timing.c: the clock, the timer's overhead and the busy work of the slowdown hook (bb_crossing in
 * harness.h), calibrated per crossing on the machine it runs on. */
#ifdef BB_HARNESS_UNITY /* compiled through harness.c, which says why */
#include "harness_internal.h"

#include <stdlib.h>

volatile double bb_sink;

uint64_t bb_now_ns(void)
{
	return harness_now_ns();
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

uint64_t harness_timer_overhead(void)
{
	enum { PAIRS = 101 };
	uint64_t d[PAIRS];
	int i;

	for (i = 0; i < PAIRS; i++) {
		uint64_t t0 = harness_now_ns();
		uint64_t t1 = harness_now_ns();
		d[i] = t1 - t0;
	}
	qsort(d, PAIRS, sizeof d[0], cmp_u64);
	return d[PAIRS / 2];
}

/* ==== The slowdown hook ==== */

uint64_t bb_crossings;
uint64_t bb_slowdown_q8;
uint64_t bb_extra_alloc;
static uint64_t slowdown_acc;                    /* the fraction of a step carried to the next crossing, in 1/256 */
static uint64_t spin_chain = 88172645463325252u; /* one xorshift chain through every call: no two calls overlap */

/* fence keeps the instructions after it from starting before those before it are done: without it an out-of-order
 * CPU runs part of a long chain beside the engine's own work, and a crossing gains less from it than a tight loop of
 * hook calls measures (the json bridge's 2% gained 1%). In a crossing the fence costs a few ns of its own, more than
 * in the tight loop, so only chains of FENCE_STEPS or more are fenced: a short chain, as in a short crossing, gains
 * more from the fence than it hides (the fast codec's 10% gained 22% with a fence at every chain). docs/method.md. */
enum { FENCE_STEPS = 16 };
static inline void fence(void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__SSE2__))
	__asm__ volatile("lfence" ::: "memory");
#elif defined(__GNUC__) && (defined(__aarch64__) || (defined(__ARM_ARCH) && __ARM_ARCH >= 7))
	__asm__ volatile("isb" ::: "memory"); /* ARMv7 and later; the older cores run in order */
#endif
}

/* spin runs steps steps of one dependent xorshift chain. The chain's state carries from call to call, so that the
 * CPU cannot overlap one call's work with the next one's, in a tight loop as inside a crossing. */
static void spin(uint64_t steps)
{
	uint64_t a = spin_chain, i;

	for (i = 0; i < steps; i++) {
		a ^= a << 13, a ^= a >> 7, a ^= a << 17;
#if defined(__GNUC__)
		__asm__("" : "+r"(a));
#endif
	}
	spin_chain = a;
	if (steps >= FENCE_STEPS)
		fence();
}

void bb_slowdown(void)
{
	static void *volatile extra; /* volatile: the compiler may not drop the pair */

	if (bb_extra_alloc) {
		extra = bb_malloc(16);
		bb_free(extra);
	}
	slowdown_acc += bb_slowdown_q8;
	spin(slowdown_acc >> 8);
	slowdown_acc &= 255;
}

/* crossing_cost returns what one bb_crossing() costs in ns at the current bb_slowdown_q8: the least of 5 timed loops
 * of at least 1 ms each (whatever else runs on the machine only adds time). */
static double crossing_cost(void)
{
	uint64_t calls = 1, i, t0, ns;
	double best = 0, d;
	int r;

	for (;;) {
		t0 = harness_now_ns();
		for (i = 0; i < calls; i++)
			bb_crossing();
		ns = harness_now_ns() - t0;
		if (ns >= 1000000u || calls >= (UINT64_C(1) << 40))
			break;
		calls *= 4;
	}
	for (r = 0; r < 5; r++) {
		t0 = harness_now_ns();
		for (i = 0; i < calls; i++)
			bb_crossing();
		d = (double)(harness_now_ns() - t0) / (double)calls;
		if (r == 0 || d < best)
			best = d;
	}
	return best;
}

/* The cost measured is that of bb_crossing() over its cost without the work: three rounds of scaling the steps by
 * the ratio still missing, then one measurement of the result. */
double harness_slowdown_calibrate(double target_ns)
{
	double idle, added = 0, q8;
	int round;

	bb_slowdown_q8 = 0;
	if (!(target_ns > 0))
		return 0;
	idle = crossing_cost();
	q8 = 256;
	for (round = 0; round < 3; round++) {
		bb_slowdown_q8 = (uint64_t)(q8 + 0.5) > 0 ? (uint64_t)(q8 + 0.5) : 1;
		added = crossing_cost() - idle;
		if (!(added > 0))
			added = 0.01;
		q8 = (double)bb_slowdown_q8 * target_ns / added;
		if (q8 > 256.0 * 1e7)
			q8 = 256.0 * 1e7;
	}
	bb_slowdown_q8 = (uint64_t)(q8 + 0.5) > 0 ? (uint64_t)(q8 + 0.5) : 1;
	added = crossing_cost() - idle;
	return added > 0 ? added : 0;
}

#endif /* BB_HARNESS_UNITY */
