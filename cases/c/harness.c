/* harness.c: main() of every bench program, speaking docs/protocol.md, plus what the floor and the reference
 * bridge share (case scripts, host-side work, QuickJS helpers) so that they differ only in the crossing. */
#include "harness.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/resource.h>

#include "itimer.c" /* the profiler of `loop --itimer`, in the harness so that every program that links it has it */

/* ==== Timing ==== */

uint64_t bb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	/* time_t is 32 bits on some ARM targets: widen before multiplying. */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* timer_overhead returns the median cost of one back-to-back clock read pair. */
static uint64_t timer_overhead(void)
{
	enum { PAIRS = 101 };
	uint64_t d[PAIRS];
	int i;

	for (i = 0; i < PAIRS; i++) {
		uint64_t t0 = bb_now_ns();
		uint64_t t1 = bb_now_ns();
		d[i] = t1 - t0;
	}
	qsort(d, PAIRS, sizeof d[0], cmp_u64);
	return d[PAIRS / 2];
}

volatile double bb_sink;

/* ==== The slowdown hook ==== */

uint64_t bb_crossings;
uint64_t bb_slowdown_q8;
static uint64_t slowdown_acc;       /* the fraction of a step carried to the next crossing, in 1/256 */
static uint64_t spin_chain = 88172645463325252u; /* one xorshift chain through every call: no two calls overlap */

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
}

uint64_t bb_extra_alloc;

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
		t0 = bb_now_ns();
		for (i = 0; i < calls; i++)
			bb_crossing();
		ns = bb_now_ns() - t0;
		if (ns >= 1000000u || calls >= (UINT64_C(1) << 40))
			break;
		calls *= 4;
	}
	for (r = 0; r < 5; r++) {
		t0 = bb_now_ns();
		for (i = 0; i < calls; i++)
			bb_crossing();
		d = (double)(bb_now_ns() - t0) / (double)calls;
		if (r == 0 || d < best)
			best = d;
	}
	return best;
}

/* slowdown_calibrate sets bb_slowdown_q8 so that one crossing's busy work costs target_ns on this machine, and
 * returns what it measured it to cost (the cost of bb_crossing() over its cost without the work). */
static double slowdown_calibrate(double target_ns)
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

/* ==== Allocation counting: the memory pass ====
 *
 * Counting is off except while the memory pass runs its counted units, so that it never sits inside a timed sample;
 * off, an allocation costs one predictable branch more than malloc. */

typedef struct alloc_count {
	uint64_t allocs, bytes;
} alloc_count;

static int counting;
static alloc_count engine_count, host_count;

/* count adds one allocation of size bytes (as asked for, not as the allocator rounds it) while counting. A realloc
 * counts as one allocation of its new size: in the worst case it copies into one. */
static void count(alloc_count *c, size_t size)
{
	if (counting) {
		c->allocs++;
		c->bytes += size;
	}
}

void *bb_malloc(size_t size)
{
	void *p = malloc(size);

	if (p)
		count(&host_count, size);
	return p;
}

void *bb_calloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (p)
		count(&host_count, n * size);
	return p;
}

void *bb_realloc(void *p, size_t size)
{
	void *q = realloc(p, size);

	if (q && size)
		count(&host_count, size);
	return q;
}

void bb_free(void *p)
{
	free(p);
}

/* The engine's allocator in the memory pass: QuickJS's default one (js_def_malloc and its kin in quickjs.c), which
 * keeps the runtime's malloc_count and malloc_size (its GC threshold and JS_ComputeMemoryUsage read them), plus the
 * count, with one change: it tells QuickJS the size it asked for, kept in a header, as a block's usable size, where
 * the default tells it malloc_usable_size. That depends on where glibc placed the block (a realloc that grows in
 * place can keep a few bytes more), and QuickJS grows string buffers into that slack and runs its GC by it: with it,
 * two processes of one binary counted differently. Without it the counts depend on the requests alone and repeat
 * exactly; now and then the default's slack saves a realloc that this one counts. Timed samples run on the default
 * allocator (JS_NewRuntime), untouched. ENGINE_OVERHEAD is quickjs.c's MALLOC_OVERHEAD. */
#define ENGINE_OVERHEAD 8

typedef union engine_header {
	size_t size;
	max_align_t align; /* keeps the block after it aligned as malloc's */
} engine_header;

static size_t engine_usable_size(const void *p)
{
	return ((const engine_header *)p - 1)->size;
}

static void *engine_malloc(JSMallocState *s, size_t size)
{
	engine_header *h;

	if (s->malloc_size + size > s->malloc_limit)
		return NULL;
	h = malloc(sizeof *h + size);
	if (!h)
		return NULL;
	h->size = size;
	s->malloc_count++;
	s->malloc_size += size + ENGINE_OVERHEAD;
	count(&engine_count, size);
	return h + 1;
}

static void engine_free(JSMallocState *s, void *p)
{
	engine_header *h;

	if (!p)
		return;
	h = (engine_header *)p - 1;
	s->malloc_count--;
	s->malloc_size -= h->size + ENGINE_OVERHEAD;
	free(h);
}

static void *engine_realloc(JSMallocState *s, void *p, size_t size)
{
	engine_header *h;
	size_t old;

	if (!p)
		return size ? engine_malloc(s, size) : NULL;
	if (size == 0) {
		engine_free(s, p);
		return NULL;
	}
	h = (engine_header *)p - 1;
	old = h->size;
	if (s->malloc_size + size - old > s->malloc_limit)
		return NULL;
	h = realloc(h, sizeof *h + size);
	if (!h)
		return NULL;
	h->size = size;
	s->malloc_size += size - old;
	count(&engine_count, size);
	return h + 1;
}

static const JSMallocFunctions engine_mf = {engine_malloc, engine_free, engine_realloc, engine_usable_size};

/* counted_runtime is set while the memory pass sets its case up: bb_js_new then gives the runtime engine_mf. */
static int counted_runtime;

/* live_rt is the runtime bb_js_new made last and bb_js_free has not freed: the case's, whose heap the memory
 * record reports. */
static JSRuntime *live_rt;

/* ==== Errors ==== */

static char error_msg[1024];

void bb_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(error_msg, sizeof error_msg, fmt, ap);
	va_end(ap);
}

/* print_error prints one `error CASE MESSAGE` record; the message must stay on its line. */
static void print_error(const char *name, const char *msg)
{
	char line[sizeof error_msg];
	size_t i;

	snprintf(line, sizeof line, "%s", msg[0] ? msg : "failed");
	for (i = 0; line[i]; i++)
		if (line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	printf("error %s %s\n", name, line);
	fflush(stdout);
}

/* ==== The protocol ==== */

#define MAX_UNITS UINT64_C(1000000000) /* Google Benchmark's cap on iterations */

typedef struct options {
	uint64_t min_time_ns;
	uint64_t samples;
	uint64_t warmup_ns;
	int warmup_set;
	uint64_t units; /* --ops: loop units per sample, fixed (no calibration); 0 to calibrate */
	const char *ref; /* --ref: the case sampled beside every sample of the others (protocol 2); NULL for none */
	double slowdown; /* --slowdown: busy work per crossing, as a share of the case's own cost (protocol 2) */
	uint64_t slowdown_steps; /* --slowdown-steps: a fixed amount of it, for instruction counts (protocol 2) */
} options;

/* beside is the --ref case, set up once per process and calibrated once, so that its samples beside every case
 * are alike. */
static struct {
	const bb_case *c;
	void *state;
	uint64_t n;
} beside;

static const bb_case *find_case(const char *name)
{
	int i;

	for (i = 0; i < bb_ncases; i++)
		if (strcmp(bb_cases[i].name, name) == 0)
			return &bb_cases[i];
	return NULL;
}

/* timed_run runs n units and stores their wall time and op count. */
static int timed_run(const bb_case *c, void *state, uint64_t n, uint64_t *ns, uint64_t *ops)
{
	uint64_t t0, t1;
	int rc;

	*ops = 0;
	t0 = bb_now_ns();
	rc = c->run(state, n, ops);
	t1 = bb_now_ns();
	*ns = t1 - t0;
	return rc;
}

/* next_units grows n as Google Benchmark does: by the ratio still missing to reach target_ns, times 1.4, at most
 * 10x per step and at least by one. */
static uint64_t next_units(uint64_t n, uint64_t ns, uint64_t target_ns)
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
	if (next > (double)MAX_UNITS)
		next = (double)MAX_UNITS;
	return (uint64_t)next;
}

/* measure_fixed takes samples of exactly o->units loop units, after a warm-up of one such run unless --warmup-ns
 * is 0: nothing depends on the clock, so a run repeats exactly (instruction counts under callgrind). */
static int measure_fixed(const bb_case *c, void *state, const options *o)
{
	uint64_t ns = 0, ops = 0, i;

	if (o->warmup_ns > 0 && timed_run(c, state, o->units, &ns, &ops) < 0)
		return -1;
	for (i = 0; i < o->samples; i++) {
		if (timed_run(c, state, o->units, &ns, &ops) < 0)
			return -1;
		if (i == 0)
			printf("calibrated %s %" PRIu64 "\n", c->name, ops);
		printf("sample %s %" PRIu64 " %" PRIu64 "\n", c->name, ops, ns);
		fflush(stdout);
	}
	return 0;
}

/* apply_slowdown sets the busy work of case c's crossings to share of the case's own cost per op, measured as the
 * least of 3 runs of n units without it (as crossing_cost measures the work), and prints what it applied as one
 * `slowdown CASE ADDED_NS BASE_NS` record (per op). A case that makes no crossing gets none. Returns -1 when the case
 * failed. */
static int apply_slowdown(const bb_case *c, void *state, uint64_t n, double share)
{
	double base = 0, cost, per_op, added = 0;
	uint64_t ns, ops = 0, crossings = bb_crossings, total_ops = 0;
	int i;

	for (i = 0; i < 3; i++) {
		if (timed_run(c, state, n, &ns, &ops) < 0)
			return -1;
		cost = (double)ns / (double)ops;
		if (i == 0 || cost < base)
			base = cost;
		total_ops += ops;
	}
	per_op = (double)(bb_crossings - crossings) / (double)total_ops;
	if (per_op > 0)
		added = slowdown_calibrate(share * base / per_op) * per_op;
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
	if (timed_run(beside.c, beside.state, beside.n, &ns, &ops) < 0) {
		bb_error("%s beside %s failed", beside.c->name, c->name);
		return -1;
	}
	printf("ref %s %" PRIu64 " %" PRIu64 "\n", c->name, ops, ns);
	return 0;
}

/* measure does warm-up, calibration and samples for one set-up case; -1 when the case failed. */
static int measure(const bb_case *c, void *state, const options *o)
{
	uint64_t n = 1, ns = 0, ops = 0, spent = 0, i;

	if (o->units > 0)
		return measure_fixed(c, state, o);
	while (spent < o->warmup_ns) {
		if (timed_run(c, state, n, &ns, &ops) < 0)
			return -1;
		spent += ns;
		if (spent < o->warmup_ns)
			n = next_units(n, ns, o->warmup_ns - spent);
	}

	for (n = 1;; n = next_units(n, ns, o->min_time_ns)) {
		if (timed_run(c, state, n, &ns, &ops) < 0)
			return -1;
		if (ns >= o->min_time_ns || n >= MAX_UNITS)
			break;
	}
	if (o->slowdown > 0 && apply_slowdown(c, state, n, o->slowdown) < 0)
		return -1;
	printf("calibrated %s %" PRIu64 "\n", c->name, ops);
	fflush(stdout);

	for (i = 0; i < o->samples; i++) {
		if (sample_beside(c) < 0 || timed_run(c, state, n, &ns, &ops) < 0)
			return -1;
		printf("sample %s %" PRIu64 " %" PRIu64 "\n", c->name, ops, ns);
		fflush(stdout);
	}
	return 0;
}

/* setup_case runs a case's setup; on failure it has torn down what was made and printed nothing. */
static int setup_case(const bb_case *c, void **state)
{
	*state = NULL;
	error_msg[0] = '\0';
	if (c->setup(c, state) == 0)
		return 0;
	if (*state)
		c->teardown(*state);
	*state = NULL;
	return -1;
}

/* The memory pass: MEMORY_UNITS loop units counted after MEMORY_WARMUP_UNITS that are not, in a fresh set-up of the
 * case. Fixed numbers and a fresh set-up, not the timed state, so that what the pass counts depends on nothing the
 * clock decided (the calibrated op count, how far the heap grew): the same binary counts the same in every process.
 * Small numbers, since every process runs the pass: with 16 and 64, json's bytes_64k (20 ms a unit) made the pass
 * 43% of a process's time. */
#define MEMORY_WARMUP_UNITS 4
#define MEMORY_UNITS 16

/* memory_pass sets case c up again, counts what MEMORY_UNITS loop units of it allocate and prints one memory record
 * with the case's heap after them. Returns -1 after bb_error when the case failed. */
static int memory_pass(const bb_case *c)
{
	uint64_t ns, ops = 0;
	void *state;
	JSMemoryUsage u;
	int rc;

	live_rt = NULL;
	counted_runtime = 1;
	rc = setup_case(c, &state);
	counted_runtime = 0;
	if (rc < 0)
		return -1;
	rc = timed_run(c, state, MEMORY_WARMUP_UNITS, &ns, &ops);
	if (rc == 0) {
		memset(&engine_count, 0, sizeof engine_count);
		memset(&host_count, 0, sizeof host_count);
		counting = 1;
		rc = timed_run(c, state, MEMORY_UNITS, &ns, &ops);
		counting = 0;
	}
	if (rc == 0) {
		printf("memory %s ops=%" PRIu64 " engine_allocs=%" PRIu64 " engine_bytes=%" PRIu64 " host_allocs=%" PRIu64
		       " host_bytes=%" PRIu64,
		       c->name, ops, engine_count.allocs, engine_count.bytes, host_count.allocs, host_count.bytes);
		if (live_rt) {
			JS_ComputeMemoryUsage(live_rt, &u);
			printf(" heap_bytes=%" PRId64 " heap_allocs=%" PRId64, u.malloc_size, u.malloc_count);
		}
		printf("\n");
		fflush(stdout);
	}
	c->teardown(state);
	return rc;
}

/* print_rss prints the process's peak resident set size as one `rss BYTES` record. */
static void print_rss(void)
{
	struct rusage ru;
	uint64_t bytes;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return;
#if defined(__APPLE__)
	bytes = (uint64_t)ru.ru_maxrss; /* macOS reports bytes */
#else
	bytes = (uint64_t)ru.ru_maxrss * 1024u; /* Linux and Android report KiB */
#endif
	printf("rss %" PRIu64 "\n", bytes);
	fflush(stdout);
}

static void run_case(const char *name, const options *o)
{
	const bb_case *c = find_case(name);
	void *state;
	int rc;

	if (!c) {
		print_error(name, "unknown case");
		return;
	}
	printf("begin %s\n", name);
	fflush(stdout);
	bb_slowdown_q8 = o->slowdown_steps * 256; /* --slowdown-steps: from set-up on, the same in every run */
	if (setup_case(c, &state) < 0) {
		print_error(name, error_msg);
	} else {
		rc = measure(c, state, o);
		c->teardown(state);
		bb_slowdown_q8 = 0; /* the memory pass counts; its time does not matter */
		if (rc == 0 && o->units == 0)
			rc = memory_pass(c); /* --ops counts instructions: nothing may run but the samples */
		if (rc < 0)
			print_error(name, error_msg);
	}
	bb_slowdown_q8 = 0;
	printf("end %s\n", name);
	fflush(stdout);
}

/* setup_beside sets up, warms up and calibrates the --ref case once for the process, to half the min time: it only
 * has to see how fast the machine is at that moment. On failure the ref case's own run reports the error; the others
 * run without ref samples. */
static void setup_beside(const options *o)
{
	const bb_case *c = find_case(o->ref);
	uint64_t n = 1, ns = 0, ops = 0, target = o->min_time_ns / 2;

	if (!c || setup_case(c, &beside.state) < 0)
		return;
	for (;; n = next_units(n, ns, target)) {
		if (timed_run(c, beside.state, n, &ns, &ops) < 0) {
			c->teardown(beside.state);
			return;
		}
		if (ns >= target || n >= MAX_UNITS)
			break;
	}
	beside.c = c;
	beside.n = n;
}

static const char *compiler_version(void)
{
#if defined(__clang__)
	return __VERSION__; /* clang's own string names it ("Clang 16.0.6", "Apple LLVM ...") */
#elif defined(__GNUC__)
	return "gcc " __VERSION__;
#else
	return "unknown";
#endif
}

#if defined(BB_QUICKJS_VERSION)
#define QUICKJS_VERSION BB_QUICKJS_VERSION
#elif defined(CONFIG_VERSION)
#define QUICKJS_VERSION CONFIG_VERSION
#else
#define QUICKJS_VERSION "2025-04-26" /* the pinned source; quickjs.h has no version macro */
#endif

static void print_header(void)
{
	printf("bench-bridge-protocol 2\n");
	printf("meta program %s\n", bb_program);
	if (bb_codec)
		printf("meta codec %s\n", bb_codec);
	printf("meta quickjs %s\n", QUICKJS_VERSION);
	printf("meta compiler %s\n", compiler_version());
	fflush(stdout);
	printf("timer_overhead_ns %" PRIu64 "\n", timer_overhead());
	fflush(stdout);
}

static int usage(void)
{
	fprintf(stderr, "usage: %s list\n"
			"       %s run [--min-time-ns N] [--samples N] [--warmup-ns N] [--ops N] [--ref CASE]\n"
			"           [--slowdown SHARE | --slowdown-steps N] [CASE ...]\n"
			"       %s loop CASE SECONDS [--itimer FILE]\n",
		bb_program, bb_program, bb_program);
	return 2;
}

/* parse_u64 accepts decimal digits only (no sign, no spaces). */
static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/* parse_v2_flag reads protocol 2's --ref CASE and --slowdown SHARE at argv[*i]: 1 when it did, 0 when argv[*i] is
 * another flag, -1 after a message on stderr. */
static int parse_v2_flag(int argc, char **argv, int *i, options *o)
{
	const char *arg = argv[*i], *val;
	char *end;
	int is_ref = strcmp(arg, "--ref") == 0;

	if (!is_ref && strcmp(arg, "--slowdown") != 0)
		return 0;
	if (*i + 1 >= argc) {
		fprintf(stderr, "%s: %s needs a value\n", bb_program, arg);
		return -1;
	}
	val = argv[++*i];
	if (is_ref) {
		o->ref = val;
		return 1;
	}
	errno = 0;
	o->slowdown = strtod(val, &end);
	if (errno || *end || end == val || !(o->slowdown >= 0 && o->slowdown <= 10)) {
		fprintf(stderr, "%s: --slowdown: want a share between 0 and 10, like 0.10: %s\n", bb_program, val);
		return -1;
	}
	return 1;
}

/* parse_flag reads the --name N or --name=N flag at argv[*i]. Returns 0, or -1 after a message on stderr. */
static int parse_flag(int argc, char **argv, int *i, options *o)
{
	int v2 = parse_v2_flag(argc, argv, i, o);

	if (v2 != 0)
		return v2 < 0 ? -1 : 0;
	static const struct {
		const char *name;
		size_t off;
	} flags[] = {
		{"--min-time-ns", offsetof(options, min_time_ns)},
		{"--samples", offsetof(options, samples)},
		{"--warmup-ns", offsetof(options, warmup_ns)},
		{"--ops", offsetof(options, units)},
		{"--slowdown-steps", offsetof(options, slowdown_steps)},
	};
	const char *arg = argv[*i], *val;
	size_t k, len;

	for (k = 0; k < sizeof flags / sizeof flags[0]; k++) {
		len = strlen(flags[k].name);
		if (strncmp(arg, flags[k].name, len) == 0 && (arg[len] == '\0' || arg[len] == '='))
			break;
	}
	if (k == sizeof flags / sizeof flags[0]) {
		fprintf(stderr, "%s: unknown flag: %s\n", bb_program, arg);
		return -1;
	}
	if (arg[len] == '=') {
		val = arg + len + 1;
	} else if (*i + 1 < argc) {
		val = argv[++*i];
	} else {
		fprintf(stderr, "%s: %s needs a value\n", bb_program, arg);
		return -1;
	}
	if (parse_u64(val, (uint64_t *)(void *)((char *)o + flags[k].off)) < 0) {
		fprintf(stderr, "%s: %s: not a non-negative integer: %s\n", bb_program, flags[k].name, val);
		return -1;
	}
	if (flags[k].off == offsetof(options, warmup_ns))
		o->warmup_set = 1;
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	options o = {50000000u, 10, 0, 0, 0, NULL, 0, 0};
	char **names = argv; /* the case names, compacted in place: argv is ours */
	int i, nnames = 0;

	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "--", 2) != 0)
			names[nnames++] = argv[i];
		else if (parse_flag(argc, argv, &i, &o) < 0)
			return 2;
	}
	if (o.samples == 0) {
		fprintf(stderr, "%s: --samples must be at least 1\n", bb_program);
		return 2;
	}
	if (o.units > MAX_UNITS) {
		fprintf(stderr, "%s: --ops must be at most %" PRIu64 "\n", bb_program, MAX_UNITS);
		return 2;
	}
	if (!o.warmup_set)
		o.warmup_ns = o.min_time_ns;
	if (o.units > 0 && (o.ref || o.slowdown > 0)) {
		fprintf(stderr, "%s: --ref and --slowdown need calibrated runs, not --ops\n", bb_program);
		return 2;
	}
	if (o.slowdown > 0 && o.slowdown_steps > 0) {
		fprintf(stderr, "%s: --slowdown and --slowdown-steps exclude each other\n", bb_program);
		return 2;
	}

	bb_extra_alloc = getenv("BB_EXTRA_ALLOC") && strcmp(getenv("BB_EXTRA_ALLOC"), "1") == 0;
	print_header();
	if (o.ref)
		setup_beside(&o);
	for (i = 0; i < nnames; i++)
		run_case(names[i], &o);
	if (nnames == 0)
		for (i = 0; i < bb_ncases; i++)
			run_case(bb_cases[i].name, &o);
	if (beside.c)
		beside.c->teardown(beside.state);
	print_rss();
	return 0;
}

/* cmd_loop runs a case in chunks of about 10 ms until SECONDS have passed, for a profiler; --itimer FILE samples
 * the loop itself (itimer.h). */
static int cmd_loop(int argc, char **argv)
{
	const uint64_t chunk_ns = 10000000u;
	const bb_case *c;
	uint64_t n = 1, ns, ops, total_ops = 0, limit_ns, start, elapsed = 0;
	double secs;
	char *end;
	void *state;

	if (argc != 2 && !(argc == 4 && strcmp(argv[2], "--itimer") == 0))
		return usage();
	c = find_case(argv[0]);
	if (!c) {
		fprintf(stderr, "%s: unknown case: %s\n", bb_program, argv[0]);
		return 2;
	}
	errno = 0;
	secs = strtod(argv[1], &end);
	if (errno || *end || end == argv[1] || !(secs > 0) || secs > 1e6) {
		fprintf(stderr, "%s: SECONDS must be a positive number: %s\n", bb_program, argv[1]);
		return 2;
	}
	limit_ns = (uint64_t)(secs * 1e9);

	if (setup_case(c, &state) < 0) {
		print_error(c->name, error_msg);
		return 1;
	}
	if (argc == 4 && bb_itimer_start(argv[3]) < 0)
		return 1;
	start = bb_now_ns();
	while (elapsed < limit_ns) {
		if (timed_run(c, state, n, &ns, &ops) < 0) {
			print_error(c->name, error_msg);
			c->teardown(state);
			return 1;
		}
		total_ops += ops;
		if (ns < chunk_ns)
			n = next_units(n, ns, chunk_ns);
		elapsed = bb_now_ns() - start;
	}
	if (argc == 4 && bb_itimer_stop() < 0)
		return 1;
	c->teardown(state);
	printf("loop %s %" PRIu64 " %" PRIu64 "\n", c->name, total_ops, elapsed);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2)
		return usage();
	if (strcmp(argv[1], "list") == 0) {
		if (argc != 2)
			return usage();
		for (i = 0; i < bb_ncases; i++)
			printf("%s\n", bb_cases[i].name);
		fflush(stdout);
		return 0;
	}
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 2, argv + 2);
	if (strcmp(argv[1], "loop") == 0)
		return cmd_loop(argc - 2, argv + 2);
	fprintf(stderr, "%s: unknown command: %s\n", bb_program, argv[1]);
	return usage();
}

/* ==== The cases' JavaScript ==== */

/* Evaluated before every case script. expect() shows short values only, so a 64 KiB string never lands in an
 * error line. */
static const char js_prelude[] =
	"function expect(got, want, what) {\n"
	"  if (got === want) return;\n"
	"  const show = v => { const s = String(v); return s.length <= 60 ? s : s.slice(0, 60) + '...'; };\n"
	"  throw new Error(what + ': got ' + show(got) + ', want ' + show(want));\n"
	"}\n";

/* The loop of script_to_host_scalar with host_add replaced by its arithmetic. */
static const char js_ref[] =
	"function bench(n) {\n"
	"  let s = 0;\n"
	"  for (let i = 0; i < n; i++) s = (s + i) % 1000003;\n"
	"  return s;\n"
	"}\n"
	"expect(bench(2000), 998997, 'bench(2000)');\n";

static const char js_scalar[] =
	"function bench(n) {\n"
	"  let s = 0;\n"
	"  for (let i = 0; i < n; i++) s = host_add(s, i);\n"
	"  return s;\n"
	"}\n"
	"expect(bench(2000), 998997, 'bench(2000)');\n";

/* mkstr(nb) makes exactly nb UTF-8 bytes, ASCII and non-ASCII mixed, as bb_text_new does on the host side. The
 * checks avoid regular expressions and per-character callbacks over S: under qemu they cost seconds per case. */
#define JS_MKSTR                                                                                              \
	"function mkstr(nb, upper) {  // upper: what host_upper makes of it\n"                               \
	"  // 12 UTF-8 bytes: 7 ASCII, 2 for e-acute, 3 for euro\n"                                          \
	"  const unit = upper ? 'AB \\u00e9\\u20ac CD ' : 'ab \\u00e9\\u20ac cd ';\n"                    \
	"  const k = Math.floor(nb / 12), pad = (upper ? 'A' : 'a').repeat(nb - 12 * k);\n"                \
	"  return [unit.repeat(k), pad].join('');  // one flat string, not a rope\n"                         \
	"}\n"                                                                                                \
	"function utf8len(s) {  // S has no surrogate pairs\n"                                              \
	"  let n = 0;\n"                                                                                     \
	"  for (let i = 0; i < s.length; i++) { const c = s.charCodeAt(i); n += c < 0x80 ? 1 : c < 0x800 ? 2 : 3; }\n" \
	"  return n;\n"                                                                                      \
	"}\n"                                                                                                \
	"var S = mkstr(N);\n"                                                                                \
	"expect(utf8len(S), N, 'UTF-8 length of S');\n"

/* S holds exactly N UTF-8 bytes (N is the case's bytes); host_upper returns a string of the same length with its
 * ASCII letters upper-cased, so both directions carry N bytes and the host touches every byte. */
static const char js_string[] =
	JS_MKSTR
	"expect(host_upper(S), mkstr(N, true), 'host_upper(S)');  // not a regular expression: slow under qemu\n"
	"function bench(n) {\n"
	"  let s = 0;\n"
	"  for (let i = 0; i < n; i++) s += host_upper(S).length;\n"
	"  return s;\n"
	"}\n";

/* O is bb_obj_sample(i) in JavaScript; keep them alike. */
static const char js_object[] =
	"var O = {id: 0, name: 'node-\\u00e9', x: 1.5, y: 2.25, tags: ['a', 'bb', 'ccc'], pos: {a: 3, b: 4}};\n"
	"function bench(n) {\n"
	"  let s = 0;\n"
	"  for (let i = 0; i < n; i++) {\n"
	"    O.id = i;\n"
	"    const r = host_obj(O);\n"
	"    s = (s + r.id + r.x) % 1000003;\n"
	"  }\n"
	"  return s;\n"
	"}\n"
	"O.id = 41;\n"
	"expect(JSON.stringify(host_obj(O)), '{\"id\":42,\"ok\":true,\"x\":3.75}', 'host_obj(O)');\n";

/* R holds S, N UTF-8 bytes (as in js_string); host_record gives back {id: id + 1, text}, the same text. */
static const char js_record[] =
	JS_MKSTR
	"var R = {id: 41, text: S};\n"
	"expect(host_record(R).id, 42, 'host_record(R).id');\n"
	"expect(host_record(R).text, S, 'host_record(R).text');\n"
	"function bench(n) {\n"
	"  let s = 0;\n"
	"  for (let i = 0; i < n; i++) {\n"
	"    R.id = i;\n"
	"    const r = host_record(R);\n"
	"    s = (s + r.id + r.text.length) % 1000003;\n"
	"  }\n"
	"  return s;\n"
	"}\n";

static const char js_array[] =
	"var A = [];\n"
	"for (let i = 0; i < 64; i++) A.push(i * 0.5);\n"
	"function bench(n) {\n"
	"  let s = 0;\n"
	"  for (let i = 0; i < n; i++) {\n"
	"    A[0] = i;\n"
	"    s = (s + host_sum(A)) % 1000003;\n"
	"  }\n"
	"  return s;\n"
	"}\n"
	"expect(host_sum(A), 1008, 'host_sum(A)');\n";

/* The function the host calls is bb_add in JavaScript. */
static const char js_h2s_scalar[] = "function add(a, b) { return (a + b) % 1000003; }\n";

/* The function the host calls is bb_obj_host in JavaScript. */
static const char js_h2s_object[] = "function obj(o) { return {id: o.id + 1, ok: true, x: o.x + o.y}; }\n";

/* The functions the host calls with its text (bb_text_new) give it back: the string crosses both ways. */
static const char js_h2s_string[] = "function text(s) { return s; }\n";

/* bb_record_host in JavaScript. */
static const char js_h2s_record[] = "function record(r) { return {id: r.id + 1, text: r.text}; }\n";

static const char js_callback[] = "host_register(function (x, y) { return (x + y) % 1000003; });\n";

static const char js_error[] =
	"function bench(n) {\n"
	"  let s = 0;\n"
	"  for (let i = 0; i < n; i++) {\n"
	"    try { host_fail(i); } catch (e) { s += e.message.length; }\n"
	"  }\n"
	"  return s;\n"
	"}\n"
	"let caught = null;\n"
	"try { host_fail(12); } catch (e) { caught = e; }\n"
	"expect(caught instanceof Error, true, 'host_fail(12) threw an Error');\n"
	"expect(caught.message, 'host_fail: refused 12', 'its message');\n";

/* The function the host calls throws; the host reads the error's message and stack (bb_check_script_error). */
static const char js_script_error[] = "function fail(i) { throw new Error('script_fail: refused ' + i); }\n";

/* Mutation m of a bench run sets node m & 63, key (m >> 3) & 7 to m / 2; bb_ui_check replays it. JS_UI_BENCH makes
 * bench(n): n frames of 16 mutations, each written by the statement mutate (with m, k and KEYS), after the frame's
 * start and before its send. */
#define JS_UI_BENCH(start, mutate, send)                                                          \
	"var KEYS = ['x', 'y', 'w', 'h', 'color', 'text', 'opacity', 'visible'];\n"               \
	"function bench(n) {\n"                                                                   \
	"  for (let f = 0; f < n; f++) {\n"                                                       \
	"    const base = f * 16;\n" start "    for (let k = 0; k < 16; k++) {\n"                \
	"      const m = base + k;\n"                                                             \
	"      " mutate "\n"                                                                      \
	"    }\n" send "  }\n"                                                                    \
	"  return n;\n"                                                                           \
	"}\n"

static const char js_ui_calls[] = JS_UI_BENCH("", "set_prop(m & 63, KEYS[(m >> 3) & 7], m * 0.5);", "");

/* The same mutations as (node, key index, value) triples in one typed array, sent once per frame. */
static const char js_ui_buffer[] =
	"var BUF = new Float64Array(48);\n"
	JS_UI_BENCH("", "BUF[3 * k] = m & 63; BUF[3 * k + 1] = (m >> 3) & 7; BUF[3 * k + 2] = m * 0.5;",
		    "    apply_ops(BUF);\n");

/* The same mutations as small objects, one per call. */
static const char js_ui_object_calls[] =
	JS_UI_BENCH("", "set_node({id: m & 63, key: KEYS[(m >> 3) & 7], value: m * 0.5});", "");

/* The same objects, made the same way, sent as one list per frame: a batch of mutations. */
static const char js_ui_object_batch[] =
	JS_UI_BENCH("    const list = [];\n", "list.push({id: m & 63, key: KEYS[(m >> 3) & 7], value: m * 0.5});",
		    "    apply_batch(list);\n");

static const char js_bytes[] =
	"var B = new Uint8Array(65536);\n"
	"for (let i = 0; i < B.length; i++) B[i] = (i * 31 + 7) & 255;\n"
	"function bench(n) {\n"
	"  let s = 0;\n"
	"  for (let i = 0; i < n; i++) s = (s + host_bytes(B)) % 1000003;\n"
	"  return s;\n"
	"}\n"
	"let want = 0;\n"
	"for (let i = 0; i < B.length; i++) want += B[i];\n"
	"expect(host_bytes(B), want, 'host_bytes(B)');\n";

/* The scripts of cases.def, with the case's bytes (the script's N). */
static const struct {
	const char *name;
	const char *src;
	int32_t bytes;
} scripts[] = {
#define BB_CASE(name, crossing, unit_ops, bytes, setup, run, script, op) {#name, script, bytes},
#include "cases.def"
#undef BB_CASE
};

/* script_index returns the index of the case's script, or -1. */
static int script_index(const char *case_name)
{
	int i;

	for (i = 0; i < (int)(sizeof scripts / sizeof scripts[0]); i++)
		if (strcmp(scripts[i].name, case_name) == 0)
			return i;
	return -1;
}

const char *bb_case_script(const char *case_name)
{
	int i = script_index(case_name);

	return i < 0 ? NULL : scripts[i].src;
}

/* ==== Host-side work ==== */

double bb_add(double a, double b)
{
	bb_crossing();
	return fmod(a + b, BB_MOD); /* JavaScript's % on numbers is fmod */
}

void bb_upper_ascii(char *dst, const char *src, size_t len)
{
	size_t i;

	bb_crossing();

	for (i = 0; i < len; i++) {
		char c = src[i];
		dst[i] = (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
	}
}

char *bb_text_new(size_t n)
{
	static const char unit[] = "ab \xc3\xa9\xe2\x82\xac cd "; /* mkstr's unit: 12 bytes */
	char *p = bb_malloc(n + 1);
	size_t i, whole = n - n % 12;

	if (!p)
		return NULL;
	for (i = 0; i < whole; i += 12)
		memcpy(p + i, unit, 12);
	memset(p + whole, 'a', n - whole);
	p[n] = '\0';
	return p;
}

bb_obj_in bb_obj_sample(int32_t id)
{
	static const char name[] = "node-\xc3\xa9"; /* "node-é" in UTF-8, as in js_object */
	bb_obj_in o;

	o.id = id;
	o.name.p = name;
	o.name.len = sizeof name - 1;
	o.x = 1.5;
	o.y = 2.25;
	o.tags[0].p = "a";
	o.tags[0].len = 1;
	o.tags[1].p = "bb";
	o.tags[1].len = 2;
	o.tags[2].p = "ccc";
	o.tags[2].len = 3;
	o.pos_a = 3;
	o.pos_b = 4;
	return o;
}

bb_obj_out bb_obj_host(const bb_obj_in *in)
{
	bb_obj_out out;

	bb_crossing();

	out.id = (int32_t)((uint32_t)in->id + 1u); /* wraps instead of overflowing; ids stay far below 2^31 */
	out.ok = 1;
	out.x = in->x + in->y;
	return out;
}

double bb_sum(const double *v, size_t n)
{
	double s = 0;
	size_t i;

	bb_crossing();

	for (i = 0; i < n; i++)
		s += v[i];
	return s;
}

static const char *const ui_keys[BB_UI_KEYS] = {"x", "y", "w", "h", "color", "text", "opacity", "visible"};

int bb_ui_key(const char *s, size_t len)
{
	int k;

	for (k = 0; k < BB_UI_KEYS; k++)
		if (strlen(ui_keys[k]) == len && memcmp(ui_keys[k], s, len) == 0)
			return k;
	return -1;
}

static int ui_set(bb_ui *ui, double id, double key, double value)
{
	/* the comparisons also refuse NaN */
	if (!(id >= 0 && id < BB_UI_NODES) || !(key >= 0 && key < BB_UI_KEYS))
		return -1;
	ui->props[(int)id][(int)key] = value;
	return 0;
}

int bb_ui_set(bb_ui *ui, double id, double key, double value)
{
	bb_crossing();
	return ui_set(ui, id, key, value);
}

int bb_ui_apply(bb_ui *ui, const double *ops, size_t n)
{
	size_t i;

	bb_crossing();
	if (n % 3 != 0)
		return -1;
	for (i = 0; i < n; i += 3)
		if (ui_set(ui, ops[i], ops[i + 1], ops[i + 2]) < 0)
			return -1;
	return 0;
}

int bb_ui_check(const bb_ui *ui, uint64_t frames)
{
	bb_ui want;
	uint64_t m;
	int id, k;

	memset(&want, 0, sizeof want);
	for (m = 0; m < frames * BB_UI_FRAME; m++)
		want.props[m & 63][(m >> 3) & 7] = (double)m * 0.5;
	for (id = 0; id < BB_UI_NODES; id++)
		for (k = 0; k < BB_UI_KEYS; k++)
			if (ui->props[id][k] != want.props[id][k]) {
				bb_error("node %d key %s is %.17g, want %.17g", id, ui_keys[k], ui->props[id][k],
					 want.props[id][k]);
				return -1;
			}
	return 0;
}

double bb_bytes_sum(const uint8_t *p, size_t n)
{
	uint32_t s = 0; /* 64 KiB of 255 fits */
	size_t i;

	bb_crossing();

	for (i = 0; i < n; i++)
		s += p[i];
	return (double)s;
}

int bb_check_add(void *st, int (*call)(void *st, double a, double b, double *out))
{
	double got = 0, want = 0;
	int i;

	for (i = 0; i < 100; i++) {
		if (call(st, got, i, &got) < 0)
			return -1;
		want = bb_add(want, i);
	}
	if (got != want) {
		bb_error("100 calls of add(s, i) gave %.17g, want %.17g", got, want);
		return -1;
	}
	return 0;
}

int bb_check_obj(void *st, int (*call)(void *st, const bb_obj_in *in, bb_obj_out *out))
{
	bb_obj_in in = bb_obj_sample(41);
	bb_obj_out got, want = bb_obj_host(&in);

	if (call(st, &in, &got) < 0)
		return -1;
	if (got.id != want.id || got.ok != want.ok || got.x != want.x) {
		bb_error("obj(o) gave {id: %" PRId32 ", ok: %d, x: %.17g}, want {id: %" PRId32 ", ok: %d, x: %.17g}",
			 got.id, got.ok, got.x, want.id, want.ok, want.x);
		return -1;
	}
	return 0;
}

bb_record bb_record_host(const bb_record *in)
{
	bb_record out;

	bb_crossing();
	out.id = (int32_t)((uint32_t)in->id + 1u);
	out.text = in->text;
	return out;
}

/* same_text says whether got holds want's bytes, else fails with what differs. */
static int same_text(const char *what, const bb_str *got, const bb_str *want)
{
	if (got->len == want->len && memcmp(got->p, want->p, want->len) == 0)
		return 0;
	bb_error("%s came back as %zu bytes, want the %zu sent", what, got->len, want->len);
	return -1;
}

int bb_check_text(void *st, bb_str text, int (*call)(void *st, const bb_str *in, bb_str *out))
{
	bb_str got;

	if (call(st, &text, &got) < 0)
		return -1;
	return same_text("text(s)", &got, &text);
}

int bb_check_record(void *st, bb_str text, int (*call)(void *st, const bb_record *in, bb_record *out))
{
	bb_record in, got;

	in.id = 41;
	in.text = text;
	if (call(st, &in, &got) < 0)
		return -1;
	if (got.id != 42) {
		bb_error("record(r).id is %" PRId32 ", want 42", got.id);
		return -1;
	}
	return same_text("record(r).text", &got.text, &text);
}

void bb_fail_message(char *buf, size_t size, int32_t i)
{
	bb_crossing();
	snprintf(buf, size, "host_fail: refused %" PRId32, i);
}

int bb_check_script_error(void *st, int (*call)(void *st, int32_t i, bb_str *text))
{
	static const char want[] = "Error: script_fail: refused 12\n";
	bb_str text;

	if (call(st, 12, &text) < 0)
		return -1;
	if (text.len < sizeof want - 1 || memcmp(text.p, want, sizeof want - 1) != 0) {
		bb_error("fail(12) threw %.*s, want %s and a stack", (int)(text.len < 80 ? text.len : 80), text.p, want);
		return -1;
	}
	if (!strstr(text.p + sizeof want - 1, "at fail")) {
		bb_error("the stack of fail(12)'s error does not name fail: %.*s", (int)(text.len < 200 ? text.len : 200), text.p);
		return -1;
	}
	return 0;
}

int bb_ui_set_named(bb_ui *ui, double id, const char *key, size_t key_len, double value)
{
	return bb_ui_set(ui, id, bb_ui_key(key, key_len), value);
}

/* ==== QuickJS helpers ==== */

JSContext *bb_js_new(void *opaque)
{
	JSRuntime *rt = counted_runtime ? JS_NewRuntime2(&engine_mf, NULL) : JS_NewRuntime();
	JSContext *ctx;

	if (!rt) {
		bb_error("JS_NewRuntime failed");
		return NULL;
	}
	ctx = JS_NewContext(rt);
	if (!ctx) {
		JS_FreeRuntime(rt);
		bb_error("JS_NewContext failed");
		return NULL;
	}
	JS_SetContextOpaque(ctx, opaque);
	live_rt = rt;
	return ctx;
}

void bb_js_free(JSContext *ctx)
{
	JSRuntime *rt = JS_GetRuntime(ctx);

	if (rt == live_rt)
		live_rt = NULL;

	JS_FreeContext(ctx);
	JS_FreeRuntime(rt);
}

void bb_js_exception_text(JSContext *ctx, char *buf, size_t size)
{
	JSValue exc = JS_GetException(ctx);
	const char *s = JS_ToCString(ctx, exc); /* "Error: message" for Error objects */

	if (s) {
		snprintf(buf, size, "%s", s);
		JS_FreeCString(ctx, s);
	} else {
		JS_FreeValue(ctx, JS_GetException(ctx)); /* the exception of the failed conversion */
		snprintf(buf, size, "exception that cannot be converted to a string");
	}
	JS_FreeValue(ctx, exc);
}

void bb_js_error_text(JSContext *ctx, char *buf, size_t size)
{
	JSValue exc = JS_GetException(ctx), stack = JS_UNDEFINED;
	const char *s = JS_ToCString(ctx, exc), *t = NULL;

	if (!s)
		JS_FreeValue(ctx, JS_GetException(ctx)); /* the exception of the failed conversion */
	if (JS_IsError(ctx, exc)) {
		stack = JS_GetPropertyStr(ctx, exc, "stack");
		if (JS_IsString(stack))
			t = JS_ToCString(ctx, stack);
		else if (JS_IsException(stack))
			JS_FreeValue(ctx, JS_GetException(ctx));
	}
	snprintf(buf, size, "%s%s%s", s ? s : "exception that cannot be converted to a string", t && *t ? "\n" : "",
		 t && *t ? t : "");
	JS_FreeCString(ctx, s);
	JS_FreeCString(ctx, t);
	JS_FreeValue(ctx, stack);
	JS_FreeValue(ctx, exc);
}

int bb_js_fail(JSContext *ctx)
{
	bb_js_exception_text(ctx, error_msg, sizeof error_msg);
	return -1;
}

static int eval(JSContext *ctx, const char *src, const char *file)
{
	JSValue v = JS_Eval(ctx, src, strlen(src), file, JS_EVAL_TYPE_GLOBAL);

	if (JS_IsException(v))
		return bb_js_fail(ctx);
	JS_FreeValue(ctx, v);
	return 0;
}

int bb_js_load(JSContext *ctx, const char *case_name, const char *fn_name, JSValue *fn)
{
	int k = script_index(case_name);
	JSValue global;
	int rc;

	if (fn)
		*fn = JS_UNDEFINED;
	if (k < 0) {
		bb_error("no script for case %s", case_name);
		return -1;
	}
	global = JS_GetGlobalObject(ctx);
	rc = JS_SetPropertyStr(ctx, global, "N", JS_NewInt32(ctx, scripts[k].bytes)); /* the case's bytes */
	JS_FreeValue(ctx, global);
	if (rc < 0)
		return bb_js_fail(ctx);
	if (eval(ctx, js_prelude, "prelude.js") < 0 || eval(ctx, scripts[k].src, case_name) < 0)
		return -1;
	if (!fn_name)
		return 0;
	global = JS_GetGlobalObject(ctx);
	*fn = JS_GetPropertyStr(ctx, global, fn_name);
	JS_FreeValue(ctx, global);
	if (JS_IsException(*fn))
		return bb_js_fail(ctx);
	if (!JS_IsFunction(ctx, *fn)) {
		bb_error("the script of %s defines no function %s", case_name, fn_name);
		return -1;
	}
	return 0;
}

int bb_js_run_bench(JSContext *ctx, JSValueConst bench, uint64_t n, double *result)
{
	JSValue arg = JS_NewInt64(ctx, (int64_t)n);
	JSValue r = JS_Call(ctx, bench, JS_UNDEFINED, 1, &arg);
	int rc;

	if (JS_IsException(r))
		return bb_js_fail(ctx);
	rc = JS_ToFloat64(ctx, result, r);
	JS_FreeValue(ctx, r);
	return rc < 0 ? bb_js_fail(ctx) : 0;
}
