/* bench.c: a bench program for Duktape that speaks bench-bridge's protocol itself (docs/protocol.md), without the
 * harness and without QuickJS: how any engine is measured (docs/bridge.md, "Without the harness").
 *
 * It implements three of the cases (`list` says which): ref_js_loop, script_to_host_scalar and callback. Duktape is
 * an ECMAScript 5.1 engine, so the scripts are the catalogue's (bench-bridge cases --script NAME) with `var` for `let`;
 * the loops and the host's work are the same. */
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

/* host_add is the catalogue's: (a + b) % 1000003, as JavaScript computes it. */
static duk_ret_t host_add(duk_context *ctx)
{
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

/* ---- The protocol ---- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

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
	uint64_t min_time_ns, samples, warmup_ns, ops;
	int warmup_set;
} options;

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

/* measure warms up, calibrates (or takes --ops as given) and prints the samples. */
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
		for (n = 1;; n = grow(n, ns, o->min_time_ns)) {
			if (timed(ctx, c, n, &ns) < 0)
				return -1;
			if (ns >= o->min_time_ns || n >= 1000000000u)
				break;
		}
	}
	line("calibrated %s %" PRIu64, c->name, n);
	for (i = 0; i < o->samples; i++) {
		if (timed(ctx, c, n, &ns) < 0)
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
	ctx = setup(c);
	if (!ctx || measure(ctx, c, o) < 0)
		line("error %s %s", name, error_text);
	if (ctx)
		duk_destroy_heap(ctx);
	line("end %s", name);
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

/* flag reads --NAME N or --NAME=N into o; -1 after a message on stderr. */
static int flag(int argc, char **argv, int *i, options *o)
{
	static const char *const names[] = {"--min-time-ns", "--samples", "--warmup-ns", "--ops"};
	uint64_t *fields[] = {&o->min_time_ns, &o->samples, &o->warmup_ns, &o->ops};
	const char *arg = argv[*i], *val = NULL;
	size_t k, len;

	for (k = 0; k < 4; k++) {
		len = strlen(names[k]);
		if (strncmp(arg, names[k], len) == 0 && (arg[len] == '\0' || arg[len] == '='))
			break;
	}
	if (k == 4) {
		fprintf(stderr, "duktape-bench: unknown flag: %s\n", arg);
		return -1;
	}
	if (arg[len] == '=')
		val = arg + len + 1;
	else if (*i + 1 < argc)
		val = argv[++*i];
	if (!val || parse_u64(val, fields[k]) < 0) {
		fprintf(stderr, "duktape-bench: %s needs a non-negative integer\n", names[k]);
		return -1;
	}
	o->warmup_set |= k == 2;
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	options o = {50000000u, 10, 0, 0, 0};
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
	if (!o.warmup_set)
		o.warmup_ns = o.min_time_ns;
	line("bench-bridge-protocol 1");
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
	for (i = 0; i < n; i++)
		run_case(argv[i], &o);
	for (i = 0; n == 0 && i < (int)NCASES; i++)
		run_case(cases[i].name, &o);
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
	fprintf(stderr, "usage: duktape-bench list | run [--min-time-ns N] [--samples N] [--warmup-ns N] [--ops N] [CASE ...] | loop CASE SECONDS\n");
	return 2;
}
