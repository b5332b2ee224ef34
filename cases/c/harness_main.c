/* harness_main.c: main() of every bench program, speaking docs/protocol.md: the commands list, run and loop, their
 * flags, the header records and the error records. The rest of the harness is in the files harness_internal.h lists. */
#ifdef BB_HARNESS_UNITY /* compiled through harness.c, which says why */
#include "harness_internal.h"
#include "itimer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sched.h>
#endif

/* ==== Error records ==== */

static char error_msg[HARNESS_ERROR_MAX];

void bb_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(error_msg, sizeof error_msg, fmt, ap);
	va_end(ap);
}

void harness_clear_error(void)
{
	error_msg[0] = '\0';
}

/* The message must stay on its line. */
void harness_report_error(const char *case_name)
{
	char line[sizeof error_msg];
	size_t i;

	snprintf(line, sizeof line, "%s", error_msg[0] ? error_msg : "failed");
	for (i = 0; line[i]; i++)
		if (line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	printf("error %s %s\n", case_name, line);
	fflush(stdout);
}

/* ==== The header ==== */

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

/* print_cpu prints the core the process runs on as one `cpu CORE` record, where the system tells it (Linux and
 * Android): bench-bridge reads that core's frequency before and after the process. */
static void print_cpu(void)
{
#if defined(__linux__)
	int cpu = sched_getcpu();

	if (cpu >= 0)
		printf("cpu %d\n", cpu);
#endif
}

static void print_header(void)
{
	int i;

	printf("bench-bridge-protocol 2\n");
	printf("meta program %s\n", bb_program);
	if (bb_codec)
		printf("meta codec %s\n", bb_codec);
	bb_engine_meta();
	printf("meta compiler %s\n", compiler_version());
	for (i = 0; bb_missing_cases && bb_missing_cases[i].name; i++)
		printf("meta not_implemented.%s %s\n", bb_missing_cases[i].name, bb_missing_cases[i].reason);
	fflush(stdout);
	printf("timer_overhead_ns %" PRIu64 "\n", harness_timer_overhead());
	print_cpu();
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
static int parse_v2_flag(int argc, char **argv, int *i, harness_options *o)
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
static int parse_flag(int argc, char **argv, int *i, harness_options *o)
{
	int v2 = parse_v2_flag(argc, argv, i, o);

	if (v2 != 0)
		return v2 < 0 ? -1 : 0;
	static const struct {
		const char *name;
		size_t off;
	} flags[] = {
		{"--min-time-ns", offsetof(harness_options, min_time_ns)},
		{"--samples", offsetof(harness_options, samples)},
		{"--warmup-ns", offsetof(harness_options, warmup_ns)},
		{"--ops", offsetof(harness_options, units)},
		{"--slowdown-steps", offsetof(harness_options, slowdown_steps)},
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
	if (flags[k].off == offsetof(harness_options, warmup_ns))
		o->warmup_set = 1;
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	harness_options o = {50000000u, 10, 0, 0, 0, NULL, 0, 0};
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
	if (o.units > HARNESS_MAX_UNITS) {
		fprintf(stderr, "%s: --ops must be at most %" PRIu64 "\n", bb_program, HARNESS_MAX_UNITS);
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
		harness_beside_setup(&o);
	for (i = 0; i < nnames; i++)
		harness_run_case(names[i], &o);
	if (nnames == 0)
		for (i = 0; i < bb_ncases; i++)
			harness_run_case(bb_cases[i].name, &o);
	harness_beside_teardown();
	harness_print_rss();
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
	c = harness_find_case(argv[0]);
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

	if (harness_setup_case(c, &state) < 0) {
		harness_report_error(c->name);
		return 1;
	}
	if (argc == 4 && bb_itimer_start(argv[3]) < 0)
		return 1;
	start = harness_now_ns();
	while (elapsed < limit_ns) {
		if (harness_timed_run(c, state, n, &ns, &ops) < 0) {
			harness_report_error(c->name);
			c->teardown(state);
			return 1;
		}
		total_ops += ops;
		if (ns < chunk_ns)
			n = harness_next_units(n, ns, chunk_ns);
		elapsed = harness_now_ns() - start;
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

#endif /* BB_HARNESS_UNITY */
