/* harness_memory.c: allocation counting, the memory pass and the rss record (docs/protocol.md).
 *
 * Counting is off except while the memory pass runs its counted units, so that it never sits inside a timed sample;
 * off, an allocation costs one predictable branch more than malloc. */
#include "harness_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/resource.h>

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
 * count, with one change: it tells QuickJS the size it asked for, kept in a header, as a block's usable size.
 * malloc_usable_size depends on where glibc placed the block, and QuickJS grows string buffers into that slack and
 * runs its GC by it; with the requested size the counts depend on the requests alone and repeat exactly from
 * process to process. Timed samples run on the default allocator (JS_NewRuntime), untouched. ENGINE_OVERHEAD is
 * quickjs.c's MALLOC_OVERHEAD. */
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

/* counted_runtime is set while the memory pass sets its case up: harness_runtime_new then uses engine_mf. */
static int counted_runtime;

/* live_rt is the runtime made last and not yet freed: the case's, whose heap the memory record reports. */
static JSRuntime *live_rt;

JSRuntime *harness_runtime_new(void)
{
	JSRuntime *rt = counted_runtime ? JS_NewRuntime2(&engine_mf, NULL) : JS_NewRuntime();

	if (rt)
		live_rt = rt;
	return rt;
}

void harness_runtime_free(JSRuntime *rt)
{
	if (rt == live_rt)
		live_rt = NULL;
	JS_FreeRuntime(rt);
}

/* The memory pass runs MEMORY_UNITS loop units counted after MEMORY_WARMUP_UNITS that are not, in a fresh set-up of
 * the case: fixed numbers and a fresh set-up, not the timed state, so that what it counts depends on nothing the
 * clock decided (the calibrated op count, how far the heap grew). Small numbers, since every process runs the pass. */
#define MEMORY_WARMUP_UNITS 4
#define MEMORY_UNITS 16

/* print_memory prints the memory record of ops counted ops, with the case's heap when it has a runtime. */
static void print_memory(const bb_case *c, uint64_t ops)
{
	JSMemoryUsage u;

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

int harness_memory_pass(const bb_case *c)
{
	uint64_t ns, ops = 0;
	void *state;
	int rc;

	live_rt = NULL;
	counted_runtime = 1;
	rc = harness_setup_case(c, &state);
	counted_runtime = 0;
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
