/* itimer.h: an in-process sampling profiler for devices where perf events do not exist (old Android kernels,
 * kernels without perf_event, qemu-user, boards without perf), in itimer.c. harness.c switches it on for
 * `PROG loop CASE SECONDS --itimer FILE` (docs/protocol.md); without the flag none of it runs. */
#ifndef BB_ITIMER_H
#define BB_ITIMER_H

/* bb_itimer_start allocates the sample buffer, finds the stack's top and arms ITIMER_PROF, whose SIGPROF handler
 * records the interrupted pc and the frame-pointer chain above it. It returns 0, or -1 after a message on stderr
 * (also where the platform has no support: then the message says so). */
int bb_itimer_start(const char *path);

/* bb_itimer_stop disarms the timer and writes the samples to the path bb_itimer_start was given (atomically: a
 * temporary file renamed into place). It returns 0, or -1 after a message on stderr. */
int bb_itimer_stop(void);

#endif
