/* harness_memory.c: allocation counting, the memory pass and the rss record (docs/protocol.md).
 *
 * Counting is off except while the memory pass runs its counted units, so that it never sits inside a timed sample;
 * off, an allocation costs one predictable branch more than malloc. */
#ifdef BB_HARNESS_UNITY /* compiled through harness.c, which says why */
#include "harness_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/resource.h>

typedef struct alloc_count {
	uint64_t allocs, bytes;
} alloc_count;

static int counting, engine_counted;
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

void harness_count_engine(size_t size)
{
	count(&engine_count, size);
}

/* The memory pass runs MEMORY_UNITS loop units counted after MEMORY_WARMUP_UNITS that are not, in a fresh set-up of
 * the case: fixed numbers and a fresh set-up, not the timed state, so that what it counts depends on nothing the
 * clock decided (the calibrated op count, how far the heap grew). Small numbers, since every process runs the pass. */
#define MEMORY_WARMUP_UNITS 4
#define MEMORY_UNITS 16

/* print_memory prints the memory record of ops counted ops, with the case's heap when the engine tells it. */
static void print_memory(const bb_case *c, uint64_t ops)
{
	int64_t heap_bytes, heap_allocs;

	printf("memory %s ops=%" PRIu64, c->name, ops);
	if (engine_counted)
		printf(" engine_allocs=%" PRIu64 " engine_bytes=%" PRIu64, engine_count.allocs, engine_count.bytes);
	printf(" host_allocs=%" PRIu64 " host_bytes=%" PRIu64, host_count.allocs, host_count.bytes);
	if (bb_engine_heap(&heap_bytes, &heap_allocs))
		printf(" heap_bytes=%" PRId64 " heap_allocs=%" PRId64, heap_bytes, heap_allocs);
	printf("\n");
	fflush(stdout);
}

int harness_memory_pass(const bb_case *c)
{
	uint64_t ns, ops = 0;
	void *state;
	int rc;

	engine_counted = bb_engine_count_setup(1);
	rc = harness_setup_case(c, &state);
	bb_engine_count_setup(0);
	if (rc < 0)
		return -1;
	rc = harness_timed_run(c, state, MEMORY_WARMUP_UNITS, &ns, &ops);
	if (rc == 0) {
		memset(&engine_count, 0, sizeof engine_count);
		memset(&host_count, 0, sizeof host_count);
		counting = 1;
		rc = harness_timed_run(c, state, MEMORY_UNITS, &ns, &ops);
		counting = 0;
	}
	if (rc == 0)
		print_memory(c, ops);
	c->teardown(state);
	return rc;
}

void harness_print_rss(void)
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

#endif /* BB_HARNESS_UNITY */
