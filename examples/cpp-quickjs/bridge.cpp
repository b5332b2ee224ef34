// bridge.cpp: a small C++ bridge over QuickJS, measured by bench-bridge through its harness (docs/bridge.md).
//
// It is shaped like many real app bridges: host values live in a std::variant, values cross as JSON text held in a
// std::string and read and written with nlohmann-json, and script functions that reach the host become integer
// handles. The harness owns main() and the protocol; this file defines the cases through the shared case table
// (case_table.h), so the timed loops are the same as the floor's and only the crossing differs.
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.h"

extern "C" {
const char *const bb_program = "bridge";
const char *const bb_codec = "nlohmann-json"; // meta codec: how values cross
}

namespace {

// ---- Host values ----

struct Value;
using Array = std::vector<Value>;
using Object = std::vector<std::pair<std::string, Value>>; // keeps the script's key order
struct Handle {
	uint32_t id; // index into State::handles
};
struct Value {
	std::variant<std::nullptr_t, bool, double, std::string, Array, Object, Handle> v;
};

using Json = nlohmann::ordered_json;

Value from_json(const Json &j)
{
	switch (j.type()) {
	case Json::value_t::boolean:
		return {j.get<bool>()};
	case Json::value_t::number_integer:
	case Json::value_t::number_unsigned:
	case Json::value_t::number_float:
		return {j.get<double>()};
	case Json::value_t::string:
		return {j.get<std::string>()};
	case Json::value_t::array: {
		Array a;
		a.reserve(j.size());
		for (const auto &e : j)
			a.push_back(from_json(e));
		return {std::move(a)};
	}
	case Json::value_t::object: {
		Object o;
		for (const auto &[k, e] : j.items())
			o.emplace_back(k, from_json(e));
		return {std::move(o)};
	}
	default:
		return {nullptr};
	}
}

Json to_json(const Value &v)
{
	struct {
		Json operator()(std::nullptr_t) const { return nullptr; }
		Json operator()(bool b) const { return b; }
		Json operator()(double d) const { return d; }
		Json operator()(const std::string &s) const { return s; }
		Json operator()(const Array &a) const
		{
			Json j = Json::array();
			for (const auto &e : a)
				j.push_back(to_json(e));
			return j;
		}
		Json operator()(const Object &o) const
		{
			Json j = Json::object();
			for (const auto &[k, e] : o)
				j[k] = to_json(e);
			return j;
		}
		Json operator()(Handle h) const { return Json{{"$handle", h.id}}; }
	} visit;
	return std::visit(visit, v.v);
}

double num(const Value &v, const char *fn)
{
	if (auto d = std::get_if<double>(&v.v))
		return *d;
	throw std::runtime_error(std::string(fn) + ": expected a number");
}

const Value &member(const Value &v, const std::string &key)
{
	if (auto o = std::get_if<Object>(&v.v))
		for (const auto &[k, e] : *o)
			if (k == key)
				return e;
	throw std::runtime_error("expected an object with " + key);
}

std::vector<double> numbers(const Value &v, const char *fn)
{
	const auto *a = std::get_if<Array>(&v.v);
	if (!a)
		throw std::runtime_error(std::string(fn) + ": expected an array");
	std::vector<double> out;
	out.reserve(a->size());
	for (const auto &e : *a)
		out.push_back(num(e, fn));
	return out;
}

// ---- The bridge's state: one JavaScript context per case ----

struct State;
using HostFn = std::function<Value(State &, const Array &)>;

struct State {
	// case_table.h reads these four.
	JSContext *ctx = nullptr;
	JSValue fn = JS_UNDEFINED; // bench(n), or the function the host calls
	bb_ui ui{};
	uint64_t unit_ops = 1;

	char *text = nullptr; // the host's text of a case with bytes (bb_text_new)
	size_t text_len = 0;

	std::vector<JSValue> handles; // script functions the host holds
	JSValue stringify = JS_UNDEFINED;
	std::string held;  // the last string a host -> script call returned, valid until the next call
	char err[1024]{};  // the text and stack of the last exception a script threw at the host
};

// ScriptError is a script's exception caught by the host; State::err holds its text and stack.
struct ScriptError : std::runtime_error {
	ScriptError() : std::runtime_error("the script threw") {}
};

const std::map<std::string, HostFn> &host_functions();

State &state_of(JSContext *ctx)
{
	return *static_cast<State *>(JS_GetContextOpaque(ctx));
}

// js_to_value crosses one value from script to host: a function becomes a handle, anything else JSON text.
Value js_to_value(State &st, JSValueConst v)
{
	if (JS_IsFunction(st.ctx, v)) {
		st.handles.push_back(JS_DupValue(st.ctx, v));
		return {Handle{uint32_t(st.handles.size() - 1)}};
	}
	JSValue text = JS_Call(st.ctx, st.stringify, JS_UNDEFINED, 1, &v);
	if (JS_IsException(text))
		throw std::runtime_error("JSON.stringify failed");
	if (JS_IsUndefined(text))
		return {nullptr}; // undefined has no JSON text
	size_t len;
	const char *p = JS_ToCStringLen(st.ctx, &len, text);
	JS_FreeValue(st.ctx, text);
	if (!p)
		throw std::runtime_error("JSON.stringify gave no text");
	std::string s(p, len);
	JS_FreeCString(st.ctx, p);
	return from_json(Json::parse(s));
}

// value_to_js crosses one value from host to script, as JSON text.
JSValue value_to_js(State &st, const Value &v)
{
	std::string s = to_json(v).dump();
	return JS_ParseJSON(st.ctx, s.c_str(), s.size(), "<host>");
}

// host_entry is every host function's QuickJS entry: arguments to host values, the call, the result back.
JSValue host_entry(JSContext *ctx, JSValueConst, int argc, JSValueConst *argv, int, JSValue *data)
{
	State &st = state_of(ctx);
	const char *name = JS_ToCString(ctx, data[0]);
	std::string fname = name ? name : "";
	JS_FreeCString(ctx, name);
	try {
		Array args;
		for (int i = 0; i < argc; i++)
			args.push_back(js_to_value(st, argv[i]));
		Value result = host_functions().at(fname)(st, args);
		return value_to_js(st, result);
	} catch (const std::exception &e) {
		return JS_ThrowInternalError(ctx, "%s", e.what());
	}
}

// call_js calls a script function with host values and returns its result as a host value.
Value call_js(State &st, JSValueConst fn, const Array &args)
{
	std::vector<JSValue> argv;
	for (const auto &a : args)
		argv.push_back(value_to_js(st, a));
	JSValue r = JS_Call(st.ctx, fn, JS_UNDEFINED, int(argv.size()), argv.data());
	for (auto &a : argv)
		JS_FreeValue(st.ctx, a);
	if (JS_IsException(r)) {
		bb_js_error_text(st.ctx, st.err, sizeof st.err);
		throw ScriptError();
	}
	Value out = js_to_value(st, r);
	JS_FreeValue(st.ctx, r);
	return out;
}

// ---- Host functions: the same work as the floor's, on host values ----

const Value &arg(const Array &args, size_t i)
{
	static const Value none{nullptr};
	return i < args.size() ? args[i] : none;
}

std::string str(const Value &v)
{
	if (auto s = std::get_if<std::string>(&v.v))
		return *s;
	throw std::runtime_error("expected a string");
}

bb_obj_in obj_in(const Value &v, std::string &name, std::string tags[3])
{
	bb_obj_in o{};
	o.id = int32_t(num(member(v, "id"), "host_obj"));
	name = str(member(v, "name"));
	o.name = {name.data(), name.size()};
	o.x = num(member(v, "x"), "host_obj");
	o.y = num(member(v, "y"), "host_obj");
	const auto *t = std::get_if<Array>(&member(v, "tags").v);
	if (!t || t->size() != 3)
		throw std::runtime_error("host_obj: expected three tags");
	for (int i = 0; i < 3; i++) {
		tags[i] = str((*t)[i]);
		o.tags[i] = {tags[i].data(), tags[i].size()};
	}
	o.pos_a = num(member(member(v, "pos"), "a"), "host_obj");
	o.pos_b = num(member(member(v, "pos"), "b"), "host_obj");
	return o;
}

Value obj_out(const bb_obj_out &r)
{
	return {Object{{"id", {double(r.id)}}, {"ok", {r.ok != 0}}, {"x", {r.x}}}};
}

// set_node applies one mutation {id, key, value}.
void set_node(State &st, const Value &node)
{
	std::string key = str(member(node, "key"));
	if (bb_ui_set_named(&st.ui, num(member(node, "id"), "set_node"), key.data(), key.size(), num(member(node, "value"), "set_node")) < 0)
		throw std::runtime_error("set_node: bad node or key");
}

const std::map<std::string, HostFn> &host_functions()
{
	static const std::map<std::string, HostFn> fns = {
		{"host_add", [](State &, const Array &a) { return Value{bb_add(num(arg(a, 0), "host_add"), num(arg(a, 1), "host_add"))}; }},
		{"host_upper",
		 [](State &, const Array &a) {
			 std::string s = str(arg(a, 0)), out(s.size(), '\0');
			 bb_upper_ascii(out.data(), s.data(), s.size());
			 return Value{std::move(out)};
		 }},
		{"host_obj",
		 [](State &, const Array &a) {
			 std::string name, tags[3];
			 bb_obj_in in = obj_in(arg(a, 0), name, tags);
			 return obj_out(bb_obj_host(&in));
		 }},
		{"host_sum",
		 [](State &, const Array &a) {
			 std::vector<double> v = numbers(arg(a, 0), "host_sum");
			 if (v.size() != BB_ARRAY_LEN)
				 throw std::runtime_error("host_sum: expected 64 numbers");
			 return Value{bb_sum(v.data(), v.size())};
		 }},
		{"host_register",
		 [](State &st, const Array &a) {
			 const Handle *h = std::get_if<Handle>(&arg(a, 0).v);
			 if (!h)
				 throw std::runtime_error("host_register: not a function");
			 JS_FreeValue(st.ctx, st.fn);
			 st.fn = JS_DupValue(st.ctx, st.handles[h->id]);
			 return Value{nullptr};
		 }},
		{"host_fail",
		 [](State &, const Array &a) -> Value {
			 char msg[64];
			 bb_fail_message(msg, sizeof msg, int32_t(num(arg(a, 0), "host_fail")));
			 throw std::runtime_error(msg);
		 }},
		{"set_prop",
		 [](State &st, const Array &a) {
			 std::string key = str(arg(a, 1));
			 if (bb_ui_set(&st.ui, num(arg(a, 0), "set_prop"), bb_ui_key(key.data(), key.size()), num(arg(a, 2), "set_prop")) < 0)
				 throw std::runtime_error("set_prop: bad node or key");
			 return Value{nullptr};
		 }},
		{"apply_ops",
		 [](State &st, const Array &a) {
			 std::vector<double> ops = numbers(arg(a, 0), "apply_ops");
			 if (bb_ui_apply(&st.ui, ops.data(), ops.size()) < 0)
				 throw std::runtime_error("apply_ops: bad node or key");
			 return Value{nullptr};
		 }},
		{"host_record",
		 [](State &, const Array &a) {
			 std::string text = str(member(arg(a, 0), "text"));
			 bb_record in{int32_t(num(member(arg(a, 0), "id"), "host_record")), {text.data(), text.size()}};
			 bb_record out = bb_record_host(&in);
			 return Value{Object{{"id", {double(out.id)}}, {"text", {std::string(out.text.p, out.text.len)}}}};
		 }},
		{"set_node",
		 [](State &st, const Array &a) {
			 set_node(st, arg(a, 0));
			 return Value{nullptr};
		 }},
		{"apply_batch",
		 [](State &st, const Array &a) {
			 const auto *list = std::get_if<Array>(&arg(a, 0).v);
			 if (!list)
				 throw std::runtime_error("apply_batch: expected an array");
			 for (const auto &node : *list)
				 set_node(st, node);
			 return Value{nullptr};
		 }},
		{"host_bytes",
		 [](State &, const Array &a) {
			 double s = 0;
			 for (double b : numbers(arg(a, 0), "host_bytes"))
				 s += b;
			 return Value{s};
		 }},
	};
	return fns;
}

// ---- What case_table.h calls ----
// Each host -> script call starts with bb_crossing(), the hook that --slowdown slows (docs/bridge.md); the harness's
// host functions call it for script -> host.

int fail(const std::exception &e)
{
	bb_error("%s", e.what());
	return -1;
}

int call_add(void *state, double a, double b, double *out)
{
	State &st = *static_cast<State *>(state);
	bb_crossing();
	try {
		*out = num(call_js(st, st.fn, {{a}, {b}}), "add");
		return 0;
	} catch (const std::exception &e) {
		return fail(e);
	}
}

int call_obj(void *state, const bb_obj_in *in, bb_obj_out *out)
{
	State &st = *static_cast<State *>(state);
	bb_crossing();
	try {
		Array tags;
		for (const auto &t : in->tags)
			tags.push_back({std::string(t.p, t.len)});
		Value o{Object{{"id", {double(in->id)}}, {"name", {std::string(in->name.p, in->name.len)}}, {"x", {in->x}}, {"y", {in->y}},
			       {"tags", {std::move(tags)}}, {"pos", {Object{{"a", {in->pos_a}}, {"b", {in->pos_b}}}}}}};
		Value r = call_js(st, st.fn, {o});
		out->id = int32_t(num(member(r, "id"), "obj"));
		out->ok = std::get_if<bool>(&member(r, "ok").v) && std::get<bool>(member(r, "ok").v);
		out->x = num(member(r, "x"), "obj");
		return 0;
	} catch (const std::exception &e) {
		return fail(e);
	}
}

int call_text(void *state, const bb_str *in, bb_str *out)
{
	State &st = *static_cast<State *>(state);
	bb_crossing();
	try {
		st.held = str(call_js(st, st.fn, {{std::string(in->p, in->len)}}));
		*out = {st.held.data(), st.held.size()};
		return 0;
	} catch (const std::exception &e) {
		return fail(e);
	}
}

int call_record(void *state, const bb_record *in, bb_record *out)
{
	State &st = *static_cast<State *>(state);
	bb_crossing();
	try {
		Value r = call_js(st, st.fn, {{Object{{"id", {double(in->id)}}, {"text", {std::string(in->text.p, in->text.len)}}}}});
		st.held = str(member(r, "text"));
		out->id = int32_t(num(member(r, "id"), "record"));
		out->text = {st.held.data(), st.held.size()};
		return 0;
	} catch (const std::exception &e) {
		return fail(e);
	}
}

// call_fail calls the script's fail(i), which throws: the host takes the error's text and stack.
int call_fail(void *state, int32_t i, bb_str *text)
{
	State &st = *static_cast<State *>(state);
	bb_crossing();
	try {
		call_js(st, st.fn, {{double(i)}});
		bb_error("fail(%d) returned instead of throwing", int(i));
		return -1;
	} catch (const ScriptError &) {
		*text = {st.err, std::strlen(st.err)};
		return 0;
	} catch (const std::exception &e) {
		return fail(e);
	}
}

void teardown(void *state)
{
	State *st = static_cast<State *>(state);
	if (st->ctx) {
		for (JSValue h : st->handles)
			JS_FreeValue(st->ctx, h);
		JS_FreeValue(st->ctx, st->fn);
		JS_FreeValue(st->ctx, st->stringify);
		bb_js_free(st->ctx);
	}
	free(st->text);
	delete st;
}

// new_state makes a context with every host function (case_table.h loads the case's script into it).
State *new_state(void **state)
{
	State *st = new State;
	*state = st;
	st->ctx = bb_js_new(st);
	if (!st->ctx)
		return nullptr;
	JSValue global = JS_GetGlobalObject(st->ctx);
	// Typed arrays cross as arrays of numbers, as JSON has no bytes.
	static const char to_text[] = "(v => JSON.stringify(ArrayBuffer.isView(v) ? Array.from(v) : v))";
	st->stringify = JS_Eval(st->ctx, to_text, sizeof to_text - 1, "<bridge>", JS_EVAL_TYPE_GLOBAL);
	int rc = JS_IsException(st->stringify) ? -1 : 0;
	for (const auto &kv : host_functions()) {
		JSValue name = JS_NewString(st->ctx, kv.first.c_str());
		JSValue f = JS_NewCFunctionData(st->ctx, host_entry, 0, 0, 1, &name);
		JS_FreeValue(st->ctx, name);
		if (JS_SetPropertyStr(st->ctx, global, kv.first.c_str(), f) < 0)
			rc = -1;
	}
	JS_FreeValue(st->ctx, global);
	if (rc < 0) {
		bb_js_fail(st->ctx);
		return nullptr;
	}
	return st;
}

// callback_registered: host_register keeps the script's function in fn.
int callback_registered(const State *st)
{
	return JS_IsFunction(st->ctx, st->fn);
}

} // namespace

#define BB_STATE State
#include "case_table.h"
