// gbench_floor.cc: Google Benchmark (Debian's libbenchmark-dev) timing the floor's own cases, for the check in
// docs/method.md that bench-bridge's floor measures what an established harness measures. It links floor.c and the
// harness's C files as they are (harness.c's main renamed with -Dmain=bb_harness_main), so that the JavaScript, the
// host function and the loop are the very ones `bench-bridge floor` times; only the harness around them differs.
#include <benchmark/benchmark.h>

#include <cstring>

extern "C" {
#include "harness.h"
}

namespace {

const bb_case *find(const char *name)
{
	for (int i = 0; i < bb_ncases; i++)
		if (std::strcmp(bb_cases[i].name, name) == 0)
			return &bb_cases[i];
	return nullptr;
}

// units is the loop units per benchmark iteration: bench(1000) makes 1000 crossings, so that the call into the
// script is spread over many ops, as in bench-bridge's calibrated samples.
constexpr uint64_t units = 1000;

void run_case(benchmark::State &st, const char *name)
{
	const bb_case *c = find(name);
	void *state = nullptr;
	if (!c || c->setup(c, &state) < 0) {
		st.SkipWithError("set-up failed");
		return;
	}
	uint64_t ops = 0, total = 0;
	for (auto _ : st) {
		if (c->run(state, units, &ops) < 0) {
			st.SkipWithError("run failed");
			break;
		}
		total += ops;
	}
	// seconds per op: the inverse of a rate of ops per second.
	st.counters["ns_per_op"] = benchmark::Counter(static_cast<double>(total),
						      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
	c->teardown(state);
}

void BM_ref_js_loop(benchmark::State &st) { run_case(st, "ref_js_loop"); }
void BM_script_to_host_scalar(benchmark::State &st) { run_case(st, "script_to_host_scalar"); }

} // namespace

// Wall time, as bench-bridge measures it (the default, CPU time, leaves out the time the process waits for a core).
BENCHMARK(BM_ref_js_loop)->UseRealTime();
BENCHMARK(BM_script_to_host_scalar)->UseRealTime();
BENCHMARK_MAIN();
