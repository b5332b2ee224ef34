// floor_v8.cc: the floor of V8, every case written straight against its C++ API as Node's headers give it (a Node
// addon), along its cheapest documented paths. The host-side work is the harness's (harness_host.c), as in
// floor/floor.c, and each host function reads, does and returns what floor.c's does.
//
// - A host function is a v8::FunctionTemplate callback (with floor.c's length, no constructor); a call into script is
//   v8::Function::Call, each in a HandleScope of its own, so that handles do not pile up over millions of calls.
// - Numbers cross as v8::Number (v8::Integer for an int32) and Value::NumberValue (Int32Value: ToInt32).
// - Strings as UTF-8 copies: String::NewFromUtf8 one way, String::WriteUtf8 into a buffer of 3 bytes a UTF-16 unit
//   the other (the capacity at which V8 writes without checking it, in one pass; the API has no view of a string's
//   bytes).
// - Properties are read by Object::Get with names internalized once (v8::Eternal), elements by Get(context, index); a
//   fresh object is Object::New and CreateDataProperty (an object literal's define, no setters looked up), a fresh
//   array Array::New of its elements.
// - A Float64Array's and a Uint8Array's memory is ArrayBufferView::Buffer()->Data() plus the view's ByteOffset, no
//   copy.
// - A host error is Isolate::ThrowException of v8::Exception::Error (RangeError, TypeError where floor.c throws one);
//   a script error's text, caught by a TryCatch (which captures no message), is its toString and its "stack"
//   (TryCatch::StackTrace), whose first line, V8's stack beginning with the toString, is not repeated. Node's stack
//   formatter, which gives a context that is not node's the toString alone, is set aside for V8's own.
//
// Node's headers ship no v8-fast-api-calls.h, so the fast API calls (a typed C function V8's optimising compiler calls
// directly, FunctionTemplate's c_function) are out of reach: this is the general callback path. The program is node
// running floor_v8.js, which calls this addon's main with the command line; the harness (compiled with
// -DBB_ENGINE_NONE -Dmain=bb_harness_main) then speaks the protocol as in any floor. Each case has a context of its
// own in node's isolate; the values the host keeps across calls (the function it calls) are v8::Global.
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

#include "engine_cases.h"

const char *const bb_program = "floor";
const char *const bb_codec = nullptr;

void bb_engine_meta(void)
{
	std::printf("meta engine v8 %s\n", v8::V8::GetVersion());
}

BB_ENGINE_UNCOUNTED

namespace {

using v8::Local;
using v8::Value;

v8::Isolate *iso;

// The property names the host reads and writes, internalized once for node's isolate.
#define VF_NAMES(X) X(id) X(name) X(x) X(y) X(tags) X(pos) X(a) X(b) X(ok) X(text) X(key) X(value) X(length)
enum {
#define VF_ENUM(n) K_##n,
	VF_NAMES(VF_ENUM)
#undef VF_ENUM
	K_COUNT
};

v8::Eternal<v8::String> names[K_COUNT];

Local<v8::String> name(int k)
{
	return names[k].Get(iso);
}

struct State {
	v8::Global<v8::Context> ctx;
	v8::Global<v8::Function> fn; // bench(n), or the function the host calls
	bb_ui ui;                    // what set_prop, apply_ops, set_node and apply_batch mutate
	uint64_t unit_ops = 1;       // ops per loop unit
	char *text = nullptr;        // the host's text of a case with bytes
	size_t text_len = 0;
	std::string err; // the text of the last script error the host caught
};

// live is the state whose case runs (cases run one at a time): the host functions find its UI table and
// host_register its function there.
State *live;

// scratch holds the UTF-8 copies of the strings a host function reads (and host_upper's result) and a host -> script
// call's string result (until the next call): engine_scratch's buffer, as utf8_all last grew it.
char *scratch;

// fail turns the exception tc caught into bb_error and returns -1.
int fail(const v8::TryCatch &tc) { return bb_node::fail(iso, tc); }

// ==== Errors ====

// throw_error throws a new error of message msg (v8::Exception::Error, RangeError or TypeError) into script.
void throw_error(Local<Value> (*make)(Local<v8::String>), const char *msg)
{
	iso->ThrowException(make(v8::String::NewFromUtf8(iso, msg).ToLocalChecked()));
}

// ==== Reading JavaScript values into host values ====
// Each returns false with an exception pending when the script's value throws (a getter, a toString, a bad type).

// utf8_all copies the n strings s[] one after another into scratch as UTF-8 (each NUL-terminated) and gives each in
// out[], in one growth of scratch. Out of memory throws (after bb_error).
bool utf8_all(const Local<v8::String> s[], bb_str out[], size_t n)
{
	size_t max = 0, off = 0, i;

	for (i = 0; i < n; i++)
		max += size_t(s[i]->Length()) * 3 + 1;
	if (!(scratch = engine_scratch(max))) {
		throw_error(v8::Exception::Error, "out of memory");
		return false;
	}
	for (i = 0; i < n; i++) {
		size_t k = size_t(s[i]->WriteUtf8(iso, scratch + off, int(max - off))); // it counts the NUL

		out[i].p = scratch + off;
		out[i].len = k - 1;
		off += k;
	}
	return true;
}

bool utf8_of(Local<v8::String> s, bb_str *out)
{
	return utf8_all(&s, out, 1);
}

bool to_str(Local<v8::Context> ctx, Local<Value> v, bb_str *out)
{
	Local<v8::String> s;

	return v->ToString(ctx).ToLocal(&s) && utf8_of(s, out);
}

// to_obj is v as an object: a TypeError for undefined and null, as reading a property of them is.
bool to_obj(Local<v8::Context> ctx, Local<Value> v, Local<v8::Object> *out)
{
	if (v->IsObject()) {
		*out = v.As<v8::Object>();
		return true;
	}
	return v->ToObject(ctx).ToLocal(out);
}

bool prop(Local<v8::Context> ctx, Local<v8::Object> o, int k, Local<Value> *out)
{
	return o->Get(ctx, name(k)).ToLocal(out);
}

bool prop_num(Local<v8::Context> ctx, Local<v8::Object> o, int k, double *out)
{
	Local<Value> v;

	return prop(ctx, o, k, &v) && v->NumberValue(ctx).To(out);
}

bool prop_int(Local<v8::Context> ctx, Local<v8::Object> o, int k, int32_t *out)
{
	Local<Value> v;

	return prop(ctx, o, k, &v) && v->Int32Value(ctx).To(out);
}

bool prop_str(Local<v8::Context> ctx, Local<v8::Object> o, int k, Local<v8::String> *out)
{
	Local<Value> v;

	return prop(ctx, o, k, &v) && v->ToString(ctx).ToLocal(out);
}

bool prop_obj(Local<v8::Context> ctx, Local<v8::Object> o, int k, Local<v8::Object> *out)
{
	Local<Value> v;

	return prop(ctx, o, k, &v) && to_obj(ctx, v, out);
}

// elem_size is the size of an element of typed array v; 0 when v is no typed array.
size_t elem_size(Local<Value> v)
{
	if (!v->IsTypedArray())
		return 0;
	if (v->IsFloat64Array() || v->IsBigInt64Array() || v->IsBigUint64Array())
		return 8;
	if (v->IsInt32Array() || v->IsUint32Array() || v->IsFloat32Array())
		return 4;
	if (v->IsInt16Array() || v->IsUint16Array())
		return 2;
	return 1;
}

// typed_data returns the memory of typed array v without copying, checking its element size, and its length in
// elements in *len; NULL with a TypeError thrown when it is no such array. The array keeps its buffer alive while
// the call runs.
const void *typed_data(Local<Value> v, size_t elem, size_t *len)
{
	if (elem_size(v) != elem) {
		char msg[64];

		std::snprintf(msg, sizeof msg, "expected a typed array of %u-byte elements", unsigned(elem));
		throw_error(v8::Exception::TypeError, msg);
		return nullptr;
	}
	Local<v8::TypedArray> a = v.As<v8::TypedArray>();
	*len = a->ByteLength() / elem;
	return static_cast<const char *>(a->Buffer()->Data()) + a->ByteOffset();
}

// obj_from_js reads the whole object of script_to_host_object; its strings are in scratch.
bool obj_from_js(Local<v8::Context> ctx, Local<Value> v, bb_obj_in *o)
{
	Local<v8::String> s[4]; // name, tags[0..2]
	bb_str t[4];
	Local<v8::Object> obj, tags, pos;

	if (!to_obj(ctx, v, &obj) || !prop_int(ctx, obj, K_id, &o->id) || !prop_str(ctx, obj, K_name, &s[0]) ||
	    !prop_num(ctx, obj, K_x, &o->x) || !prop_num(ctx, obj, K_y, &o->y) || !prop_obj(ctx, obj, K_tags, &tags))
		return false;
	for (uint32_t i = 0; i < 3; i++) {
		Local<Value> e;

		if (!tags->Get(ctx, i).ToLocal(&e) || !e->ToString(ctx).ToLocal(&s[1 + i]))
			return false;
	}
	if (!prop_obj(ctx, obj, K_pos, &pos) || !prop_num(ctx, pos, K_a, &o->pos_a) ||
	    !prop_num(ctx, pos, K_b, &o->pos_b) || !utf8_all(s, t, 4))
		return false;
	o->name = t[0];
	for (int i = 0; i < 3; i++)
		o->tags[i] = t[1 + i];
	return true;
}

bool obj_out_from_js(Local<v8::Context> ctx, Local<Value> v, bb_obj_out *o)
{
	Local<v8::Object> obj;
	Local<Value> ok;

	if (!to_obj(ctx, v, &obj) || !prop_int(ctx, obj, K_id, &o->id) || !prop_num(ctx, obj, K_x, &o->x) ||
	    !prop(ctx, obj, K_ok, &ok))
		return false;
	o->ok = ok->BooleanValue(iso);
	return true;
}

// record_from_js reads {id, text}; the text is in scratch.
bool record_from_js(Local<v8::Context> ctx, Local<Value> v, bb_record *out)
{
	Local<v8::Object> obj;
	Local<v8::String> s;

	return to_obj(ctx, v, &obj) && prop_int(ctx, obj, K_id, &out->id) && prop_str(ctx, obj, K_text, &s) &&
	       utf8_of(s, &out->text);
}

// ==== Making JavaScript values from host values ====

bool make_string(const bb_str &s, Local<Value> *out)
{
	Local<v8::String> v;

	if (!v8::String::NewFromUtf8(iso, s.p, v8::NewStringType::kNormal, int(s.len)).ToLocal(&v))
		return false;
	*out = v;
	return true;
}

// put adds property k to a fresh object.
bool put(Local<v8::Context> ctx, Local<v8::Object> o, int k, Local<Value> v)
{
	return o->CreateDataProperty(ctx, name(k), v).FromMaybe(false);
}

bool obj_out_to_js(Local<v8::Context> ctx, const bb_obj_out &r, Local<Value> *out)
{
	Local<v8::Object> o = v8::Object::New(iso);

	*out = o;
	return put(ctx, o, K_id, v8::Integer::New(iso, r.id)) && put(ctx, o, K_ok, v8::Boolean::New(iso, r.ok)) &&
	       put(ctx, o, K_x, v8::Number::New(iso, r.x));
}

// obj_in_to_js builds the whole object of host_to_script_object.
bool obj_in_to_js(Local<v8::Context> ctx, const bb_obj_in &in, Local<Value> *out)
{
	Local<Value> tag[3], s;

	for (int i = 0; i < 3; i++)
		if (!make_string(in.tags[i], &tag[i]))
			return false;
	Local<v8::Array> tags = v8::Array::New(iso, tag, 3);
	Local<v8::Object> pos = v8::Object::New(iso), o = v8::Object::New(iso);
	*out = o;
	return put(ctx, pos, K_a, v8::Number::New(iso, in.pos_a)) && put(ctx, pos, K_b, v8::Number::New(iso, in.pos_b)) &&
	       put(ctx, o, K_id, v8::Integer::New(iso, in.id)) && make_string(in.name, &s) && put(ctx, o, K_name, s) &&
	       put(ctx, o, K_x, v8::Number::New(iso, in.x)) && put(ctx, o, K_y, v8::Number::New(iso, in.y)) &&
	       put(ctx, o, K_tags, tags) && put(ctx, o, K_pos, pos);
}

bool record_to_js(Local<v8::Context> ctx, const bb_record &r, Local<Value> *out)
{
	Local<v8::Object> o = v8::Object::New(iso);
	Local<Value> s;

	*out = o;
	return put(ctx, o, K_id, v8::Integer::New(iso, r.id)) && make_string(r.text, &s) && put(ctx, o, K_text, s);
}

// ==== Host functions ====
// V8 runs each in a HandleScope of its own and gives undefined for an argument past the call's: floor.c's QuickJS
// pads argv so. A function that returns without a value returns undefined; one that throws returns with the exception
// pending.

using Args = v8::FunctionCallbackInfo<Value>;

void host_add(const Args &info)
{
	Local<v8::Context> ctx = iso->GetCurrentContext();
	double a, b;

	if (info[0]->NumberValue(ctx).To(&a) && info[1]->NumberValue(ctx).To(&b))
		info.GetReturnValue().Set(bb_add(a, b));
}

void host_upper(const Args &info)
{
	Local<Value> r;
	bb_str s;

	if (!to_str(iso->GetCurrentContext(), info[0], &s))
		return;
	bb_upper_ascii(scratch, s.p, s.len);
	if (make_string(bb_str{scratch, s.len}, &r))
		info.GetReturnValue().Set(r);
}

void host_obj(const Args &info)
{
	Local<v8::Context> ctx = iso->GetCurrentContext();
	bb_obj_in in;
	Local<Value> r;

	if (!obj_from_js(ctx, info[0], &in))
		return;
	bb_obj_out out = bb_obj_host(&in);
	if (obj_out_to_js(ctx, out, &r))
		info.GetReturnValue().Set(r);
}

void host_sum(const Args &info)
{
	Local<v8::Context> ctx = iso->GetCurrentContext();
	double v[BB_ARRAY_LEN], len;
	Local<v8::Object> a;

	if (!to_obj(ctx, info[0], &a) || !prop_num(ctx, a, K_length, &len))
		return;
	if (len != BB_ARRAY_LEN)
		return throw_error(v8::Exception::RangeError, "host_sum: expected 64 numbers");
	for (uint32_t i = 0; i < BB_ARRAY_LEN; i++) {
		Local<Value> e;

		if (!a->Get(ctx, i).ToLocal(&e) || !e->NumberValue(ctx).To(&v[i]))
			return;
	}
	info.GetReturnValue().Set(bb_sum(v, BB_ARRAY_LEN));
}

// host_register keeps the script's function in the live state, in place of the one it had.
void host_register(const Args &info)
{
	if (!info[0]->IsFunction())
		return throw_error(v8::Exception::TypeError, "host_register: not a function");
	live->fn.Reset(iso, info[0].As<v8::Function>());
}

void host_fail(const Args &info)
{
	char msg[64];
	int32_t i;

	if (!info[0]->Int32Value(iso->GetCurrentContext()).To(&i))
		return;
	bb_fail_message(msg, sizeof msg, i);
	throw_error(v8::Exception::Error, msg);
}

void set_prop(const Args &info)
{
	Local<v8::Context> ctx = iso->GetCurrentContext();
	double id, value;
	bb_str key;

	if (!info[0]->NumberValue(ctx).To(&id) || !to_str(ctx, info[1], &key))
		return;
	int k = bb_ui_key(key.p, key.len);
	if (!info[2]->NumberValue(ctx).To(&value))
		return;
	if (bb_ui_set(&live->ui, id, k, value) < 0)
		throw_error(v8::Exception::RangeError, "set_prop: bad node or key");
}

void apply_ops(const Args &info)
{
	size_t n;
	const double *ops = static_cast<const double *>(typed_data(info[0], sizeof(double), &n));

	if (ops && bb_ui_apply(&live->ui, ops, n) < 0)
		throw_error(v8::Exception::RangeError, "apply_ops: bad node or key");
}

void host_bytes(const Args &info)
{
	size_t n;
	const uint8_t *p = static_cast<const uint8_t *>(typed_data(info[0], 1, &n));

	if (p)
		info.GetReturnValue().Set(bb_bytes_sum(p, n));
}

void host_record(const Args &info)
{
	Local<v8::Context> ctx = iso->GetCurrentContext();
	bb_record in;
	Local<Value> r;

	if (!record_from_js(ctx, info[0], &in))
		return;
	bb_record out = bb_record_host(&in);
	if (record_to_js(ctx, out, &r))
		info.GetReturnValue().Set(r);
}

// apply_node applies the mutation {id, key, value}.
bool apply_node(Local<v8::Context> ctx, Local<Value> v)
{
	Local<v8::Object> o;
	Local<v8::String> s;
	double id, value;
	bb_str key;

	if (!to_obj(ctx, v, &o) || !prop_num(ctx, o, K_id, &id) || !prop_str(ctx, o, K_key, &s) || !utf8_of(s, &key) ||
	    !prop_num(ctx, o, K_value, &value))
		return false;
	if (bb_ui_set_named(&live->ui, id, key.p, key.len, value) < 0) {
		throw_error(v8::Exception::RangeError, "bad node or key");
		return false;
	}
	return true;
}

void set_node(const Args &info)
{
	apply_node(iso->GetCurrentContext(), info[0]);
}

void apply_batch(const Args &info)
{
	Local<v8::Context> ctx = iso->GetCurrentContext();
	Local<v8::Object> list;
	double len;

	if (!to_obj(ctx, info[0], &list) || !prop_num(ctx, list, K_length, &len))
		return;
	for (uint32_t i = 0; i < len; i++) {
		Local<Value> e;

		if (!list->Get(ctx, i).ToLocal(&e) || !apply_node(ctx, e))
			return;
	}
}

// The host functions: host_functions.h's list.
const struct {
	const char *name;
	v8::FunctionCallback fn;
	int length;
} host_fns[] = {BB_HOST_FNS(BB_HOST_ENTRY, BB_HOST_ENTRY)};

// ==== Host -> script calls ====

// Call is what a host -> script call runs in: a HandleScope, the state's context entered, a TryCatch. The TryCatch
// captures no message: with one, V8 makes a message object (the throw's location, found by walking the stack) at every
// throw beneath it, even one the script catches, and the host reads only the exception.
struct Call {
	v8::HandleScope hs;
	Local<v8::Context> ctx;
	v8::Context::Scope cs;
	v8::TryCatch tc;

	explicit Call(State *st) : hs(iso), ctx(st->ctx.Get(iso)), cs(ctx), tc(iso)
	{
		tc.SetCaptureMessage(false);
	}
};

// call calls st->fn with argc arguments.
bool call(State *st, Local<v8::Context> ctx, int argc, Local<Value> argv[], Local<Value> *r)
{
	bb_crossing();
	return st->fn.Get(iso)->Call(ctx, v8::Undefined(iso), argc, argv).ToLocal(r);
}

int call_add(void *p, double a, double b, double *out)
{
	State *st = static_cast<State *>(p);
	Call c(st);
	Local<Value> args[2] = {v8::Number::New(iso, a), v8::Number::New(iso, b)}, r;

	return call(st, c.ctx, 2, args, &r) && r->NumberValue(c.ctx).To(out) ? 0 : fail(c.tc);
}

// call_text: the text that comes back is in scratch until the next call.
int call_text(void *p, const bb_str *in, bb_str *out)
{
	State *st = static_cast<State *>(p);
	Call c(st);
	Local<Value> arg, r;

	return make_string(*in, &arg) && call(st, c.ctx, 1, &arg, &r) && to_str(c.ctx, r, out) ? 0 : fail(c.tc);
}

int call_obj(void *p, const bb_obj_in *in, bb_obj_out *out)
{
	State *st = static_cast<State *>(p);
	Call c(st);
	Local<Value> arg, r;

	return obj_in_to_js(c.ctx, *in, &arg) && call(st, c.ctx, 1, &arg, &r) && obj_out_from_js(c.ctx, r, out)
		       ? 0
		       : fail(c.tc);
}

// call_record: the text that comes back is in scratch until the next call.
int call_record(void *p, const bb_record *in, bb_record *out)
{
	State *st = static_cast<State *>(p);
	Call c(st);
	Local<Value> arg, r;

	return record_to_js(c.ctx, *in, &arg) && call(st, c.ctx, 1, &arg, &r) && record_from_js(c.ctx, r, out)
		       ? 0
		       : fail(c.tc);
}

// call_fail calls the script's fail(i), which throws; the host takes the error's text, a newline and its stack, whose
// first line (V8's stack begins with the error's text) is not repeated.
int call_fail(void *p, int32_t i, bb_str *text)
{
	State *st = static_cast<State *>(p);
	Call c(st);
	Local<Value> arg = v8::Integer::New(iso, i), r, stack;

	if (call(st, c.ctx, 1, &arg, &r)) {
		bb_error("fail(%d) returned instead of throwing", int(i));
		return -1;
	}
	if (!c.tc.HasCaught())
		return fail(c.tc);
	v8::String::Utf8Value head(iso, c.tc.Exception());
	st->err.assign(*head ? *head : "exception that cannot be converted to a string");
	if (c.tc.StackTrace(c.ctx).ToLocal(&stack) && stack->IsString()) {
		v8::String::Utf8Value s(iso, stack);
		size_t n = st->err.size();

		if (size_t(s.length()) > n && std::memcmp(*s, st->err.data(), n) == 0 && (*s)[n] == '\n')
			st->err.assign(*s, size_t(s.length()));
		else
			st->err.append("\n").append(*s, size_t(s.length()));
	}
	text->p = st->err.data();
	text->len = st->err.size();
	return 0;
}

// ==== What the set-ups, loops and table ask (engine_cases.h) ====

void teardown(void *p)
{
	State *st = static_cast<State *>(p);

	if (live == st)
		live = nullptr;
	std::free(st->text);
	delete st; // its Globals let the context and the function go
}

// eval runs src in the current context and stores its completion value in *r (when r is not NULL).
int eval(Local<v8::Context> ctx, const char *src, const char *file, Local<Value> *r = nullptr)
{
	v8::TryCatch tc(iso);
	Local<v8::String> text;
	v8::ScriptOrigin origin(iso, v8::String::NewFromUtf8(iso, file).ToLocalChecked());
	Local<v8::Script> script;
	Local<Value> v;

	if (!v8::String::NewFromUtf8(iso, src).ToLocal(&text) || !v8::Script::Compile(ctx, text, &origin).ToLocal(&script) ||
	    !script->Run(ctx).ToLocal(&v))
		return fail(tc);
	if (r)
		*r = v;
	return 0;
}

// load makes a context with the host functions, the case's text and script, and its function fn_name in st->fn; it
// makes the state live.
int load(const bb_case *c, void **out, const char *fn_name)
{
	State *st = new State();
	*out = st;
	v8::HandleScope hs(iso);
	Local<v8::ObjectTemplate> global = v8::ObjectTemplate::New(iso);
	int32_t bytes = bb_case_bytes(c->name);

	std::memset(&st->ui, 0, sizeof st->ui);
	for (const auto &f : host_fns)
		global->Set(iso, f.name,
			    v8::FunctionTemplate::New(iso, f.fn, Local<Value>(), Local<v8::Signature>(), f.length,
						      v8::ConstructorBehavior::kThrow));
	global->Set(iso, "N", v8::Integer::New(iso, bytes));
	Local<v8::Context> ctx = v8::Context::New(iso, nullptr, global);
	st->ctx.Reset(iso, ctx);
	v8::Context::Scope cs(ctx);
	if (engine_text(c, &st->text, &st->text_len) < 0)
		return -1;
	live = st;
	if (eval(ctx, bb_prelude, "prelude.js") < 0 || eval(ctx, bb_case_script(c->name), c->name) < 0)
		return -1;
	if (!fn_name)
		return 0;
	Local<Value> fn;
	if (eval(ctx, fn_name, "fn", &fn) < 0)
		return -1;
	if (!fn->IsFunction()) {
		bb_error("the script of %s defines no function %s", c->name, fn_name);
		return -1;
	}
	st->fn.Reset(iso, fn.As<v8::Function>());
	return 0;
}

int callback_registered(const State *st)
{
	return !st->fn.IsEmpty();
}

int run_bench(State *st, uint64_t n, double *result)
{
	Call c(st);
	Local<Value> arg = v8::Number::New(iso, double(n)), r;

	if (!st->fn.Get(iso)->Call(c.ctx, v8::Undefined(iso), 1, &arg).ToLocal(&r) || !r->NumberValue(c.ctx).To(result))
		return fail(c.tc);
	return 0;
}

// main is the addon's one export: main(argv) makes the property names, sets node's stack formatter aside and runs the harness with argv (the program's
// name first), and returns its exit status.
void main_(const Args &info)
{
	static const char *const words_of[K_COUNT] = {
#define VF_STRING(n) #n,
		VF_NAMES(VF_STRING)
#undef VF_STRING
	};
	iso = info.GetIsolate();
	Local<v8::Context> ctx = iso->GetCurrentContext();
	Local<v8::Array> args = info[0].As<v8::Array>();

	// node's stack formatter gives a context that is not node's its error's toString alone, no frames: the floor's
	// contexts are V8's, and their stacks V8's own formatting (no way back to node's, which the run's end does not need)
	iso->SetPrepareStackTraceCallback(nullptr);
	for (int k = 0; k < K_COUNT; k++)
		names[k].Set(iso, v8::String::NewFromUtf8(iso, words_of[k], v8::NewStringType::kInternalized).ToLocalChecked());
	int rc = bb_node::run_harness(iso, ctx, args);
	info.GetReturnValue().Set(rc);
}

void init(Local<v8::Object> exports)
{
	NODE_SET_METHOD(exports, "main", main_);
}

} // namespace

#define BB_STATE State
#include "engine_cases.h"

NODE_MODULE(NODE_GYP_MODULE_NAME, init)
