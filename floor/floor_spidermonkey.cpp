// floor_spidermonkey.cpp: the floor of SpiderMonkey (mozjs 102 on Debian 12, 128 on Debian 13), every case written
// straight against its C++ embedding API along its cheapest documented paths. The host-side work is the harness's
// (harness_host.c), and each host function reads, does and returns what floor/floor.c's does.
//
// - A host function is a JSNative defined with JS_DefineFunction (JS::CallArgs reads a missing argument as
//   undefined, as QuickJS pads argv); a call into script is JS_CallFunctionValue.
// - Numbers cross as JS::Value doubles (JS::ToNumber, JS::ToInt32 for an int32).
// - Strings as UTF-8 copies (JS_EncodeStringToUTF8: the API gives no view of a string's bytes that outlives the next
//   allocation; strlen counts them, so a host's text is cut at a NUL) and JS_NewStringCopyUTF8N.
// - Properties are read by JS_GetPropertyById with ids of atoms pinned once per process (no name lookup per read),
//   elements by JS_GetElement; a fresh object is JS_NewPlainObject and JS_DefinePropertyById (JSPROP_ENUMERATE, as an
//   object literal's), a fresh array JS::NewArrayObject of its elements.
// - A Float64Array's and a Uint8Array's memory is JS_GetObjectAsFloat64Array's and JS_GetObjectAsUint8Array's (the
//   view's own bytes), no copy.
// - A host error is JS_ReportErrorNumberUTF8's Error, RangeError or TypeError (the floor's own error formats, as an
//   embedder defines them); a script error's text is its ToString, a newline and its "stack" (fail@file:line:column).
//
// The harness is compiled with -DBB_ENGINE_NONE: this file is its SpiderMonkey adapter too (engine.h: SpiderMonkey
// takes no allocator from its embedder, so the memory records have the host's counts alone). Values kept across calls
// are persistent roots; the others are rooted on the C++ stack (JS::Rooted).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <jsapi.h>
#include <js/Array.h>
#include <js/CallAndConstruct.h>
#include <js/CharacterEncoding.h>
#include <js/CompilationAndEvaluation.h>
#include <js/Conversions.h>
#include <js/ErrorReport.h>
#include <js/Exception.h>
#include <js/Id.h>
#include <js/Initialization.h>
#include <js/PropertyAndElement.h>
#include <js/SourceText.h>
#include <js/String.h>
#include <js/experimental/TypedData.h>

#include "engine.h"
#include "harness_core.h"

#include "engine_cases.h"

#ifndef BB_MOZJS_VERSION
#define BB_MOZJS_VERSION "unknown" // the build passes pkg-config's
#endif

const char *const bb_program = "floor";
const char *const bb_codec = nullptr;

void bb_engine_meta(void)
{
	std::printf("meta engine spidermonkey %s\n", BB_MOZJS_VERSION);
}

BB_ENGINE_UNCOUNTED

namespace {

// One context for the process (SpiderMonkey's is per thread); each case has a global (a realm) of its own.
JSContext *cx;

JSClass global_class = {"global", JSCLASS_GLOBAL_FLAGS, &JS::DefaultGlobalClassOps, nullptr, nullptr, nullptr};

// The property names the host reads and writes: atoms pinned once per process, whose ids need no rooting.
#define SM_NAMES(X) X(id) X(name) X(x) X(y) X(tags) X(pos) X(a) X(b) X(ok) X(text) X(key) X(value) X(length) X(stack)
enum {
#define SM_ENUM(n) K_##n,
	SM_NAMES(SM_ENUM)
#undef SM_ENUM
	K_COUNT
};
jsid ids[K_COUNT];

JS::HandleId id(int k)
{
	return JS::HandleId::fromMarkedLocation(&ids[k]);
}

struct State {
	JS::PersistentRootedObject global;
	JS::PersistentRootedValue fn; // bench(n), or the function the host calls
	bb_ui ui;                     // what set_prop, apply_ops, set_node and apply_batch mutate
	uint64_t unit_ops = 1;        // ops per loop unit
	char *text = nullptr;         // the host's text of a case with bytes
	size_t text_len = 0;
	JS::UniqueChars held;         // a host -> script call's string result, until the next call
	char err[512];                // the text of the last script error the host caught
	State() : global(cx), fn(cx), ui() {}
};

// The realm the context is in: the case's whose code runs. Entered when another case's code is to run (the --ref
// case alternates with the measured one), not per call: an embedder with one global enters it once. The host
// functions find the state of the script that calls them here.
State *entered;
JS::Realm *outer;

void enter(State *st)
{
	if (entered == st)
		return;
	if (entered)
		JS::LeaveRealm(cx, outer);
	outer = JS::EnterRealm(cx, st->global);
	entered = st;
}

// exception_text takes the pending exception (cleared) into buf as its ToString; false when there is none (out of
// memory, or an uncatchable error).
bool exception_text(JS::MutableHandleValue exc, char *buf, size_t size)
{
	if (!JS_GetPendingException(cx, exc))
		return false;
	JS_ClearPendingException(cx);
	JS::RootedString s(cx, JS::ToString(cx, exc));
	JS::UniqueChars text = s ? JS_EncodeStringToUTF8(cx, s) : nullptr;
	JS_ClearPendingException(cx);
	std::snprintf(buf, size, "%s", text ? text.get() : "exception that cannot be converted to a string");
	return true;
}

// fail turns the pending exception into bb_error and returns -1.
int fail()
{
	JS::RootedValue exc(cx);
	char text[512];

	if (!exception_text(&exc, text, sizeof text))
		bb_error("SpiderMonkey failed without an exception (out of memory?)");
	else
		bb_error("%s", text);
	return -1;
}

// ==== Errors thrown into script ====

// The floor's error formats, as an embedder defines its own (JS_ReportErrorNumberUTF8): the message is the argument.
enum { E_ERROR, E_RANGE, E_TYPE };
const JSErrorFormatString formats[] = {
	{"BB_ERROR", "{0}", 1, JSEXN_ERR},
	{"BB_RANGE_ERROR", "{0}", 1, JSEXN_RANGEERR},
	{"BB_TYPE_ERROR", "{0}", 1, JSEXN_TYPEERR},
};

const JSErrorFormatString *format(void *, const unsigned number)
{
	return &formats[number];
}

// throw_error throws a new error of kind (E_*) with message msg; false, for a JSNative to return.
bool throw_error(JSContext *c, unsigned kind, const char *msg)
{
	JS_ReportErrorNumberUTF8(c, format, nullptr, kind, msg);
	return false;
}

// ==== Reading JavaScript values into host values ====
// Each returns false with an exception pending when it throws.

// str_of reads v as a string into keep (its UTF-8 copy) and out.
bool str_of(JSContext *c, JS::HandleValue v, JS::UniqueChars &keep, bb_str *out)
{
	JS::RootedString s(c, JS::ToString(c, v));

	if (!s || !(keep = JS_EncodeStringToUTF8(c, s)))
		return false;
	out->p = keep.get();
	out->len = std::strlen(out->p); // the case's strings hold no NUL
	return true;
}

bool prop_num(JSContext *c, JS::HandleObject o, int k, double *out)
{
	JS::RootedValue v(c);

	return JS_GetPropertyById(c, o, id(k), &v) && JS::ToNumber(c, v, out);
}

bool prop_int(JSContext *c, JS::HandleObject o, int k, int32_t *out)
{
	JS::RootedValue v(c);

	return JS_GetPropertyById(c, o, id(k), &v) && JS::ToInt32(c, v, out);
}

bool prop_str(JSContext *c, JS::HandleObject o, int k, JS::UniqueChars &keep, bb_str *out)
{
	JS::RootedValue v(c);

	return JS_GetPropertyById(c, o, id(k), &v) && str_of(c, v, keep, out);
}

// object_of is v as an object (ToObject: a TypeError for undefined and null, as reading a property of them is).
bool object_of(JSContext *c, JS::HandleValue v, JS::MutableHandleObject out)
{
	JSObject *o = JS::ToObject(c, v);

	out.set(o);
	return o != nullptr;
}

bool prop_obj(JSContext *c, JS::HandleObject o, int k, JS::MutableHandleObject out)
{
	JS::RootedValue v(c);

	return JS_GetPropertyById(c, o, id(k), &v) && object_of(c, v, out);
}

// typed_data returns the memory of typed array v without copying (until the next allocation in the engine), checking
// its element type, and its length in elements in *len; nullptr with a TypeError pending otherwise.
template <typename T, JSObject *(*as)(JSObject *, size_t *, bool *, T **)>
const T *typed_data(JSContext *c, JS::HandleValue v, size_t *len)
{
	bool shared;
	T *p = nullptr;

	if (!v.isObject() || !as(&v.toObject(), len, &shared, &p)) {
		char msg[64];

		std::snprintf(msg, sizeof msg, "expected a typed array of %u-byte elements", unsigned(sizeof(T)));
		throw_error(c, E_TYPE, msg);
		return nullptr;
	}
	static const T none{};
	return p ? p : &none; // an empty view may have no memory
}

// The strings a host function has read, valid until the next host function reads (cases run one at a time).
JS::UniqueChars read_strs[4];

// obj_from_js reads the whole object of script_to_host_object; its strings are in read_strs.
bool obj_from_js(JSContext *c, JS::HandleValue v, bb_obj_in *o)
{
	JS::RootedObject obj(c), tags(c), pos(c);
	JS::RootedValue e(c);

	if (!object_of(c, v, &obj) || !prop_int(c, obj, K_id, &o->id) || !prop_str(c, obj, K_name, read_strs[0], &o->name) ||
	    !prop_num(c, obj, K_x, &o->x) || !prop_num(c, obj, K_y, &o->y) || !prop_obj(c, obj, K_tags, &tags))
		return false;
	for (unsigned i = 0; i < 3; i++)
		if (!JS_GetElement(c, tags, i, &e) || !str_of(c, e, read_strs[1 + i], &o->tags[i]))
			return false;
	return prop_obj(c, obj, K_pos, &pos) && prop_num(c, pos, K_a, &o->pos_a) && prop_num(c, pos, K_b, &o->pos_b);
}

bool obj_out_from_js(JSContext *c, JS::HandleValue v, bb_obj_out *o)
{
	JS::RootedObject obj(c);
	JS::RootedValue ok(c);

	if (!object_of(c, v, &obj) || !prop_int(c, obj, K_id, &o->id) || !prop_num(c, obj, K_x, &o->x) ||
	    !JS_GetPropertyById(c, obj, id(K_ok), &ok))
		return false;
	o->ok = JS::ToBoolean(ok);
	return true;
}

// record_from_js reads {id, text}; the text is in keep.
bool record_from_js(JSContext *c, JS::HandleValue v, bb_record *out, JS::UniqueChars &keep)
{
	JS::RootedObject obj(c);

	return object_of(c, v, &obj) && prop_int(c, obj, K_id, &out->id) && prop_str(c, obj, K_text, keep, &out->text);
}

// ==== Making JavaScript values from host values ====
// Each makes a fresh value in out; false with an exception pending when it fails.

bool make_string(JSContext *c, bb_str s, JS::MutableHandleValue out)
{
	JSString *r = JS_NewStringCopyUTF8N(c, JS::UTF8Chars(s.p, s.len));

	if (!r)
		return false;
	out.setString(r);
	return true;
}

// put defines property k of a fresh object, as an object literal does.
bool put(JSContext *c, JS::HandleObject o, int k, JS::HandleValue v)
{
	return JS_DefinePropertyById(c, o, id(k), v, JSPROP_ENUMERATE);
}

bool put_num(JSContext *c, JS::HandleObject o, int k, double d)
{
	JS::RootedValue v(c, JS::NumberValue(d));

	return put(c, o, k, v);
}

bool put_str(JSContext *c, JS::HandleObject o, int k, bb_str s)
{
	JS::RootedValue v(c);

	return make_string(c, s, &v) && put(c, o, k, v);
}

bool new_object(JSContext *c, JS::MutableHandleObject out)
{
	out.set(JS_NewPlainObject(c));
	return out != nullptr;
}

bool obj_out_to_js(JSContext *c, const bb_obj_out *r, JS::MutableHandleValue out)
{
	JS::RootedObject o(c);
	JS::RootedValue ok(c, JS::BooleanValue(r->ok));

	if (!new_object(c, &o) || !put_num(c, o, K_id, r->id) || !put(c, o, K_ok, ok) || !put_num(c, o, K_x, r->x))
		return false;
	out.setObject(*o);
	return true;
}

// obj_in_to_js builds the whole object of host_to_script_object.
bool obj_in_to_js(JSContext *c, const bb_obj_in *in, JS::MutableHandleValue out)
{
	JS::RootedValueArray<3> tag(c);
	JS::RootedObject o(c), tags(c), pos(c);
	JS::RootedValue v(c);

	for (unsigned i = 0; i < 3; i++)
		if (!make_string(c, in->tags[i], tag[i]))
			return false;
	if (!(tags = JS::NewArrayObject(c, tag)) || !new_object(c, &pos) || !put_num(c, pos, K_a, in->pos_a) ||
	    !put_num(c, pos, K_b, in->pos_b) || !new_object(c, &o) || !put_num(c, o, K_id, in->id) ||
	    !put_str(c, o, K_name, in->name) || !put_num(c, o, K_x, in->x) || !put_num(c, o, K_y, in->y))
		return false;
	v.setObject(*tags);
	if (!put(c, o, K_tags, v))
		return false;
	v.setObject(*pos);
	if (!put(c, o, K_pos, v))
		return false;
	out.setObject(*o);
	return true;
}

bool record_to_js(JSContext *c, const bb_record *r, JS::MutableHandleValue out)
{
	JS::RootedObject o(c);

	if (!new_object(c, &o) || !put_num(c, o, K_id, r->id) || !put_str(c, o, K_text, r->text))
		return false;
	out.setObject(*o);
	return true;
}

// ==== Host functions ====

#define SM_ARGS JS::CallArgs args = JS::CallArgsFromVp(argc, vp)

bool host_add(JSContext *c, unsigned argc, JS::Value *vp)
{
	SM_ARGS;
	double a, b;

	if (!JS::ToNumber(c, args.get(0), &a) || !JS::ToNumber(c, args.get(1), &b))
		return false;
	args.rval().setNumber(bb_add(a, b));
	return true;
}

bool host_upper(JSContext *c, unsigned argc, JS::Value *vp)
{
	SM_ARGS;
	bb_str s;

	if (!str_of(c, args.get(0), read_strs[0], &s))
		return false;
	char *p = read_strs[0].get();
	bb_upper_ascii(p, p, s.len);
	return make_string(c, s, args.rval());
}

bool host_obj(JSContext *c, unsigned argc, JS::Value *vp)
{
	SM_ARGS;
	bb_obj_in in;

	if (!obj_from_js(c, args.get(0), &in))
		return false;
	bb_obj_out out = bb_obj_host(&in);
	return obj_out_to_js(c, &out, args.rval());
}

bool host_sum(JSContext *c, unsigned argc, JS::Value *vp)
{
	SM_ARGS;
	double v[BB_ARRAY_LEN], len;
	JS::RootedObject a(c);
	JS::RootedValue e(c);

	if (!object_of(c, args.get(0), &a) || !prop_num(c, a, K_length, &len))
		return false;
	if (len != BB_ARRAY_LEN)
		return throw_error(c, E_RANGE, "host_sum: expected 64 numbers");
	for (unsigned i = 0; i < BB_ARRAY_LEN; i++)
		if (!JS_GetElement(c, a, i, &e) || !JS::ToNumber(c, e, &v[i]))
			return false;
	args.rval().setNumber(bb_sum(v, BB_ARRAY_LEN));
	return true;
}

State *registering; // the state whose script runs at set-up: host_register keeps its function there

bool host_register(JSContext *c, unsigned argc, JS::Value *vp)
{
	SM_ARGS;

	if (!args.get(0).isObject() || !JS::IsCallable(&args.get(0).toObject()))
		return throw_error(c, E_TYPE, "host_register: not a function");
	if (registering)
		registering->fn = args.get(0);
	args.rval().setUndefined();
	return true;
}

bool host_fail(JSContext *c, unsigned argc, JS::Value *vp)
{
	SM_ARGS;
	char msg[64];
	int32_t i;

	if (!JS::ToInt32(c, args.get(0), &i))
		return false;
	bb_fail_message(msg, sizeof msg, i);
	return throw_error(c, E_ERROR, msg);
}

bool set_prop(JSContext *c, unsigned argc, JS::Value *vp)
{
	SM_ARGS;
	double node, value;
	bb_str key;

	if (!JS::ToNumber(c, args.get(0), &node) || !str_of(c, args.get(1), read_strs[0], &key))
		return false;
	int k = bb_ui_key(key.p, key.len);
	if (!JS::ToNumber(c, args.get(2), &value))
		return false;
	if (bb_ui_set(&entered->ui, node, k, value) < 0)
		return throw_error(c, E_RANGE, "set_prop: bad node or key");
	args.rval().setUndefined();
	return true;
}

bool apply_ops(JSContext *c, unsigned argc, JS::Value *vp)
{
	SM_ARGS;
	size_t n;
	const double *ops = typed_data<double, JS_GetObjectAsFloat64Array>(c, args.get(0), &n);

	if (!ops)
		return false;
	if (bb_ui_apply(&entered->ui, ops, n) < 0)
		return throw_error(c, E_RANGE, "apply_ops: bad node or key");
	args.rval().setUndefined();
	return true;
}

bool host_bytes(JSContext *c, unsigned argc, JS::Value *vp)
{
	SM_ARGS;
	size_t n;
	const uint8_t *p = typed_data<uint8_t, JS_GetObjectAsUint8Array>(c, args.get(0), &n);

	if (!p)
		return false;
	args.rval().setNumber(bb_bytes_sum(p, n));
	return true;
}

bool host_record(JSContext *c, unsigned argc, JS::Value *vp)
{
	SM_ARGS;
	bb_record in;

	if (!record_from_js(c, args.get(0), &in, read_strs[0]))
		return false;
	bb_record out = bb_record_host(&in);
	return record_to_js(c, &out, args.rval());
}

// apply_node applies the mutation {id, key, value}.
bool apply_node(JSContext *c, JS::HandleValue v)
{
	JS::RootedObject o(c);
	double node, value;
	bb_str key;

	if (!object_of(c, v, &o) || !prop_num(c, o, K_id, &node) || !prop_str(c, o, K_key, read_strs[0], &key) ||
	    !prop_num(c, o, K_value, &value))
		return false;
	if (bb_ui_set_named(&entered->ui, node, key.p, key.len, value) < 0)
		return throw_error(c, E_RANGE, "bad node or key");
	return true;
}

bool set_node(JSContext *c, unsigned argc, JS::Value *vp)
{
	SM_ARGS;

	if (!apply_node(c, args.get(0)))
		return false;
	args.rval().setUndefined();
	return true;
}

bool apply_batch(JSContext *c, unsigned argc, JS::Value *vp)
{
	SM_ARGS;
	JS::RootedObject list(c);
	JS::RootedValue e(c);
	double len;

	if (!object_of(c, args.get(0), &list) || !prop_num(c, list, K_length, &len))
		return false;
	for (uint32_t i = 0; i < len; i++)
		if (!JS_GetElement(c, list, i, &e) || !apply_node(c, e))
			return false;
	args.rval().setUndefined();
	return true;
}

// The host functions: host_functions.h's list.
const struct {
	const char *name;
	JSNative fn;
	unsigned nargs;
} host_fns[] = {BB_HOST_FNS(BB_HOST_ENTRY, BB_HOST_ENTRY)};

// ==== Host -> script calls ====

int call_add(void *p, double a, double b, double *out)
{
	State *st = static_cast<State *>(p);
	JS::RootedValueArray<2> args(cx);
	JS::RootedValue r(cx);

	bb_crossing();
	enter(st);
	args[0].setNumber(a);
	args[1].setNumber(b);
	if (!JS_CallFunctionValue(cx, nullptr, st->fn, args, &r) || !JS::ToNumber(cx, r, out))
		return fail();
	return 0;
}

// call1 calls st->fn with the argument that make builds from in, into r.
template <typename T>
bool call1(State *st, bool (*make)(JSContext *, const T *, JS::MutableHandleValue), const T *in,
	   JS::MutableHandleValue r)
{
	JS::RootedValueArray<1> args(cx);

	bb_crossing();
	enter(st);
	return make(cx, in, args[0]) && JS_CallFunctionValue(cx, nullptr, st->fn, args, r);
}

bool text_to_js(JSContext *c, const bb_str *in, JS::MutableHandleValue out)
{
	return make_string(c, *in, out);
}

// call_text: the text that comes back is st->held's until the next call.
int call_text(void *p, const bb_str *in, bb_str *out)
{
	State *st = static_cast<State *>(p);
	JS::RootedValue r(cx);

	return call1(st, text_to_js, in, &r) && str_of(cx, r, st->held, out) ? 0 : fail();
}

int call_obj(void *p, const bb_obj_in *in, bb_obj_out *out)
{
	State *st = static_cast<State *>(p);
	JS::RootedValue r(cx);

	return call1(st, obj_in_to_js, in, &r) && obj_out_from_js(cx, r, out) ? 0 : fail();
}

// call_record: the text that comes back is st->held's until the next call.
int call_record(void *p, const bb_record *in, bb_record *out)
{
	State *st = static_cast<State *>(p);
	JS::RootedValue r(cx);

	return call1(st, record_to_js, in, &r) && record_from_js(cx, r, out, st->held) ? 0 : fail();
}

bool num_to_js(JSContext *, const int32_t *in, JS::MutableHandleValue out)
{
	out.setInt32(*in);
	return true;
}

// call_fail calls the script's fail(i), which throws; the host takes the error's text, a newline and its stack
// (SpiderMonkey's stack has no first line of the message to skip).
int call_fail(void *p, int32_t i, bb_str *text)
{
	State *st = static_cast<State *>(p);
	JS::RootedValue r(cx), exc(cx), stack(cx);
	JS::RootedObject e(cx);

	if (call1(st, num_to_js, &i, &r)) {
		bb_error("fail(%d) returned instead of throwing", int(i));
		return -1;
	}
	if (!exception_text(&exc, st->err, sizeof st->err)) {
		bb_error("fail(%d) failed without an exception (out of memory?)", int(i));
		return -1;
	}
	size_t n = std::strlen(st->err);
	if (exc.isObject()) {
		e = &exc.toObject();
		if (!JS_GetPropertyById(cx, e, id(K_stack), &stack))
			return fail();
	}
	if (stack.isString()) {
		JS::RootedString s(cx, stack.toString());
		JS::UniqueChars t = JS_EncodeStringToUTF8(cx, s);
		if (!t)
			return fail();
		n += std::snprintf(st->err + n, sizeof st->err - n, "\n%s", t.get());
		n = n < sizeof st->err ? n : sizeof st->err - 1;
	}
	text->p = st->err;
	text->len = n;
	return 0;
}

// ==== What the set-ups, loops and table ask (engine_cases.h) ====

void teardown(void *p)
{
	State *st = static_cast<State *>(p);

	if (entered == st) {
		JS::LeaveRealm(cx, outer);
		entered = nullptr;
	}
	std::free(st->text);
	delete st;
}

int eval(const char *src, const char *file)
{
	JS::CompileOptions opts(cx);
	JS::SourceText<mozilla::Utf8Unit> text;
	JS::RootedValue r(cx);

	opts.setFileAndLine(file, 1);
	if (!text.init(cx, src, std::strlen(src), JS::SourceOwnership::Borrowed) || !JS::Evaluate(cx, opts, text, &r))
		return fail();
	return 0;
}

// shut_down ends SpiderMonkey at exit, after the cases' states are gone: registered after the library's static
// objects were made, it runs before their destructors, which crash (MOZ_CRASH on a busy mutex) while a context lives.
void shut_down()
{
	for (auto &s : read_strs)
		s.reset();
	JS_DestroyContext(cx);
	cx = nullptr;
	JS_ShutDown();
}

// start starts SpiderMonkey's one context and pins the property names' atoms.
int start()
{
	static const char *const names[K_COUNT] = {
#define SM_STRING(n) #n,
		SM_NAMES(SM_STRING)
#undef SM_STRING
	};

	if (!JS_Init() || !(cx = JS_NewContext(JS::DefaultHeapMaxBytes)) || !JS::InitSelfHostedCode(cx)) {
		bb_error("SpiderMonkey did not start (JS_Init, JS_NewContext, JS::InitSelfHostedCode)");
		return -1;
	}
	std::atexit(shut_down);
	for (int k = 0; k < K_COUNT; k++) {
		JSString *s = JS_AtomizeAndPinString(cx, names[k]);
		if (!s)
			return fail();
		ids[k] = JS::PropertyKey::fromPinnedString(s);
	}
	return 0;
}

// load makes a global with the host functions, the case's text and script, and its function fn_name in st->fn.
int load(const bb_case *c, void **out, const char *fn_name)
{
	if (!cx && start() < 0)
		return -1;
	State *st = new State();
	*out = st;
	JS::RealmOptions options;
	st->global = JS_NewGlobalObject(cx, &global_class, nullptr, JS::FireOnNewGlobalHook, options);
	if (!st->global)
		return fail();
	enter(st);
	if (engine_text(c, &st->text, &st->text_len) < 0)
		return -1;
	for (const auto &h : host_fns)
		if (!JS_DefineFunction(cx, st->global, h.name, h.fn, h.nargs, 0))
			return fail();
	if (!JS_DefineProperty(cx, st->global, "N", double(st->text_len), JSPROP_ENUMERATE))
		return fail();
	registering = st;
	int rc = eval(bb_prelude, "prelude.js") < 0 || eval(bb_case_script(c->name), c->name) < 0 ? -1 : 0;
	registering = nullptr;
	if (rc < 0 || !fn_name)
		return rc;
	if (!JS_GetProperty(cx, st->global, fn_name, &st->fn))
		return fail();
	if (!st->fn.isObject() || !JS::IsCallable(&st->fn.toObject())) {
		bb_error("the script of %s defines no function %s", c->name, fn_name);
		return -1;
	}
	return 0;
}

int callback_registered(const State *st)
{
	return !st->fn.isUndefined();
}

int run_bench(State *st, uint64_t n, double *result)
{
	JS::RootedValueArray<1> args(cx);
	JS::RootedValue r(cx);

	enter(st);
	args[0].setNumber(double(n));
	if (!JS_CallFunctionValue(cx, nullptr, st->fn, args, &r) || !JS::ToNumber(cx, r, result))
		return fail();
	return 0;
}

} // namespace

#define BB_STATE State
#include "engine_cases.h"
