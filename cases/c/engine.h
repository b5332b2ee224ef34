/* engine.h: what the harness's engine-free core asks of the engine a program runs on. One adapter per engine provides
 * it (engine_quickjs.c, engine_jsc.c); a program over an engine without one defines these itself and builds with
 * -DBB_ENGINE_NONE (harness.c). */
#ifndef BB_ENGINE_H
#define BB_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* bb_engine_meta prints the engine's meta lines in the header: `meta engine NAME VERSION` (docs/protocol.md), then
 * any of its own (QuickJS: `meta quickjs VERSION`). */
void bb_engine_meta(void);

/* bb_engine_count_setup(1) comes before the memory pass sets its case up, bb_engine_count_setup(0) after: an engine
 * made in between runs on an allocator that reports each allocation with harness_count_engine (and keeps counting
 * for the case's life). It returns 1 when the engine's allocations are counted so; 0 for an engine that takes no
 * allocator from its embedder, whose memory record then has the host's counts alone. */
int bb_engine_count_setup(int on);

/* bb_engine_heap stores the live heap of the engine made last and not yet freed (the case's) and returns 1; 0 when
 * there is none or the engine cannot tell. */
int bb_engine_heap(int64_t *bytes, int64_t *allocs);

/* BB_ENGINE_UNCOUNTED defines bb_engine_count_setup and bb_engine_heap for an engine whose allocations the harness
 * does not count (it takes no allocator from its embedder, or its adapter gives it none yet): its memory records have
 * the host's counts alone. */
#define BB_ENGINE_UNCOUNTED                                  \
	int bb_engine_count_setup(int on)                    \
	{                                                    \
		(void)on;                                    \
		return 0;                                    \
	}                                                    \
	int bb_engine_heap(int64_t *bytes, int64_t *allocs)  \
	{                                                    \
		(void)bytes, (void)allocs;                   \
		return 0;                                    \
	}

/* harness_count_engine (the core's, harness_memory.c) counts one allocation of size bytes by the engine, while the
 * memory pass counts. */
void harness_count_engine(size_t size);

#ifdef __cplusplus
}
#endif

#endif
