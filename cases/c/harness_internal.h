/* harness_internal.h: what the harness's own files share. Bridges include harness.h (or harness_core.h) only.
 *
 * The harness is one C file per job, all compiled as one through harness.c:
 *   harness_main.c     main(): the commands list, run and loop, their flags, the header and the error records
 *   harness_measure.c  one case's run: set-up, warm-up, calibration, samples, the ref case beside them
 *   harness_timing.c   the clock, the timer's overhead and the slowdown hook's busy work
 *   harness_memory.c   allocation counting, the memory pass and the rss record
 *   harness_host.c     the host-side work every program shares
 *   harness_scripts.c  the JavaScript of every case
 *   itimer.c           the sampling profiler of `loop --itimer`
 *   engine_quickjs.c   the QuickJS adapter (engine.h) and helpers (harness.h) */
#ifndef BB_HARNESS_INTERNAL_H
#define BB_HARNESS_INTERNAL_H

#include "engine.h"
#include "harness_core.h"

#include <time.h>

#define HARNESS_MAX_UNITS UINT64_C(1000000000) /* Google Benchmark's cap on iterations */
#define HARNESS_ERROR_MAX 1024                 /* bytes of one error message, its NUL included */

/* harness_now_ns is bb_now_ns, inline so that a timed region holds no call besides the clock read. */
static inline uint64_t harness_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	/* time_t is 32 bits on some ARM targets: widen before multiplying. */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The flags of `run` (docs/protocol.md). */
typedef struct harness_options {
	uint64_t min_time_ns;
	uint64_t samples;
	uint64_t warmup_ns;
	int warmup_set;
	uint64_t units;          /* --ops: loop units per sample, fixed (no calibration); 0 to calibrate */
	const char *ref;         /* --ref: the case sampled beside every sample of the others; NULL for none */
	double slowdown;         /* --slowdown: busy work per crossing, as a share of the case's own cost */
	uint64_t slowdown_steps; /* --slowdown-steps: a fixed amount of it, for instruction counts */
} harness_options;

/* ---- Error records (harness.c) ---- */

/* harness_clear_error forgets the recorded message before a case starts. */
void harness_clear_error(void);
/* harness_report_error prints one `error CASE MESSAGE` record with the message bb_error recorded. */
void harness_report_error(const char *case_name);

/* ---- One case's run (harness_measure.c) ---- */

/* harness_find_case returns the program's case of that name, or NULL. */
const bb_case *harness_find_case(const char *name);
/* harness_setup_case runs a case's setup: 0, or -1 after bb_error with what it made torn down and nothing printed. */
int harness_setup_case(const bb_case *c, void **state);
/* harness_timed_run runs n units and stores their wall time and op count; the case's run's result. */
int harness_timed_run(const bb_case *c, void *state, uint64_t n, uint64_t *ns, uint64_t *ops);
/* harness_next_units grows n toward a run of target_ns, as Google Benchmark does. */
uint64_t harness_next_units(uint64_t n, uint64_t ns, uint64_t target_ns);
/* harness_run_case prints one case's records from begin to end: samples, then the memory pass, or its error. */
void harness_run_case(const char *name, const harness_options *o);
/* harness_beside_setup readies the --ref case once per process; harness_beside_teardown frees it. */
void harness_beside_setup(const harness_options *o);
void harness_beside_teardown(void);

/* ---- Timing and the slowdown hook (harness_timing.c) ---- */

/* harness_timer_overhead returns the median cost of one back-to-back clock read pair. */
uint64_t harness_timer_overhead(void);
/* harness_slowdown_calibrate sets bb_slowdown_q8 so that one crossing's busy work costs target_ns on this machine,
 * and returns what it measured it to cost. */
double harness_slowdown_calibrate(double target_ns);

/* ---- Allocation counting (harness_memory.c) ---- */

/* harness_memory_pass sets case c up again, counts what a fixed number of its loop units allocate and prints one
 * memory record. 0, or -1 after bb_error. */
int harness_memory_pass(const bb_case *c);
/* harness_print_rss prints the process's peak resident set size as one `rss BYTES` record. */
void harness_print_rss(void);

/* ---- The cases' JavaScript (harness_scripts.c) ---- */

typedef struct harness_script {
	const char *name; /* the case's */
	const char *src;
	int32_t bytes; /* the case's bytes: the script's global N */
} harness_script;

/* harness_script_find returns the case's script, or NULL. */
const harness_script *harness_script_find(const char *case_name);
/* harness_prelude is evaluated before every case's script (it defines expect). */
extern const char *const harness_prelude;

#endif
