// floor_v8.cc: the floor of V8, the cases written straight against its C++ API as Node's headers give it (a Node
// addon): a host function is a v8::FunctionTemplate callback, a call into script is v8::Function::Call, numbers cross
// as v8::Number, strings as UTF-8 copies (String::NewFromUtf8, String::WriteUtf8). Node's headers ship no
// v8-fast-api-calls.h, so the fast API calls (a typed C function V8's optimising compiler calls directly) are out of
// reach: this is the general callback path. The program is node running floor_v8.js, which calls this addon's main
// with the command line; the harness (compiled with -DBB_ENGINE_NONE -Dmain=bb_harness_main) then speaks the
// protocol as in any floor. Each case has a context of its own in node's isolate.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <node.h>
#include <v8.h>

#include "engine.h"
#include "harness_core.h"

extern "C" int bb_harness_main(int argc, char **argv);

const char *const bb_program = "floor";
const char *const bb_codec = nullptr;

void bb_engine_meta(void)
{
	std::printf("meta engine v8 %s\n", v8::V8::GetVersion());
}

BB_ENGINE_UNCOUNTED

namespace {

v8::Isolate *iso;

struct State {
	v8::Global<v8::Context> ctx;
	v8::Global<v8::Function> fn; // bench(n), or the function the host calls
	char *text = nullptr;        // the host's text of a case with bytes
	size_t text_len = 0;
	std::vector<char> held; // a host -> script call's string result, until the next call
};

State *registering; // the state whose script runs at set-up: host_register keeps its function there

// fail turns the exception try_catch caught into bb_error and returns -1.
int fail(const v8::TryCatch &tc)
{
	if (!tc.HasCaught()) {
		bb_error("V8 failed without an exception (terminated?)");
		return -1;
	}
	v8::String::Utf8Value text(iso, tc.Exception());
	bb_error("%s", *text ? *text : "exception that cannot be converted to a string");
	return -1;
}

// ==== Host functions ====

void host_add(const v8::FunctionCallbackInfo<v8::Value> &info)
{
	v8::Local<v8::Context> ctx = iso->GetCurrentContext();
	double a, b;

	if (!info[0]->NumberValue(ctx).To(&a) || !info[1]->NumberValue(ctx).To(&b))
		return;
	info.GetReturnValue().Set(bb_add(a, b));
}

void host_upper(const v8::FunctionCallbackInfo<v8::Value> &info)
{
	v8::Local<v8::Context> ctx = iso->GetCurrentContext();
	v8::Local<v8::String> s;

	if (!info[0]->ToString(ctx).ToLocal(&s))
		return;
	std::vector<char> buf(size_t(s->Utf8Length(iso)) + 1);
	int len = s->WriteUtf8(iso, buf.data(), int(buf.size()));
	bb_upper_ascii(buf.data(), buf.data(), size_t(len - 1)); // len counts the NUL
	v8::Local<v8::String> r;
	if (v8::String::NewFromUtf8(iso, buf.data(), v8::NewStringType::kNormal, len - 1).ToLocal(&r))
		info.GetReturnValue().Set(r);
}

void host_register(const v8::FunctionCallbackInfo<v8::Value> &info)
{
	if (!info[0]->IsFunction()) {
		iso->ThrowException(v8::Exception::TypeError(v8::String::NewFromUtf8Literal(iso, "host_register: not a function")));
		return;
	}
	if (registering)
		registering->fn.Reset(iso, info[0].As<v8::Function>());
}

// ==== Host -> script calls ====

int call_add(void *p, double a, double b, double *out)
{
	State *st = static_cast<State *>(p);
	v8::HandleScope hs(iso);
	v8::Local<v8::Context> ctx = st->ctx.Get(iso);
	v8::Context::Scope cs(ctx);
	v8::TryCatch tc(iso);
	v8::Local<v8::Value> args[2] = {v8::Number::New(iso, a), v8::Number::New(iso, b)}, r;

	bb_crossing();
	if (!st->fn.Get(iso)->Call(ctx, v8::Undefined(iso), 2, args).ToLocal(&r) || !r->NumberValue(ctx).To(out))
		return fail(tc);
	return 0;
}

int call_text(void *p, const bb_str *in, bb_str *out)
{
	State *st = static_cast<State *>(p);
	v8::HandleScope hs(iso);
	v8::Local<v8::Context> ctx = st->ctx.Get(iso);
	v8::Context::Scope cs(ctx);
	v8::TryCatch tc(iso);
	v8::Local<v8::Value> arg, r;
	v8::Local<v8::String> s;

	bb_crossing();
	if (!v8::String::NewFromUtf8(iso, in->p, v8::NewStringType::kNormal, int(in->len)).ToLocal(&s))
		return fail(tc);
	arg = s;
	if (!st->fn.Get(iso)->Call(ctx, v8::Undefined(iso), 1, &arg).ToLocal(&r) || !r->ToString(ctx).ToLocal(&s))
		return fail(tc);
	st->held.resize(size_t(s->Utf8Length(iso)) + 1);
	out->len = size_t(s->WriteUtf8(iso, st->held.data(), int(st->held.size()))) - 1;
	out->p = st->held.data();
	return 0;
}

// ==== Set-ups, loops and the table ====

bb_str text_of(const State *st)
{
	return bb_str{st->text, st->text_len};
}

void teardown(void *p)
{
	State *st = static_cast<State *>(p);

	std::free(st->text);
	delete st;
}

// eval runs src in the current context and stores its completion value in *r (when r is not NULL).
int eval(v8::Local<v8::Context> ctx, const char *src, const char *file, v8::Local<v8::Value> *r = nullptr)
{
	v8::TryCatch tc(iso);
	v8::Local<v8::String> text;
	v8::ScriptOrigin origin(iso, v8::String::NewFromUtf8(iso, file).ToLocalChecked());
	v8::Local<v8::Script> script;
	v8::Local<v8::Value> v;

	if (!v8::String::NewFromUtf8(iso, src).ToLocal(&text) || !v8::Script::Compile(ctx, text, &origin).ToLocal(&script) ||
	    !script->Run(ctx).ToLocal(&v))
		return fail(tc);
	if (r)
		*r = v;
	return 0;
}

// load makes a context with the host functions, the case's text and script, and its function fn_name in st->fn.
int load(const bb_case *c, void **out, const char *fn_name)
{
	State *st = new State();
	*out = st;
	v8::HandleScope hs(iso);
	v8::Local<v8::ObjectTemplate> global = v8::ObjectTemplate::New(iso);
	int32_t bytes = bb_case_bytes(c->name);

	global->Set(iso, "host_add", v8::FunctionTemplate::New(iso, host_add));
	global->Set(iso, "host_upper", v8::FunctionTemplate::New(iso, host_upper));
	global->Set(iso, "host_register", v8::FunctionTemplate::New(iso, host_register));
	global->Set(iso, "N", v8::Integer::New(iso, bytes));
	v8::Local<v8::Context> ctx = v8::Context::New(iso, nullptr, global);
	st->ctx.Reset(iso, ctx);
	v8::Context::Scope cs(ctx);
	if (bytes > 0) {
		st->text_len = size_t(bytes);
		if (!(st->text = bb_text_new(st->text_len))) {
			bb_error("out of memory");
			return -1;
		}
	}
	registering = st;
	int rc = eval(ctx, bb_prelude, "prelude.js") < 0 || eval(ctx, bb_case_script(c->name), c->name) < 0 ? -1 : 0;
	registering = nullptr;
	if (rc < 0 || !fn_name)
		return rc;
	v8::Local<v8::Value> fn;
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

int run_js_loop(void *p, uint64_t n, uint64_t *ops)
{
	State *st = static_cast<State *>(p);
	v8::HandleScope hs(iso);
	v8::Local<v8::Context> ctx = st->ctx.Get(iso);
	v8::Context::Scope cs(ctx);
	v8::TryCatch tc(iso);
	v8::Local<v8::Value> arg = v8::Number::New(iso, double(n)), r;
	double result;

	if (!st->fn.Get(iso)->Call(ctx, v8::Undefined(iso), 1, &arg).ToLocal(&r) || !r->NumberValue(ctx).To(&result))
		return fail(tc);
	bb_sink += result;
	*ops = n;
	return 0;
}

#define BB_STATE State
#include "engine_cases.h"

// main is the addon's one export: main(argv) runs the harness with argv (the program's name first) and returns its
// exit status.
void main_(const v8::FunctionCallbackInfo<v8::Value> &info)
{
	iso = info.GetIsolate();
	v8::Local<v8::Context> ctx = iso->GetCurrentContext();
	v8::Local<v8::Array> args = info[0].As<v8::Array>();
	std::vector<std::string> words;
	std::vector<char *> argv;

	for (uint32_t i = 0; i < args->Length(); i++)
		words.push_back(*v8::String::Utf8Value(iso, args->Get(ctx, i).ToLocalChecked()));
	for (auto &w : words)
		argv.push_back(w.data());
	argv.push_back(nullptr);
	int rc = bb_harness_main(int(words.size()), argv.data());
	std::fflush(stdout);
	info.GetReturnValue().Set(rc);
}

void init(v8::Local<v8::Object> exports)
{
	NODE_SET_METHOD(exports, "main", main_);
}

} // namespace

const bb_case bb_cases[] = {BB_ENGINE_CASES};
const int bb_ncases = sizeof bb_cases / sizeof bb_cases[0];
const bb_missing bb_missing_cases[] = {BB_ENGINE_MISSING};

NODE_MODULE(NODE_GYP_MODULE_NAME, init)
