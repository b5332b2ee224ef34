/* engine_cases.h: the cases of the floors of the engines besides QuickJS (floor_jsc.c, floor_spidermonkey.cpp,
 * floor_v8.cc, floor_duktape.c, floor_mujs.c), so that they differ only in how they call their engine: the helpers
 * their host functions share, and case_loops.h's set-ups, timed loops and case table (cases.def's list), with the
 * cases their engine lacks.
 *
 * A floor includes it first, without BB_STATE, for the helpers alone (engine_scratch, engine_text, the counted heap)
 * and host_functions.h, whose list its table of host functions expands. It includes it again, at file
 * scope (after a C++ floor's anonymous namespace), after defining BB_STATE (its state, with text, text_len, unit_ops
 * and ui: the bb_ui its set_prop, apply_ops, set_node and apply_batch mutate) and what case_loops.h asks of a program:
 * load(c, state, fn_name) (a context with the host functions, the case's text and script, and its function fn_name
 * kept), run_bench (bench(n)), call_add, call_text, call_obj, call_record, call_fail (the host -> script calls of
 * harness_core.h's bb_check_*), callback_registered(st) and teardown. That gives the floor bb_cases, bb_ncases and
 * bb_missing_cases.
 *
 * A floor whose engine has no typed arrays defines BB_ENGINE_NO_TYPED_ARRAYS before, as the start of the reason ("mujs
 * has no typed arrays (ES5): "): the cases of typed arrays (cases.def's BB_CASE_TYPED_ARRAYS) are then recorded as not
 * implemented, with it and the case's why. */
#ifndef BB_ENGINE_HELPERS_H
#define BB_ENGINE_HELPERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host_functions.h"

/* engine_scratch is a buffer of at least n bytes, for a host function's result (host_upper's) or a string's copy:
 * one for the process, as cases run one at a time. NULL after bb_error when out of memory. */
static inline char *engine_scratch(size_t n)
{
	static char *p;
	static size_t cap;

	if (n > cap) {
		char *q = (char *)bb_realloc(p, n);
		if (!q) {
			bb_error("out of memory");
			return NULL;
		}
		p = q;
		cap = n;
	}
	return p;
}

/* engine_text makes the host's text of case c (bb_case_bytes: none for a case without bytes). 0, or -1 after
 * bb_error. */
static inline int engine_text(const bb_case *c, char **text, size_t *len)
{
	int32_t bytes = bb_case_bytes(c->name);

	*len = bytes > 0 ? (size_t)bytes : 0;
	if (*len > 0 && !(*text = bb_text_new(*len))) {
		bb_error("out of memory");
		return -1;
	}
	return 0;
}

/* engine_heap counts the live allocations of one engine heap made on engine_realloc: a floor whose engine takes an
 * allocator from its embedder (Duktape's duk_create_heap, MuJS's js_newstate) keeps one in its state and counts
 * through it, as engine_quickjs.c counts QuickJS's; BB_ENGINE_COUNTED then gives the memory pass its hooks. */
typedef struct engine_heap {
	int64_t bytes, allocs;
} engine_heap;

/* engine_header is in front of each block of a counted heap: its size, for the live counts. */
typedef union engine_header {
	size_t size;
	max_align_t align;
} engine_header;

/* engine_counting says whether the heap made next is counted (the memory pass's set-up); engine_live is that heap,
 * until it is freed: the case's, whose live counts the memory record reports. */
static inline int *engine_counting(void)
{
	static int on;
	return &on;
}

static inline engine_heap **engine_live(void)
{
	static engine_heap *h;
	return &h;
}

/* engine_heap_begin starts h for a heap about to be made and returns 1 when it is to be counted (the floor then
 * gives the engine its allocator over engine_realloc), 0 when the engine keeps its own. */
static inline int engine_heap_begin(engine_heap *h)
{
	memset(h, 0, sizeof *h);
	if (!*engine_counting())
		return 0;
	*engine_live() = h;
	return 1;
}

/* engine_heap_end comes after the heap of h is freed. */
static inline void engine_heap_end(engine_heap *h)
{
	if (*engine_live() == h)
		*engine_live() = NULL;
}

/* engine_realloc is realloc for a counted heap h: p NULL allocates, size 0 frees (and returns NULL). Each allocation
 * and reallocation is counted (harness_count_engine), as QuickJS's are. */
static inline void *engine_realloc(engine_heap *h, void *p, size_t size)
{
	engine_header *b = p ? (engine_header *)p - 1 : NULL;

	if (size == 0) {
		if (b) {
			h->bytes -= (int64_t)b->size;
			h->allocs--;
			free(b);
		}
		return NULL;
	}
	if (size > SIZE_MAX - sizeof *b)
		return NULL;
	{
		size_t old = b ? b->size : 0;
		engine_header *q = (engine_header *)realloc(b, sizeof *q + size);

		if (!q)
			return NULL;
		q->size = size;
		h->bytes += (int64_t)size - (int64_t)old;
		h->allocs += b ? 0 : 1;
		harness_count_engine(size);
		return q + 1;
	}
}

/* BB_ENGINE_COUNTED defines the memory pass's hooks (engine.h) for a floor that counts through engine_realloc. */
#define BB_ENGINE_COUNTED                                        \
	int bb_engine_count_setup(int on)                        \
	{                                                        \
		if (on)                                          \
			*engine_live() = NULL;                   \
		*engine_counting() = on;                         \
		return 1;                                        \
	}                                                        \
	int bb_engine_heap(int64_t *bytes, int64_t *allocs)      \
	{                                                        \
		if (!*engine_live())                             \
			return 0;                                \
		*bytes = (*engine_live())->bytes;                \
		*allocs = (*engine_live())->allocs;              \
		return 1;                                        \
	}

#endif

#if defined(BB_STATE) && !defined(BB_ENGINE_CASES_H)
#define BB_ENGINE_CASES_H

#include "case_loops.h"

/* bb_missing_cases: in a floor whose engine has no typed arrays, each case of them (cases.def's BB_CASE_TYPED_ARRAYS),
 * with why; none in the others. */
const bb_missing bb_missing_cases[] = {
#define BB_CASE(name, crossing, unit_ops, bytes, setup, run, script, op)
#ifdef BB_ENGINE_NO_TYPED_ARRAYS
#define BB_CASE_TYPED_ARRAYS(name, crossing, unit_ops, bytes, setup, run, script, op, why) \
	{#name, BB_ENGINE_NO_TYPED_ARRAYS why},
#else
#define BB_CASE_TYPED_ARRAYS(name, crossing, unit_ops, bytes, setup, run, script, op, why)
#endif
#include "cases.def"
#undef BB_CASE
#undef BB_CASE_TYPED_ARRAYS
	{NULL, NULL}};

#endif
