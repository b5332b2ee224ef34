/* itimer.c: the in-process sampling profiler of itimer.h, one of the harness's files, so that every program built
 * with the harness has it.
 *
 * setitimer(ITIMER_PROF) sends SIGPROF after every BB_ITIMER_US of the process's CPU time (kernels deliver at most
 * one per tick). The handler reads the interrupted pc, stack pointer and frame pointer from its ucontext and walks
 * the frame records (bench programs are built with -fno-omit-frame-pointer). It is async-signal-safe: it reads only
 * words it has checked lie on the stack between the interrupted stack pointer and the stack's top, writes only the
 * buffer allocated before the timer was armed, and calls nothing. When the run ends, the timer is disarmed and the
 * stacks are written, counted once per distinct stack, with the anchor (where bb_itimer_start is loaded: the host
 * undoes PIE and ASLR with it) and the executable mappings of /proc/self/maps (for shared libraries).
 *
 * Frame records, as the compilers of build/toolchain.go emit them:
 *   x86_64, i386: [fp] = caller's fp, [fp + 1 word] = return address (push rbp; mov rbp, rsp)
 *   aarch64:      [x29] = caller's x29, [x29 + 8] = lr (stp x29, x30, [sp, -N]!; mov x29, sp)
 *   arm, ARM mode gcc (armel, webos): r11 points at the saved lr, [r11] = lr, [r11 - 4] = caller's r11
 *   arm, ARM mode clang: [r11] = caller's r11, [r11 + 4] = lr
 *   arm, Thumb clang (the NDK's armeabi-v7a): r7 is the frame pointer, [r7] = caller's r7, [r7 + 4] = lr
 *   arm, Thumb gcc (armv7, Debian's armhf compiler): r7 is set to sp *after* the locals are allocated
 *                (push {r7, lr}; sub sp, sp, #N; add r7, sp, #0), so it does not chain, with or without
 *                -mapcs-frame: the sample is the pc alone ("unwind pc" in the file), which the self shares need.
 * A frame in code built without frame pointers (the C library) ends the walk or gives a wrong caller; the sampled
 * pc, which the self shares are made of, is always exact. Elsewhere (macOS has `sample`) start says it is not
 * supported. */
#ifdef BB_HARNESS_UNITY /* compiled through harness.c, which says why */
#include "itimer.h"

#include <stdio.h>
#if defined(__linux__)
#include <signal.h>
#include <sys/ucontext.h>
#endif

#if defined(__linux__) && (defined(__x86_64__) && defined(REG_RIP) || defined(__i386__) && defined(REG_EIP) || \
	defined(__aarch64__) || defined(__arm__))
#define BB_ITIMER_SUPPORTED 1
#endif

#ifdef BB_ITIMER_SUPPORTED

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define BB_ITIMER_US 1000                 /* asked for; the kernel's tick bounds what it delivers */
#define BB_ITIMER_DEPTH 64                /* frames per sample */
#define BB_ITIMER_WORDS ((size_t)1 << 20) /* buffer: 8 MiB on 64-bit, 4 MiB on 32-bit */

#if defined(__x86_64__)
#define BB_ITIMER_ARCH "x86_64"
#define BB_FP_NEXT 0
#define BB_FP_RET 1
#elif defined(__i386__)
#define BB_ITIMER_ARCH "i386"
#define BB_FP_NEXT 0
#define BB_FP_RET 1
#elif defined(__aarch64__)
#define BB_ITIMER_ARCH "aarch64"
#define BB_FP_NEXT 0
#define BB_FP_RET 1
#elif defined(__thumb__)
#define BB_ITIMER_ARCH "arm-thumb"
#define BB_FP_NEXT 0
#define BB_FP_RET 1
#ifndef __clang__
#define BB_ITIMER_PC_ONLY 1
#endif
#elif defined(__clang__)
#define BB_ITIMER_ARCH "arm"
#define BB_FP_NEXT 0
#define BB_FP_RET 1
#else
#define BB_ITIMER_ARCH "arm"
#define BB_FP_NEXT (-1)
#define BB_FP_RET 0
#endif

#ifdef BB_ITIMER_PC_ONLY
#define BB_ITIMER_UNWIND "pc"
#else
#define BB_ITIMER_UNWIND "fp"
#endif

/* Records in buf: one word n, then n addresses (the pc first, then return addresses outwards). */
static struct {
	const char *path;
	uintptr_t *buf;
	size_t used;
	uintptr_t stack_hi; /* the top of the stack mapping: no frame lies above it */
	uint64_t samples, dropped;
	uint64_t cpu_ns;
} bb_prof;

static void bb_itimer_regs(const ucontext_t *uc, uintptr_t *pc, uintptr_t *sp, uintptr_t *fp)
{
#if defined(__x86_64__)
	*pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	*sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	*fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
#elif defined(__i386__)
	*pc = (uintptr_t)uc->uc_mcontext.gregs[REG_EIP];
	*sp = (uintptr_t)uc->uc_mcontext.gregs[REG_ESP];
	*fp = (uintptr_t)uc->uc_mcontext.gregs[REG_EBP];
#elif defined(__aarch64__)
	*pc = (uintptr_t)uc->uc_mcontext.pc;
	*sp = (uintptr_t)uc->uc_mcontext.sp;
	*fp = (uintptr_t)uc->uc_mcontext.regs[29];
#elif defined(__thumb__)
	*pc = (uintptr_t)uc->uc_mcontext.arm_pc;
	*sp = (uintptr_t)uc->uc_mcontext.arm_sp;
	*fp = (uintptr_t)uc->uc_mcontext.arm_r7;
#else
	*pc = (uintptr_t)uc->uc_mcontext.arm_pc;
	*sp = (uintptr_t)uc->uc_mcontext.arm_sp;
	*fp = (uintptr_t)uc->uc_mcontext.arm_fp;
#endif
}

static void bb_itimer_handler(int sig, siginfo_t *info, void *ucv)
{
	const intptr_t w = (intptr_t)sizeof(uintptr_t);
	const intptr_t lo_off = (BB_FP_NEXT < BB_FP_RET ? BB_FP_NEXT : BB_FP_RET) * w;
	const intptr_t hi_off = ((BB_FP_NEXT > BB_FP_RET ? BB_FP_NEXT : BB_FP_RET) + 1) * w;
	uintptr_t pc, sp, fp, lo, *rec;
	size_t n = 0;

	(void)sig;
	(void)info;
	if (bb_prof.used + 1 + BB_ITIMER_DEPTH > BB_ITIMER_WORDS) {
		bb_prof.dropped++;
		return;
	}
	bb_itimer_regs((const ucontext_t *)ucv, &pc, &sp, &fp);
	rec = bb_prof.buf + bb_prof.used;
	rec[1 + n++] = pc;
	lo = sp;
#ifdef BB_ITIMER_PC_ONLY
	fp = 0;
#endif
	/* Each record must lie between the interrupted sp and the stack's top, aligned, and further out than the last:
	 * then every read is of mapped stack, whatever the register held. */
	while (n < BB_ITIMER_DEPTH && fp % (uintptr_t)w == 0 && fp + lo_off >= lo && fp + lo_off < fp + hi_off &&
		fp + hi_off <= bb_prof.stack_hi) {
		const uintptr_t *f = (const uintptr_t *)fp;
		uintptr_t next = f[BB_FP_NEXT], ret = f[BB_FP_RET];

		if (ret == 0)
			break;
		rec[1 + n++] = ret;
		if (next <= fp)
			break;
		lo = fp + hi_off;
		fp = next;
	}
	rec[0] = n;
	bb_prof.used += 1 + n;
	bb_prof.samples++;
}

static uint64_t bb_itimer_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* bb_itimer_stack_top returns the end of the mapping that holds addr, from /proc/self/maps, or addr itself (the
 * walk then stops at the caller's frame) when it cannot be read. */
static uintptr_t bb_itimer_stack_top(uintptr_t addr)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	uintptr_t top = addr;

	if (!f)
		return top;
	while (fgets(line, sizeof line, f)) {
		unsigned long long a, b;

		if (sscanf(line, "%llx-%llx", &a, &b) == 2 && a <= addr && addr < b) {
			top = (uintptr_t)b;
			break;
		}
	}
	fclose(f);
	return top;
}

int bb_itimer_start(const char *path)
{
	struct sigaction sa;
	struct itimerval it;
	volatile int here = 0;

	bb_prof.path = path;
	bb_prof.buf = malloc(BB_ITIMER_WORDS * sizeof(uintptr_t));
	if (!bb_prof.buf) {
		fprintf(stderr, "itimer: out of memory for the sample buffer\n");
		return -1;
	}
	bb_prof.stack_hi = bb_itimer_stack_top((uintptr_t)&here);
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = bb_itimer_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL) < 0) {
		fprintf(stderr, "itimer: sigaction SIGPROF: %s\n", strerror(errno));
		return -1;
	}
	bb_prof.cpu_ns = bb_itimer_cpu_ns();
	it.it_interval.tv_sec = 0;
	it.it_interval.tv_usec = BB_ITIMER_US;
	it.it_value = it.it_interval;
	if (setitimer(ITIMER_PROF, &it, NULL) < 0) {
		fprintf(stderr, "itimer: setitimer ITIMER_PROF: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int bb_itimer_cmp(const void *a, const void *b)
{
	const uintptr_t *x = *(const uintptr_t *const *)a, *y = *(const uintptr_t *const *)b;
	size_t i;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	for (i = 1; i <= x[0]; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* bb_itimer_write_maps copies the executable mappings of /proc/self/maps: start-end offset path. */
static void bb_itimer_write_maps(FILE *out)
{
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		unsigned long long a, b, off;
		char perms[8];
		int n = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &a, &b, perms, &off, &n) < 4 || n == 0 || perms[2] != 'x')
			continue;
		line[strcspn(line, "\n")] = 0;
		fprintf(out, "map %llx %llx %llx %s\n", a, b, off, line + n);
	}
	fclose(f);
}

int bb_itimer_stop(void)
{
	struct itimerval off;
	sigset_t prof;
	uintptr_t **recs;
	size_t nrec = 0, at, i;
	char tmp[4096];
	FILE *out;
	uint64_t cpu_ns;

	memset(&off, 0, sizeof off);
	setitimer(ITIMER_PROF, &off, NULL);
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	sigprocmask(SIG_BLOCK, &prof, NULL); /* a signal still pending can no longer run the handler */
	cpu_ns = bb_itimer_cpu_ns() - bb_prof.cpu_ns;

	recs = malloc((bb_prof.samples + 1) * sizeof *recs);
	if (!recs) {
		fprintf(stderr, "itimer: out of memory sorting %llu samples\n", (unsigned long long)bb_prof.samples);
		return -1;
	}
	for (at = 0; at < bb_prof.used; at += 1 + bb_prof.buf[at])
		recs[nrec++] = bb_prof.buf + at;
	qsort(recs, nrec, sizeof *recs, bb_itimer_cmp);

	if (snprintf(tmp, sizeof tmp, "%s.tmp", bb_prof.path) >= (int)sizeof tmp || !(out = fopen(tmp, "w"))) {
		fprintf(stderr, "itimer: cannot write %s.tmp: %s\n", bb_prof.path, strerror(errno));
		free(recs);
		return -1;
	}
	fprintf(out, "bb-itimer 1\narch %s\nword %u\nunwind %s\ninterval_us %d\nanchor %llx\n", BB_ITIMER_ARCH,
		(unsigned)sizeof(uintptr_t), BB_ITIMER_UNWIND, BB_ITIMER_US, (unsigned long long)(uintptr_t)&bb_itimer_start);
	fprintf(out, "samples %llu\ndropped %llu\ncpu_ns %llu\n", (unsigned long long)bb_prof.samples,
		(unsigned long long)bb_prof.dropped, (unsigned long long)cpu_ns);
	bb_itimer_write_maps(out);
	/* One line per distinct stack: its count, then the pc and the return addresses outwards. */
	for (i = 0; i < nrec;) {
		size_t j = i + 1, k;

		while (j < nrec && bb_itimer_cmp(&recs[i], &recs[j]) == 0)
			j++;
		fprintf(out, "stack %llu", (unsigned long long)(j - i));
		for (k = 1; k <= recs[i][0]; k++)
			fprintf(out, " %llx", (unsigned long long)recs[i][k]);
		fputc('\n', out);
		i = j;
	}
	fprintf(out, "end\n");
	free(recs);
	free(bb_prof.buf);
	bb_prof.buf = NULL;
	if (ferror(out) | (fclose(out) != 0) || rename(tmp, bb_prof.path) < 0) {
		fprintf(stderr, "itimer: cannot write %s: %s\n", bb_prof.path, strerror(errno));
		remove(tmp);
		return -1;
	}
	return 0;
}

#else /* !BB_ITIMER_SUPPORTED */

int bb_itimer_start(const char *path)
{
	(void)path;
	fprintf(stderr, "itimer: not supported on this platform (Linux or Android on x86_64, i386, aarch64 or arm "
			"only; on macOS profile with sample)\n");
	return -1;
}

int bb_itimer_stop(void)
{
	return -1;
}

#endif

#endif /* BB_HARNESS_UNITY */
