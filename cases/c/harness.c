/* harness.c: the whole harness in one file to compile, over the engine the program uses: QuickJS (engine_quickjs.c)
 * unless the build defines BB_ENGINE_JSC (JavaScriptCore's C API: engine_jsc.c) or BB_ENGINE_NONE (the program then
 * defines engine.h's hooks itself). The protocol's core is engine-free: main and the records (harness_main.c), one
 * case's run (harness_measure.c), the clock and the slowdown hook (harness_timing.c), the memory pass and rss
 * (harness_memory.c), the host-side work (harness_host.c), the case scripts (harness_scripts.c) and the itimer profiler
 * (itimer.c); an engine_NAME.c adapter gives it what only the engine knows (engine.h).
 *
 * Why one file that includes the others: builds written against the harness's documented interface must keep building.
 * Until 2026-12-01 docs/bridge.md said to compile harness.c alone; since then, to compile every C file of
 * $BENCH_BRIDGE_HARNESS. Both link: harness.c brings every part, and each part compiled on its own is empty (its text
 * sits inside #ifdef BB_HARNESS_UNITY), so a build that compiles all the files gets each part once. cmd/bench-bridge's
 * TestFrozenHarnessBuild builds a bridge whose build files are frozen from the earlier release. */
#define BB_HARNESS_UNITY 1

#include "harness_main.c"
#include "harness_measure.c"
#include "harness_timing.c"
#include "harness_memory.c"
#include "harness_host.c"
#include "harness_scripts.c"
#include "itimer.c"

#if defined(BB_ENGINE_JSC)
#include "engine_jsc.c"
#elif !defined(BB_ENGINE_NONE)
#include "engine_quickjs.c"
#endif
