// plain.cjs: the plain loop of V8's WebAssembly's floor (floor/floor_v8_wasm.cc), outside the harness, written
// straight against node's WebAssembly API: the guest catalogue (floor/wasm/guest.wat, compiled) instantiated with a
// JavaScript host_add, its bench_ref loop (ref_js_loop) and its bench_scalar loop, which calls host_add
// (script_to_host_scalar), timed in alternating runs of at least MIN_TIME_NS each. It prints the least ns/op of each:
//
//   node plain.cjs GUEST.wasm MIN_TIME_NS RUNS   ->   REF_NS SCALAR_NS
'use strict';
const fs = require('fs');

const [guestPath, minTimeNs, runs] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
if (!guestPath || !(minTimeNs > 0) || !(runs > 0)) {
  console.error('usage: node plain.cjs GUEST.wasm MIN_TIME_NS RUNS');
  process.exit(2);
}
const compiled = new WebAssembly.Module(fs.readFileSync(guestPath));
// host_add is the one import the two loops call; the guest imports the others, which the plain loop never calls.
const bb = {host_add: (a, b) => (a + b) % 1000003};
for (const imp of WebAssembly.Module.imports(compiled)) {
  if (!(imp.name in bb)) bb[imp.name] = () => { throw new Error(imp.name + ' is not the plain loop\'s'); };
}
const guest = new WebAssembly.Instance(compiled, {bb}).exports;
guest.init(0);

function time(loop, n) {
  const t0 = process.hrtime.bigint();
  loop(n);
  return Number(process.hrtime.bigint() - t0);
}

// units runs loop with more units each time, until a run lasts at least minTimeNs, and returns their number (the
// guest's loops count in an i32).
function units(loop) {
  for (let n = 1; ;) {
    const ns = time(loop, n);
    if (ns >= minTimeNs || n >= 1e9) return n;
    n = Math.min(1e9, Math.ceil(n * Math.min(10, 1.4 * minTimeNs / Math.max(ns, 1))));
  }
}

// Each loop is warmed up first, as the harness warms a case up for its min time: V8 compiles the guest's functions
// with Liftoff and then, once they are hot, with TurboFan in the background, and a call already running keeps
// Liftoff's code.
const loops = [guest.bench_ref, guest.bench_scalar];
loops.forEach(units);
const n = loops.map(units), best = [Infinity, Infinity];
for (let r = 0; r < runs; r++) {
  loops.forEach((loop, i) => { best[i] = Math.min(best[i], time(loop, n[i]) / n[i]); });
}
console.log(best[0] + ' ' + best[1]);
