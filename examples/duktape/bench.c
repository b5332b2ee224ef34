/* bench.c: a bench program for Duktape that speaks bench-bridge's protocol 2 itself (docs/protocol.md), without the
 * harness and without QuickJS: how any engine is measured (docs/bridge.md, "Without the harness").
 *
 * It implements three of the cases (`list` says which): ref_js_loop, script_to_host_scalar and callback. Duktape is
 * an ECMAScript 5.1 engine, so the scripts are the catalogue's (bench-bridge cases --script NAME) with `var` for `let`;
 * the loops and the host's work are the same. Protocol 2 asks for two things beyond timing the cases: a sample of the
 * ref case before every sample (--ref), which every ratio is taken against, and busy work at every crossing of the
 * boundary (--slowdown, --slowdown-steps), which proves that a compare or a gate finds a slowdown of this program. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <duktape.h>

/* ---- The cases ---- */

static const char js_ref[] =
	"function bench(n) {\n"
	"  var s = 0;\n"
	"  for (var i = 0; i < n; i++) s = (s + i) % 1000003;\n"
	"  return s;\n"
	"}\n";

static const char js_scalar[] =
	"function bench(n) {\n"
	"  var s = 0;\n"
	"  for (var i = 0; i < n; i++) s = host_add(s, i);\n"
	"  return s;\n"
	"}\n";

static const char js_callback[] = "host_register(function (x, y) { return (x + y) % 1000003; });\n";

static void crossing(void);

/* host_add is the catalogue's: (a + b) % 1000003, as JavaScript computes it. */
static duk_ret_t host_add(duk_context *ctx)
{
	crossing();
	duk_push_number(ctx, fmod(duk_to_number(ctx, 0) + duk_to_number(ctx, 1), 1000003.0));
	return 1;
}

/* host_register keeps the script's function in the global stash, where the host calls it from. */
static duk_ret_t host_register(duk_context *ctx)
{
	if (!duk_is_function(ctx, 0))
		return duk_type_error(ctx, "host_register: not a function");
	duk_push_global_stash(ctx);
	duk_dup(ctx, 0);
	duk_put_prop_string(ctx, -2, "callback");
	return 0;
}

typedef struct bench_case {
	const char *name;
	const char *script;
	int host_calls; /* 1: the host calls the registered function n times; 0: the script's bench(n) loops */
} bench_case;

static const bench_case cases[] = {
	{"ref_js_loop", js_ref, 0},
	{"script_to_host_scalar", js_scalar, 0},
	{"callback", js_callback, 1},
};
#define NCASES (sizeof cases / sizeof cases[0])

static volatile double sink;
static char error_text[512];

/* setup makes a heap with the host functions and evaluates the case's script; NULL after error_text on failure. */
static duk_context *setup(const bench_case *c)
{
	duk_context *ctx = duk_create_heap_default();

	if (!ctx) {
		snprintf(error_text, sizeof error_text, "duk_create_heap failed");
		return NULL;
	}
	duk_push_c_function(ctx, host_add, 2);
	duk_put_global_string(ctx, "host_add");
	duk_push_c_function(ctx, host_register, 1);
	duk_put_global_string(ctx, "host_register");
	if (duk_peval_string(ctx, c->script) != 0) {
		snprintf(error_text, sizeof error_text, "%s", duk_safe_to_string(ctx, -1));
		duk_destroy_heap(ctx);
		return NULL;
	}
	duk_pop(ctx);
	return ctx;
}

/* run_units runs n loop units (one op each); -1 after error_text when the script threw. */
static int run_units(duk_context *ctx, const bench_case *c, uint64_t n)
{
	uint64_t i;
	double s = 0;

	if (!c->host_calls) {
		duk_get_global_string(ctx, "bench");
		duk_push_number(ctx, (double)n);
		if (duk_pcall(ctx, 1) != 0)
			goto fail;
		sink += duk_get_number(ctx, -1);
		duk_pop(ctx);
		return 0;
	}
	duk_push_global_stash(ctx);
	for (i = 0; i < n; i++) {
		crossing();
		duk_get_prop_string(ctx, -1, "callback");
		duk_push_number(ctx, s);
		duk_push_number(ctx, (double)i);
		if (duk_pcall(ctx, 2) != 0)
			goto fail;
		s = duk_get_number(ctx, -1);
		duk_pop(ctx);
	}
	duk_pop(ctx);
	sink += s;
	return 0;
fail:
	snprintf(error_text, sizeof error_text, "%s", duk_safe_to_string(ctx, -1));
	duk_set_top(ctx, 0);
	return -1;
}

/* ---- The slowdown hook ---- */

/* Every crossing of the boundary calls crossing(): host_add for each script -> host call, run_units for each
 * host -> script call. With --slowdown or --slowdown-steps it adds busy work, steps of one dependent xorshift chain,
 * slowdown_q8 / 256 steps per crossing (the fraction carried to the next), so that a slowdown is a share of the
 * crossing whatever the CPU. */
static uint64_t crossings, slowdown_q8, slowdown_acc, spin_chain = 88172645463325252u;

static void crossing(void)
{
	uint64_t a = spin_chain, steps;

	crossings++;
	slowdown_acc += slowdown_q8;
	for (steps = slowdown_acc >> 8; steps > 0; steps--) {
		a ^= a << 13, a ^= a >> 7, a ^= a << 17;
#if defined(__GNUC__)
		__asm__("" : "+r"(a)); /* keeps the compiler from folding the steps */
#endif
	}
	spin_chain = a;
	slowdown_acc &= 255;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* crossing_cost is what one crossing() costs in ns at the current slowdown_q8: the least of 5 timed loops of at
 * least 1 ms (whatever else runs on the machine only adds time). */
static double crossing_cost(void)
{
	uint64_t calls = 1, i, t0, ns;
	double best = 0, d;
	int r;

	for (;;) {
		t0 = now_ns();
		for (i = 0; i < calls; i++)
			crossing();
		ns = now_ns() - t0;
		if (ns >= 1000000u || calls >= (UINT64_C(1) << 40))
			break;
		calls *= 4;
	}
	for (r = 0; r < 5; r++) {
		t0 = now_ns();
		for (i = 0; i < calls; i++)
			crossing();
		d = (double)(now_ns() - t0) / (double)calls;
		if (r == 0 || d < best)
			best = d;
	}
	return best;
}

/* step_ns is what one step of the busy work costs in ns: a tight loop of 64 steps per call against one of none. */
static double step_ns(void)
{
	double idle, busy;

	slowdown_q8 = 0;
	idle = crossing_cost();
	slowdown_q8 = 64 * 256;
	busy = crossing_cost();
	slowdown_q8 = 0;
	return busy > idle ? (busy - idle) / 64 : 0.01;
}

/* ---- The protocol ---- */

/* timer_overhead is the median of 101 back-to-back clock read pairs (kept sorted as they come). */
static uint64_t timer_overhead(void)
{
	uint64_t d[101], t0, v;
	int n, j;

	for (n = 0; n < 101; n++) {
		t0 = now_ns();
		v = now_ns() - t0;
		for (j = n; j > 0 && d[j - 1] > v; j--)
			d[j] = d[j - 1];
		d[j] = v;
	}
	return d[50];
}

/* line prints one record and flushes it, so that nothing measured is lost if the program dies afterwards. */
#define line(...) (printf(__VA_ARGS__), putchar('\n'), fflush(stdout))

typedef struct options {
	uint64_t min_time_ns, samples, warmup_ns, ops, slowdown_steps;
	double slowdown;  /* --slowdown SHARE */
	const char *ref;  /* --ref CASE */
	int warmup_set;
} options;

/* beside is the --ref case: set up once per process and calibrated once, so that its samples beside every case are
 * alike. */
static struct {
	const bench_case *c;
	duk_context *ctx;
	uint64_t n;
} beside;

static const bench_case *find(const char *name)
{
	size_t i;

	for (i = 0; i < NCASES; i++)
		if (strcmp(cases[i].name, name) == 0)
			return &cases[i];
	return NULL;
}

static int timed(duk_context *ctx, const bench_case *c, uint64_t n, uint64_t *ns)
{
	uint64_t t0 = now_ns();
	int rc = run_units(ctx, c, n);

	*ns = now_ns() - t0;
	return rc;
}

/* grow multiplies n by the ratio still missing to target_ns, times 1.4, at most 10x (as Google Benchmark does). */
static uint64_t grow(uint64_t n, uint64_t ns, uint64_t target_ns)
{
	double m = ns > 0 ? (double)target_ns * 1.4 / (double)ns : 10.0;

	if (m > 10.0)
		m = 10.0;
	if ((double)n * m < (double)n + 1)
		return n + 1;
	return (double)n * m > 1e9 ? 1000000000u : (uint64_t)((double)n * m);
}

/* calibrate returns in *n an op count whose timed run lasts at least target_ns; -1 when the case failed. */
static int calibrate(duk_context *ctx, const bench_case *c, uint64_t target_ns, uint64_t *n)
{
	uint64_t ns = 0;

	for (*n = 1;; *n = grow(*n, ns, target_ns)) {
		if (timed(ctx, c, *n, &ns) < 0)
			return -1;
		if (ns >= target_ns || *n >= 1000000000u)
			return 0;
	}
}

/* added_share measures what the busy work as set adds to one op of c: the least of 4 runs of n ops with it over the
 * least of 4 without, alternating, so that both see the machine in the same state. *base is the least without. */
static int added_share(duk_context *ctx, const bench_case *c, uint64_t n, double *share, double *base)
{
	uint64_t q8 = slowdown_q8, ns;
	double with = 0, v;
	int i, rc = 0;

	for (i = 0; i < 8 && rc == 0; i++) {
		slowdown_q8 = i % 2 ? q8 : 0;
		rc = timed(ctx, c, n, &ns);
		v = (double)ns / (double)n;
		if (i % 2 && (i == 1 || v < with))
			with = v;
		else if (i % 2 == 0 && (i == 0 || v < *base))
			*base = v;
	}
	slowdown_q8 = q8;
	*share = with / *base - 1;
	return rc;
}

/* apply_slowdown makes one op of c cost share more than without busy work, and prints what it measured as
 * `slowdown CASE ADDED BASE`, ns per op. The work is first set from its cost in a tight loop, for the crossings per
 * op that 3 runs of n ops count, then corrected twice against the case itself (runs of a quarter of n ops, at most
 * 2 times more or less work each): an out-of-order CPU runs part of the work alongside the engine's own, so a
 * crossing of about 100 ns gains less from it than the tight loop measures (docs/method.md). */
static int apply_slowdown(duk_context *ctx, const bench_case *c, uint64_t n, double share)
{
	uint64_t ns, before = crossings;
	double base = 0, got = 0, steps, scale, step = 0, per_op = 0;
	int i;

	for (i = 0; i < 3; i++) {
		if (timed(ctx, c, n, &ns) < 0)
			return -1;
		if (i == 0 || (double)ns / (double)n < base)
			base = (double)ns / (double)n;
	}
	if (crossings > before) {
		per_op = (double)(crossings - before) / (3.0 * (double)n);
		step = step_ns();
		steps = share * base / per_op / step; /* per crossing */
		slowdown_q8 = steps * 256 >= 1 ? (uint64_t)(steps * 256 + 0.5) : 1;
		for (i = 0; i < 3; i++) {
			if (added_share(ctx, c, n / 4 ? n / 4 : 1, &got, &base) < 0)
				return -1;
			if (i == 2)
				break;
			scale = got > 0 ? share / got : 2;
			scale = scale > 2 ? 2 : scale < 0.5 ? 0.5 : scale;
			slowdown_q8 = (double)slowdown_q8 * scale >= 1 ? (uint64_t)((double)slowdown_q8 * scale + 0.5) : 1;
		}
	}
	/* A case whose gain the machine's noise hid (its speed moved between the runs of a pair) still carries the work:
	 * then ADDED is the work's cost from the tight loop. */
	line("slowdown %s %.4f %.4f", c->name, got > 0 ? got * base : (double)slowdown_q8 / 256 * step * per_op, base);
	return 0;
}

/* sample_beside takes one sample of the --ref case just before a sample of c and prints it as `ref C OPS NS`. */
static int sample_beside(const bench_case *c)
{
	uint64_t ns;

	if (!beside.c || beside.c == c)
		return 0;
	if (timed(beside.ctx, beside.c, beside.n, &ns) < 0)
		return -1;
	line("ref %s %" PRIu64 " %" PRIu64, c->name, beside.n, ns);
	return 0;
}

/* measure warms up, calibrates (or takes --ops as given), applies the slowdown and prints the samples, each after
 * its ref sample. */
static int measure(duk_context *ctx, const bench_case *c, const options *o)
{
	uint64_t n = o->ops ? o->ops : 1, ns = 0, spent = 0, i;

	if (o->ops) {
		if (o->warmup_ns > 0 && timed(ctx, c, n, &ns) < 0)
			return -1;
	} else {
		while (spent < o->warmup_ns) {
			if (timed(ctx, c, n, &ns) < 0)
				return -1;
			spent += ns;
			n = grow(n, ns, o->warmup_ns);
		}
		if (calibrate(ctx, c, o->min_time_ns, &n) < 0)
			return -1;
		if (o->slowdown > 0 && apply_slowdown(ctx, c, n, o->slowdown) < 0)
			return -1;
	}
	line("calibrated %s %" PRIu64, c->name, n);
	for (i = 0; i < o->samples; i++) {
		if (sample_beside(c) < 0 || timed(ctx, c, n, &ns) < 0)
			return -1;
		line("sample %s %" PRIu64 " %" PRIu64, c->name, n, ns);
	}
	return 0;
}

static void run_case(const char *name, const options *o)
{
	const bench_case *c = find(name);
	duk_context *ctx;

	if (!c) {
		line("error %s unknown case", name);
		return;
	}
	line("begin %s", name);
	slowdown_q8 = o->slowdown_steps * 256; /* --slowdown-steps: the same work in every run; --slowdown sets its own */
	ctx = setup(c);
	if (!ctx || measure(ctx, c, o) < 0)
		line("error %s %s", name, error_text);
	if (ctx)
		duk_destroy_heap(ctx);
	slowdown_q8 = 0;
	line("end %s", name);
}

/* setup_beside sets up the --ref case and calibrates it to half the min time: it only has to see how fast the
 * machine is at that moment. A ref case that fails is reported by its own run; the others then have no ref samples. */
static void setup_beside(const options *o)
{
	const bench_case *c = find(o->ref);

	if (!c || !(beside.ctx = setup(c)))
		return;
	if (calibrate(beside.ctx, c, o->min_time_ns / 2, &beside.n) < 0) {
		duk_destroy_heap(beside.ctx);
		return;
	}
	beside.c = c;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/* flag reads --NAME VALUE or --NAME=VALUE into o; -1 after a message on stderr. */
static int flag(int argc, char **argv, int *i, options *o)
{
	static const char *const names[] = {"--min-time-ns", "--samples", "--warmup-ns", "--ops", "--slowdown-steps",
					    "--ref", "--slowdown"};
	uint64_t *counts[] = {&o->min_time_ns, &o->samples, &o->warmup_ns, &o->ops, &o->slowdown_steps};
	const char *arg = argv[*i], *val = NULL;
	char *end;
	size_t k, len = 0, nnames = sizeof names / sizeof names[0];

	for (k = 0; k < nnames; k++) {
		len = strlen(names[k]);
		if (strncmp(arg, names[k], len) == 0 && (arg[len] == '\0' || arg[len] == '='))
			break;
	}
	if (k == nnames) {
		fprintf(stderr, "duktape-bench: unknown flag: %s\n", arg);
		return -1;
	}
	if (arg[len] == '=')
		val = arg + len + 1;
	else if (*i + 1 < argc)
		val = argv[++*i];
	if (!val) {
		fprintf(stderr, "duktape-bench: %s needs a value\n", names[k]);
		return -1;
	}
	if (k < 5) {
		if (parse_u64(val, counts[k]) < 0) {
			fprintf(stderr, "duktape-bench: %s needs a non-negative integer\n", names[k]);
			return -1;
		}
		o->warmup_set |= k == 2;
	} else if (k == 5) {
		o->ref = val;
	} else {
		errno = 0;
		o->slowdown = strtod(val, &end);
		if (errno || *end || end == val || !(o->slowdown >= 0 && o->slowdown <= 10)) {
			fprintf(stderr, "duktape-bench: --slowdown: want a share between 0 and 10, like 0.10\n");
			return -1;
		}
	}
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	options o = {50000000u, 10, 0, 0, 0, 0, NULL, 0};
	int i, n = 0;

	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "--", 2) != 0)
			argv[n++] = argv[i];
		else if (flag(argc, argv, &i, &o) < 0)
			return 2;
	}
	if (o.samples == 0 || o.ops > 1000000000u) {
		fprintf(stderr, "duktape-bench: --samples must be at least 1 and --ops at most 10^9\n");
		return 2;
	}
	if (o.ops > 0 && (o.ref || o.slowdown > 0)) {
		fprintf(stderr, "duktape-bench: --ref and --slowdown need calibrated runs, not --ops\n");
		return 2;
	}
	if (o.slowdown > 0 && o.slowdown_steps > 0) {
		fprintf(stderr, "duktape-bench: --slowdown and --slowdown-steps exclude each other\n");
		return 2;
	}
	if (!o.warmup_set)
		o.warmup_ns = o.min_time_ns;
	line("bench-bridge-protocol 2");
	line("meta program bridge");
	line("meta bridge duktape-example");
	line("meta engine duktape %ld.%ld.%ld", DUK_VERSION / 10000, DUK_VERSION / 100 % 100, DUK_VERSION % 100);
	line("meta codec duktape-stack");
#if defined(__GNUC__) && !defined(__clang__)
	line("meta compiler gcc %s", __VERSION__);
#elif defined(__clang__)
	line("meta compiler %s", __VERSION__);
#endif
	line("timer_overhead_ns %" PRIu64, timer_overhead());
	if (o.ref)
		setup_beside(&o);
	for (i = 0; i < n; i++)
		run_case(argv[i], &o);
	for (i = 0; n == 0 && i < (int)NCASES; i++)
		run_case(cases[i].name, &o);
	if (beside.c)
		duk_destroy_heap(beside.ctx);
	return 0;
}

/* cmd_loop runs one case for SECONDS without samples, for a profiler. */
static int cmd_loop(int argc, char **argv)
{
	const bench_case *c = argc == 2 ? find(argv[0]) : NULL;
	double secs = argc == 2 ? strtod(argv[1], NULL) : 0;
	uint64_t start, elapsed = 0, ops = 0, ns;
	duk_context *ctx;

	if (!c || !(secs > 0)) {
		fprintf(stderr, "usage: duktape-bench loop CASE SECONDS (CASE one of list's)\n");
		return 2;
	}
	ctx = setup(c);
	if (!ctx) {
		line("error %s %s", c->name, error_text);
		return 1;
	}
	start = now_ns();
	while (elapsed < (uint64_t)(secs * 1e9)) {
		if (timed(ctx, c, 10000, &ns) < 0) {
			line("error %s %s", c->name, error_text);
			duk_destroy_heap(ctx);
			return 1;
		}
		ops += 10000;
		elapsed = now_ns() - start;
	}
	duk_destroy_heap(ctx);
	line("loop %s %" PRIu64 " %" PRIu64, c->name, ops, elapsed);
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc == 2 && strcmp(argv[1], "list") == 0) {
		for (i = 0; i < NCASES; i++)
			line("%s", cases[i].name);
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 2, argv + 2);
	if (argc >= 2 && strcmp(argv[1], "loop") == 0)
		return cmd_loop(argc - 2, argv + 2);
	fprintf(stderr, "usage: duktape-bench list | run [--min-time-ns N] [--samples N] [--warmup-ns N] [--ops N] "
			"[--ref CASE] [--slowdown SHARE | --slowdown-steps N] [CASE ...] | loop CASE SECONDS\n");
	return 2;
}
