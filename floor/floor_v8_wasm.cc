// floor_v8_wasm.cc: the floor of V8's WebAssembly in this machine's node, hosted by JavaScript: the boundary a node
// program crosses when it runs a WebAssembly plugin. The guest is the catalogue in WebAssembly (floor/wasm/guest.wat,
// whose header is the contract; build puts its bytes in wasm_guest.h); the host is the JavaScript of host_js below,
// along the documented JavaScript API and its cheapest paths:
//
// - the module is compiled and instantiated synchronously (new WebAssembly.Module, new WebAssembly.Instance), one
//   instance per case, its imports plain JavaScript functions: V8 calls them from the guest through its wasm-to-JS
//   wrapper, and a JavaScript call of an export goes through its JS-to-wasm wrapper, both compiled by V8;
// - numbers cross as JavaScript numbers (i32 and f64 both ways);
// - texts, bytes and records are read and written in place in the guest's memory through typed-array views made once
//   (Uint8Array, Int32Array, Float64Array over memory.buffer, which never grows: the guest's memory is fixed);
// - the callback is the guest's table entry, WebAssembly.Table.prototype.get, called as a function;
// - a host error is a JavaScript exception thrown from an import, which unwinds the guest to the host's call; a guest
//   trap is a WebAssembly.RuntimeError caught at the host's call, its message read from the guest's memory.
//
// A C++ host through V8's API would cross more: an import made of a FunctionTemplate is called through the
// wasm-to-JS wrapper and then V8's API callback, and an export called with Function::Call enters V8 from C++ at each
// call (V8's floor measures that entry: floor_v8.cc). docs/engines.md says more.
//
// The host-side work is harness_host.c's, written in JavaScript with the same results: host_add's (a + b) % 1000003,
// host_upper's ASCII upper-casing, the UI table's set with its checks (the table is a Float64Array the harness's
// bb_ui_check reads), host_sum's and host_bytes's sums. Each host function and each host -> guest call counts one
// crossing in the hook cells, as bb_crossing() does, and does --slowdown's busy work there (a xorshift chain, steps
// as the harness sets them); the harness adds the count to bb_crossings after each run.
//
// The timed loops of the host -> guest cases are JavaScript loops, as run_call_add's and the others' are C loops in
// case_loops.h: the host's side of a crossing is JavaScript's. The harness (compiled with -DBB_ENGINE_NONE
// -Dmain=bb_harness_main) speaks the protocol; node running the launcher calls this addon's main with the command
// line, as V8's floor does. Each case's host is compiled from host_js of its own (its source names the case), so that
// no case's type feedback or optimised code serves another. Before the timed loop, each host -> guest case runs the
// harness's check (bb_check_add, bb_check_text, bb_check_obj, bb_check_record) over the host's one-op function, which
// reads what comes back in the guest's memory; a script -> host case runs the guest's check_* export, and
// error_script_to_host the floor's check_trap (V8 names a guest's frame "guest.fail", not "fail").
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <node.h>
#include <v8.h>

#include "engine.h"
#include "harness_core.h"
#include "node_addon.h"

#include "wasm_guest.h"

const char *const bb_program = "floor";
const char *const bb_codec = nullptr;

void bb_engine_meta(void)
{
	std::printf("meta engine v8-wasm %s\n", v8::V8::GetVersion());
}

BB_ENGINE_UNCOUNTED

namespace {

using v8::Local;
using v8::Value;

// host_js is a function of (guest, hook, extraAlloc, name, nbytes, hostText), the guest's bytes, the hook cells, the
// function that makes BB_EXTRA_ALLOC's allocation, the case's name, its bytes and the host's text of them; it returns
// the case's host: run(n), the timed loop of n units; op, one host -> guest call for the harness's check; check, which
// of the harness's checks to run (none when the guest checked itself); ui, the UI table; memory, the guest's buffer.
const char host_js[] = R"js(
(function (guest, hook, extraAlloc, name, nbytes, hostText) {
  'use strict';
  // hook: [crossings, 1 when there is work, busy-work steps per crossing and 1/256ths of a step, BB_EXTRA_ALLOC]. The
  // steps are one dependent xorshift chain through every call, in int32 arithmetic, as harness_timing.c's spin.
  let carry = 0, chain = 0x2545f491;
  function busy() {
    if (hook[4] !== 0) extraAlloc();
    let steps = hook[2];
    carry += hook[3];
    if (carry >= 256) { carry -= 256; steps++; }
    let a = chain;
    for (let k = 0; k < steps; k++) { a ^= a << 13; a ^= a >> 17; a ^= a << 5; }
    chain = a;
  }
  function crossing() { hook[0]++; if (hook[1] !== 0) busy(); }

  // The UI table (harness_host.c's bb_ui: 64 nodes of 8 keys) and its keys.
  const ui = new Float64Array(64 * 8);
  const KEYS = ['x', 'y', 'w', 'h', 'color', 'text', 'opacity', 'visible'];
  function uiKey(p, len) {
    for (let k = 0; k < KEYS.length; k++) {
      const key = KEYS[k];
      if (key.length !== len) continue;
      let j = 0;
      while (j < len && u8[p + j] === key.charCodeAt(j)) j++;
      if (j === len) return k;
    }
    return -1;
  }
  function uiSet(id, key, value) {
    if (!(id >= 0 && id < 64) || !(key >= 0 && key < 8)) return false;  // refuses NaN too
    ui[(id | 0) * 8 + (key | 0)] = value;
    return true;
  }
  function setNode(p) {
    crossing();
    if (!uiSet(i32[p >> 2], uiKey(i32[(p + 4) >> 2], i32[(p + 8) >> 2]), f64[(p + 16) >> 3]))
      throw new RangeError('bad node or key');
  }

  // The Obj the guest passes, read whole as a typed host lifts it (its strings as ptr and len, in place).
  const obj = {id: 0, name: 0, nameLen: 0, x: 0, y: 0, tags: [0, 0, 0, 0, 0, 0], a: 0, b: 0};
  function readObj(p) {
    obj.id = i32[p >> 2]; obj.name = i32[(p + 4) >> 2]; obj.nameLen = i32[(p + 8) >> 2];
    obj.x = f64[(p + 16) >> 3]; obj.y = f64[(p + 24) >> 3];
    for (let t = 0; t < 6; t++) obj.tags[t] = i32[((p + 32) >> 2) + t];
    obj.a = f64[(p + 56) >> 3]; obj.b = f64[(p + 64) >> 3];
  }

  let callback = null;
  const imports = {bb: {
    host_add(a, b) { crossing(); return (a + b) % 1000003; },
    host_upper(p, len, out) {
      crossing();
      for (let i = 0; i < len; i++) { const c = u8[p + i]; u8[out + i] = c >= 97 && c <= 122 ? c - 32 : c; }
      return len;
    },
    host_obj(p, out) {
      crossing();
      readObj(p);
      i32[out >> 2] = (obj.id + 1) | 0; u8[out + 4] = 1; f64[(out + 8) >> 3] = obj.x + obj.y;
    },
    host_record(p, out) {
      crossing();
      i32[out >> 2] = (i32[p >> 2] + 1) | 0; i32[(out + 4) >> 2] = i32[(p + 4) >> 2]; i32[(out + 8) >> 2] = i32[(p + 8) >> 2];
    },
    host_sum(p, count) {
      crossing();
      if (count !== 64) throw new RangeError('host_sum: expected 64 numbers');
      let s = 0;
      for (let i = 0, at = p >> 3; i < count; i++) s += f64[at + i];
      return s;
    },
    host_bytes(p, len) {
      crossing();
      let s = 0;
      for (let i = 0; i < len; i++) s += u8[p + i];
      return s;
    },
    host_fail(i) { crossing(); throw new Error('host_fail: refused ' + i); },
    host_register(index) { callback = exports.callbacks.get(index); },
    set_prop(id, keyPtr, keyLen, value) {
      crossing();
      if (!uiSet(id, uiKey(keyPtr, keyLen), value)) throw new RangeError('set_prop: bad node or key');
    },
    apply_ops(p, count) {
      crossing();
      let ok = count % 3 === 0;
      for (let i = 0, at = p >> 3; ok && i < count; i += 3) ok = uiSet(f64[at + i], f64[at + i + 1], f64[at + i + 2]);
      if (!ok) throw new RangeError('apply_ops: bad node or key');
    },
    set_node: setNode,
    apply_batch(p, count) { for (let k = 0; k < count; k++) setNode(p + 24 * k); },
  }};
  const exports = new WebAssembly.Instance(new WebAssembly.Module(guest), imports).exports;
  const memory = exports.memory.buffer;
  const u8 = new Uint8Array(memory), i32 = new Int32Array(memory), f64 = new Float64Array(memory);
  exports.init(nbytes);

  // The host -> guest calls, each one op of the case, and their loops (case_loops.h's run_call_*).
  const textIn = exports.text_in.value;
  function loopAdd(call) { return function (n) { let s = 0; for (let i = 0; i < n; i++) s = call(s, i); return s; }; }
  function loopSum(call, sum) {
    return function (n) { let s = 0; for (let i = 0; i < n; i++) s += sum(call(i & 0x7fffffff)); return s; };
  }
  function sendText() { crossing(); u8.set(hostText, textIn); return text(textIn, nbytes); }
  const text = exports.text, add = exports.add, guestObj = exports.obj, record = exports.record;
  const objIn = exports.obj_in.value, recordIn = exports.record_in.value;
  const objStrings = new TextEncoder().encode('node-\u00e9abbccc');  // ObjSample's name and tags, after the Obj
  function sendObj(id) {
    crossing();
    const p = objIn, s = p + 72;
    u8.set(objStrings, s);
    i32[p >> 2] = id; i32[(p + 4) >> 2] = s; i32[(p + 8) >> 2] = 7;
    f64[(p + 16) >> 3] = 1.5; f64[(p + 24) >> 3] = 2.25;
    i32[(p + 32) >> 2] = s + 7; i32[(p + 36) >> 2] = 1; i32[(p + 40) >> 2] = s + 8; i32[(p + 44) >> 2] = 2;
    i32[(p + 48) >> 2] = s + 10; i32[(p + 52) >> 2] = 3;
    f64[(p + 56) >> 3] = 3; f64[(p + 64) >> 3] = 4;
    return guestObj(p);
  }
  function sendRecord(id) {
    crossing();
    u8.set(hostText, textIn);
    i32[recordIn >> 2] = id; i32[(recordIn + 4) >> 2] = textIn; i32[(recordIn + 8) >> 2] = nbytes;
    return record(recordIn);
  }
  const errorHost = exports.error_host;
  function hostError(i) {
    crossing();
    try { errorHost(i); } catch (e) { return e.message; }
    throw new Error('error_host(' + i + ') returned instead of trapping');
  }
  const fail = exports.fail, err = exports.err.value, decoder = new TextDecoder();
  function scriptError(i) {
    crossing();
    try { fail(i); } catch (e) {
      return 'Error: ' + decoder.decode(u8.subarray(err + 4, err + 4 + i32[err >> 2])) + '\n' + e.stack;
    }
    throw new Error('fail(' + i + ') returned instead of trapping');
  }

  const guestLoop = (check, bench) => { check(); return {run: bench}; };
  const uiLoop = (bench) => ({run: bench, check: 'ui', ui});
  switch (name) {
  case 'ref_js_loop': return guestLoop(exports.check_ref, exports.bench_ref);
  case 'script_to_host_scalar': return guestLoop(exports.check_scalar, exports.bench_scalar);
  case 'script_to_host_string_16': case 'script_to_host_string_1k': case 'script_to_host_string_64k':
    return guestLoop(exports.check_string, exports.bench_string);
  case 'script_to_host_object': return guestLoop(exports.check_object, exports.bench_object);
  case 'script_to_host_object_string_16': case 'script_to_host_object_string_1k':
  case 'script_to_host_object_string_64k':
    return guestLoop(exports.check_record, exports.bench_record);
  case 'script_to_host_array': return guestLoop(exports.check_array, exports.bench_array);
  case 'bytes_64k': return guestLoop(exports.check_bytes, exports.bench_bytes);
  case 'ui_ops_calls': return uiLoop(exports.bench_ui_calls);
  case 'ui_ops_buffer': return uiLoop(exports.bench_ui_buffer);
  case 'ui_ops_object_calls': return uiLoop(exports.bench_ui_object_calls);
  case 'ui_ops_object_batch': return uiLoop(exports.bench_ui_object_batch);
  case 'host_to_script_scalar': {
    const op = (a, b) => { crossing(); return add(a, b); };
    return {run: loopAdd(op), op, check: 'add', memory};
  }
  case 'host_to_script_string_16': case 'host_to_script_string_1k': case 'host_to_script_string_64k':
    return {run: loopSum(sendText, (r) => r[1]), op: sendText, check: 'text', memory};
  case 'host_to_script_object':
    return {run: loopSum(sendObj, (out) => f64[(out + 8) >> 3] + i32[out >> 2]), op: sendObj, check: 'obj', memory};
  case 'host_to_script_object_string_16': case 'host_to_script_object_string_1k':
  case 'host_to_script_object_string_64k':
    return {run: loopSum(sendRecord, (out) => i32[out >> 2] + i32[(out + 8) >> 2]), op: sendRecord, check: 'record',
            memory};
  case 'callback': {
    exports.register();
    if (callback === null) throw new Error('the guest registered no callback');
    const cb = callback, op = (a, b) => { crossing(); return cb(a, b); };
    return {run: loopAdd(op), op, check: 'add', memory};
  }
  case 'error_host_to_script': {
    const got = hostError(7);
    if (got !== 'host_fail: refused 7') throw new Error('error_host(7) threw ' + got + ', want host_fail: refused 7');
    return {run: loopSum(hostError, (m) => m.length)};
  }
  case 'error_script_to_host':
    return {run: loopSum(scriptError, (t) => t.length), op: scriptError, check: 'trap', memory};
  }
  throw new Error('the guest has no case ' + name);
})
)js";

v8::Isolate *iso;
v8::Global<v8::Context> node_ctx;       // node's main context: the host's JavaScript runs there, as a node program's
v8::Global<v8::ArrayBuffer> guest;      // the guest's bytes
v8::Global<v8::Float64Array> hook_view; // the hook cells (host_js's hook)
double *hook;

enum { HOOK_CROSSINGS, HOOK_ON, HOOK_STEPS, HOOK_PART, HOOK_ALLOC, HOOK_CELLS };

// What cases.def says of each case besides its functions, in bb_cases' order.
const struct {
	uint64_t unit_ops;
} case_facts[] = {
#define BB_CASE(name, crossing, unit_ops, bytes, setup, run, script, op) {unit_ops},
#define BB_CASE_TYPED_ARRAYS(name, crossing, unit_ops, bytes, setup, run, script, op, why) {unit_ops},
#include "cases.def"
#undef BB_CASE
#undef BB_CASE_TYPED_ARRAYS
};

struct State {
	v8::Global<v8::Function> run, op; // the timed loop, one host -> guest call
	const uint8_t *memory = nullptr;  // the guest's memory, for the harness's checks of what a call returns
	uint64_t unit_ops = 1;
	char *text = nullptr; // the host's text of a case with bytes
	size_t text_len = 0;
	std::string out; // the text of the last error_script_to_host call, as UTF-8
};

// fail turns the exception tc caught into bb_error and returns -1.
int fail(const v8::TryCatch &tc) { return bb_node::fail(iso, tc); }

// sync adds the crossings the host counted to bb_crossings and gives it the busy work the harness asks for now.
void sync()
{
	bb_crossings += uint64_t(hook[HOOK_CROSSINGS]);
	hook[HOOK_CROSSINGS] = 0;
	hook[HOOK_ON] = (bb_slowdown_q8 | bb_extra_alloc) ? 1 : 0;
	hook[HOOK_STEPS] = double(bb_slowdown_q8 >> 8);
	hook[HOOK_PART] = double(bb_slowdown_q8 & 255);
	hook[HOOK_ALLOC] = double(bb_extra_alloc);
}

// extra_alloc is BB_EXTRA_ALLOC's host allocation of one crossing (harness_timing.c's bb_slowdown makes it so).
void extra_alloc(const v8::FunctionCallbackInfo<Value> &)
{
	static void *volatile extra;

	extra = bb_malloc(16);
	bb_free(extra);
}

Local<v8::String> str(const char *s, size_t len)
{
	return v8::String::NewFromUtf8(iso, s, v8::NewStringType::kNormal, int(len)).ToLocalChecked();
}

Local<v8::String> str(const char *s)
{
	return str(s, std::strlen(s));
}

// Call is what a call into the host's JavaScript runs in: a HandleScope, node's context entered, a TryCatch.
struct Call {
	v8::HandleScope hs;
	Local<v8::Context> ctx;
	v8::Context::Scope cs;
	v8::TryCatch tc;

	Call() : hs(iso), ctx(node_ctx.Get(iso)), cs(ctx), tc(iso)
	{
	}
};

// call calls f with argc arguments, then adds the crossings to the harness's.
bool call(Call &c, const v8::Global<v8::Function> &f, int argc, Local<Value> argv[], Local<Value> *r)
{
	sync();
	bool ok = f.Get(iso)->Call(c.ctx, v8::Undefined(iso), argc, argv).ToLocal(r);
	sync();
	return ok;
}

// guest_i32 reads an i32 of the guest's memory (little-endian, as the host's).
int32_t guest_i32(const State *st, int32_t at)
{
	int32_t v;

	std::memcpy(&v, st->memory + at, sizeof v);
	return v;
}

// ==== The host -> guest calls of the harness's checks (harness_core.h's bb_check_*) ====

int call_add(void *p, double a, double b, double *out)
{
	State *st = static_cast<State *>(p);
	Call c;
	Local<Value> args[2] = {v8::Number::New(iso, a), v8::Number::New(iso, b)}, r;

	return call(c, st->op, 2, args, &r) && r->NumberValue(c.ctx).To(out) ? 0 : fail(c.tc);
}

// call_text: what comes back is (ptr, len) of the guest's memory.
int call_text(void *p, const bb_str *, bb_str *out)
{
	State *st = static_cast<State *>(p);
	Call c;
	Local<Value> r, ptr, len;
	int32_t at, n;

	if (!call(c, st->op, 0, nullptr, &r) || !r->IsArray() || !r.As<v8::Array>()->Get(c.ctx, 0).ToLocal(&ptr) ||
	    !r.As<v8::Array>()->Get(c.ctx, 1).ToLocal(&len) || !ptr->Int32Value(c.ctx).To(&at) ||
	    !len->Int32Value(c.ctx).To(&n))
		return fail(c.tc);
	out->p = reinterpret_cast<const char *>(st->memory + at);
	out->len = size_t(n);
	return 0;
}

// result_of calls op(id), which returns where the guest wrote its result; -1 after bb_error.
int32_t result_of(State *st, int32_t id)
{
	Call c;
	Local<Value> arg = v8::Integer::New(iso, id), r;
	int32_t at;

	return call(c, st->op, 1, &arg, &r) && r->Int32Value(c.ctx).To(&at) && at >= 0 ? at : fail(c.tc);
}

// call_obj: the host writes ObjSample(in->id) (what bb_obj_sample makes), the guest its ObjOut.
int call_obj(void *p, const bb_obj_in *in, bb_obj_out *out)
{
	State *st = static_cast<State *>(p);
	int32_t at = result_of(st, in->id);

	if (at < 0)
		return -1;
	out->id = guest_i32(st, at);
	out->ok = st->memory[at + 4];
	std::memcpy(&out->x, st->memory + at + 8, sizeof out->x);
	return 0;
}

// call_record: the host writes a Record of in->id and its text, the guest a Record whose text is in its memory.
int call_record(void *p, const bb_record *in, bb_record *out)
{
	State *st = static_cast<State *>(p);
	int32_t at = result_of(st, in->id);

	if (at < 0)
		return -1;
	out->id = guest_i32(st, at);
	out->text.p = reinterpret_cast<const char *>(st->memory + guest_i32(st, at + 4));
	out->text.len = size_t(guest_i32(st, at + 8));
	return 0;
}

// call_fail: the error's text as the host made it, in st->out until the next call.
int call_fail(void *p, int32_t i, bb_str *text)
{
	State *st = static_cast<State *>(p);
	Call c;
	Local<Value> arg = v8::Integer::New(iso, i), r;

	if (!call(c, st->op, 1, &arg, &r))
		return fail(c.tc);
	v8::String::Utf8Value s(iso, r);
	st->out.assign(*s ? *s : "", *s ? size_t(s.length()) : 0);
	text->p = st->out.data();
	text->len = st->out.size();
	return 0;
}

// check_trap checks fail(12)'s text: the guest's message, then V8's stack of the trap, whose frame of the guest's
// function names it ("at fail (wasm://..." or, the guest's module being named, "at guest.fail (wasm://..."), where
// bb_check_script_error looks for a JavaScript function's frame.
int check_trap(State *st)
{
	static const char want[] = "Error: script_fail: refused 12\n";
	bb_str text;

	if (call_fail(st, 12, &text) < 0)
		return -1;
	if (text.len < sizeof want - 1 || std::memcmp(text.p, want, sizeof want - 1) != 0) {
		bb_error("fail(12) trapped with %.*s, want %s and the trap's stack", int(text.len < 80 ? text.len : 80), text.p, want);
		return -1;
	}
	if (!std::strstr(text.p + sizeof want - 1, "fail (wasm://")) {
		bb_error("the stack of fail(12)'s trap has no frame of fail: %.*s", int(text.len < 200 ? text.len : 200), text.p);
		return -1;
	}
	return 0;
}

// ==== The case table ====

int run(void *p, uint64_t n, uint64_t *ops)
{
	State *st = static_cast<State *>(p);
	Call c;
	Local<Value> arg = v8::Number::New(iso, double(n)), r;
	double result;

	if (!call(c, st->run, 1, &arg, &r) || !r->NumberValue(c.ctx).To(&result))
		return fail(c.tc);
	bb_sink += result;
	*ops = n * st->unit_ops;
	return 0;
}

// check runs the harness's check that host names (none when the guest checked itself at set-up).
int check(State *st, const std::string &what, double *ui)
{
	bb_str text = {st->text, st->text_len};
	uint64_t ops;

	if (what == "add")
		return bb_check_add(st, call_add);
	if (what == "text")
		return bb_check_text(st, text, call_text);
	if (what == "obj")
		return bb_check_obj(st, call_obj);
	if (what == "record")
		return bb_check_record(st, text, call_record);
	if (what == "trap")
		return check_trap(st);
	if (what == "ui") { // three frames leave the table as the scripts' would
		if (run(st, 3, &ops) < 0 || bb_ui_check(reinterpret_cast<const bb_ui *>(ui), 3) < 0)
			return -1;
		std::memset(ui, 0, sizeof(bb_ui));
		return 0;
	}
	if (!what.empty()) {
		bb_error("the host names no check %s", what.c_str());
		return -1;
	}
	return 0;
}

// prop reads host's property key, undefined when it has none.
bool prop(Call &c, Local<v8::Object> host, const char *key, Local<Value> *out)
{
	return host->Get(c.ctx, str(key)).ToLocal(out);
}

// setup makes the case's host (host_js, compiled for the case) over a fresh instance of the guest.
int setup(const bb_case *cs, void **out)
{
	State *st = new State();
	*out = st;
	st->unit_ops = case_facts[cs - bb_cases].unit_ops;
	int32_t bytes = bb_case_bytes(cs->name);
	st->text_len = bytes > 0 ? size_t(bytes) : 0;
	if (st->text_len > 0 && !(st->text = bb_text_new(st->text_len))) {
		bb_error("out of memory");
		return -1;
	}
	Call c;
	std::string src = std::string("// the host of ") + cs->name + "\n" + host_js;
	Local<v8::Script> script;
	Local<Value> factory, host, run_fn, op, what, ui, memory;
	Local<v8::ArrayBuffer> text = v8::ArrayBuffer::New(iso, st->text_len);
	if (st->text_len > 0)
		std::memcpy(text->Data(), st->text, st->text_len);
	Local<Value> args[] = {guest.Get(iso), hook_view.Get(iso), v8::Function::New(c.ctx, extra_alloc).ToLocalChecked(),
			       str(cs->name), v8::Integer::New(iso, int32_t(st->text_len)),
			       v8::Uint8Array::New(text, 0, st->text_len)};
	sync();
	if (!v8::Script::Compile(c.ctx, str(src.data(), src.size())).ToLocal(&script) || !script->Run(c.ctx).ToLocal(&factory) ||
	    !factory.As<v8::Function>()->Call(c.ctx, v8::Undefined(iso), 6, args).ToLocal(&host) || !host->IsObject()) {
		sync();
		return fail(c.tc);
	}
	sync();
	Local<v8::Object> h = host.As<v8::Object>();
	if (!prop(c, h, "run", &run_fn) || !prop(c, h, "op", &op) || !prop(c, h, "check", &what) || !prop(c, h, "ui", &ui) ||
	    !prop(c, h, "memory", &memory))
		return fail(c.tc);
	st->run.Reset(iso, run_fn.As<v8::Function>());
	if (op->IsFunction())
		st->op.Reset(iso, op.As<v8::Function>());
	if (memory->IsArrayBuffer())
		st->memory = static_cast<const uint8_t *>(memory.As<v8::ArrayBuffer>()->Data());
	double *table = nullptr;
	if (ui->IsFloat64Array())
		table = reinterpret_cast<double *>(static_cast<char *>(ui.As<v8::Float64Array>()->Buffer()->Data()) +
						   ui.As<v8::Float64Array>()->ByteOffset());
	return check(st, what->IsString() ? *v8::String::Utf8Value(iso, what) : "", table);
}

void teardown(void *p)
{
	State *st = static_cast<State *>(p);

	std::free(st->text);
	delete st; // its Globals let the host and the guest's instance go
}

// main is the addon's one export: main(argv) runs the harness with argv (the program's name first) and returns its
// exit status.
void main_(const v8::FunctionCallbackInfo<Value> &info)
{
	iso = info.GetIsolate();
	Local<v8::Context> ctx = iso->GetCurrentContext();
	Local<v8::Array> args = info[0].As<v8::Array>();

	node_ctx.Reset(iso, ctx);
	Local<v8::ArrayBuffer> wasm = v8::ArrayBuffer::New(iso, bb_wasm_guest_len);
	std::memcpy(wasm->Data(), bb_wasm_guest, bb_wasm_guest_len);
	guest.Reset(iso, wasm);
	Local<v8::Float64Array> cells = v8::Float64Array::New(v8::ArrayBuffer::New(iso, HOOK_CELLS * sizeof(double)), 0, HOOK_CELLS);
	hook_view.Reset(iso, cells);
	hook = static_cast<double *>(cells->Buffer()->Data());
	int rc = bb_node::run_harness(iso, ctx, args);
	// node disposes of the isolate after main returns: no handle may outlive it
	hook_view.Reset();
	guest.Reset();
	node_ctx.Reset();
	info.GetReturnValue().Set(rc);
}

void init(Local<v8::Object> exports)
{
	NODE_SET_METHOD(exports, "main", main_);
}

} // namespace

// Every case of cases.def: the guest has them all.
const bb_case bb_cases[] = {
#define BB_CASE(name, crossing, unit_ops, bytes, setup_, run_, script, op) {#name, setup, run, teardown},
#define BB_CASE_TYPED_ARRAYS(name, crossing, unit_ops, bytes, setup_, run_, script, op, why) {#name, setup, run, teardown},
#include "cases.def"
#undef BB_CASE
#undef BB_CASE_TYPED_ARRAYS
};
const int bb_ncases = sizeof bb_cases / sizeof bb_cases[0];

NODE_MODULE(NODE_GYP_MODULE_NAME, init)
