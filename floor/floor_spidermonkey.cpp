// floor_spidermonkey.cpp: the floor of SpiderMonkey (mozjs 102 on Debian 12, 128 on Debian 13), the cases written
// straight against its C++ embedding API along its cheapest documented paths: a host function is a JSNative defined
// with JS_DefineFunction, a call into script is JS_CallFunctionValue, numbers cross as JS::Value doubles
// (JS::ToNumber), strings as UTF-8 copies (JS_EncodeStringToUTF8, JS_NewStringCopyUTF8N). The harness is compiled
// with -DBB_ENGINE_NONE: this file is its SpiderMonkey adapter too (engine.h: SpiderMonkey takes no allocator from
// its embedder, so the memory records have the host's counts alone). The cases it does not list are recorded as not
// implemented.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <jsapi.h>
#include <js/CallAndConstruct.h>
#include <js/CharacterEncoding.h>
#include <js/CompilationAndEvaluation.h>
#include <js/Conversions.h>
#include <js/Exception.h>
#include <js/Initialization.h>
#include <js/PropertyAndElement.h>
#include <js/SourceText.h>
#include <js/String.h>

#include "engine.h"
#include "harness_core.h"

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

struct State {
	JS::PersistentRootedObject global;
	JS::PersistentRootedValue fn; // bench(n), or the function the host calls
	char *text = nullptr;         // the host's text of a case with bytes
	size_t text_len = 0;
	JS::UniqueChars held; // a host -> script call's string result, until the next call
	State() : global(cx), fn(cx) {}
};

// The realm the context is in: the case's whose code runs. Entered when another case's code is to run (the --ref
// case alternates with the measured one), not per call: an embedder with one global enters it once.
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

// fail turns the pending exception into bb_error and returns -1.
int fail()
{
	JS::RootedValue exc(cx);

	if (!JS_GetPendingException(cx, &exc)) {
		bb_error("SpiderMonkey failed without an exception (out of memory?)");
		return -1;
	}
	JS_ClearPendingException(cx);
	JS::RootedString s(cx, JS::ToString(cx, exc));
	JS::UniqueChars text = s ? JS_EncodeStringToUTF8(cx, s) : nullptr;
	JS_ClearPendingException(cx);
	bb_error("%s", text ? text.get() : "exception that cannot be converted to a string");
	return -1;
}

// ==== Host functions ====

bool host_add(JSContext *c, unsigned argc, JS::Value *vp)
{
	JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
	double a, b;

	if (!JS::ToNumber(c, args.get(0), &a) || !JS::ToNumber(c, args.get(1), &b))
		return false;
	args.rval().setNumber(bb_add(a, b));
	return true;
}

bool host_upper(JSContext *c, unsigned argc, JS::Value *vp)
{
	JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
	JS::RootedString s(c, JS::ToString(c, args.get(0)));
	JS::UniqueChars text = s ? JS_EncodeStringToUTF8(c, s) : nullptr;

	if (!text)
		return false;
	size_t len = std::strlen(text.get()); // the case's strings hold no NUL
	bb_upper_ascii(text.get(), text.get(), len);
	JSString *r = JS_NewStringCopyUTF8N(c, JS::UTF8Chars(text.get(), len));
	if (!r)
		return false;
	args.rval().setString(r);
	return true;
}

State *registering; // the state whose script runs at set-up: host_register keeps its function there

bool host_register(JSContext *c, unsigned argc, JS::Value *vp)
{
	JS::CallArgs args = JS::CallArgsFromVp(argc, vp);

	if (!args.get(0).isObject() || !JS::IsCallable(&args.get(0).toObject())) {
		JS_ReportErrorASCII(c, "host_register: not a function");
		return false;
	}
	if (registering)
		registering->fn = args.get(0);
	args.rval().setUndefined();
	return true;
}

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

int call_text(void *p, const bb_str *in, bb_str *out)
{
	State *st = static_cast<State *>(p);
	JS::RootedValueArray<1> args(cx);
	JS::RootedValue r(cx);

	bb_crossing();
	enter(st);
	JSString *s = JS_NewStringCopyUTF8N(cx, JS::UTF8Chars(in->p, in->len));
	if (!s)
		return fail();
	args[0].setString(s);
	if (!JS_CallFunctionValue(cx, nullptr, st->fn, args, &r))
		return fail();
	JS::RootedString rs(cx, JS::ToString(cx, r));
	if (!rs || !(st->held = JS_EncodeStringToUTF8(cx, rs)))
		return fail();
	out->p = st->held.get();
	out->len = std::strlen(out->p);
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
	JS_DestroyContext(cx);
	cx = nullptr;
	JS_ShutDown();
}

// load makes a global with the host functions, the case's text and script, and its function fn_name in st->fn.
int load(const bb_case *c, void **out, const char *fn_name)
{
	if (!cx) {
		if (!JS_Init() || !(cx = JS_NewContext(JS::DefaultHeapMaxBytes)) || !JS::InitSelfHostedCode(cx)) {
			bb_error("SpiderMonkey did not start (JS_Init, JS_NewContext, JS::InitSelfHostedCode)");
			return -1;
		}
		std::atexit(shut_down);
	}
	State *st = new State();
	*out = st;
	JS::RealmOptions options;
	st->global = JS_NewGlobalObject(cx, &global_class, nullptr, JS::FireOnNewGlobalHook, options);
	if (!st->global)
		return fail();
	enter(st);
	int32_t bytes = bb_case_bytes(c->name);
	if (bytes > 0) {
		st->text_len = size_t(bytes);
		if (!(st->text = bb_text_new(st->text_len))) {
			bb_error("out of memory");
			return -1;
		}
	}
	if (!JS_DefineFunction(cx, st->global, "host_add", host_add, 2, 0) ||
	    !JS_DefineFunction(cx, st->global, "host_upper", host_upper, 1, 0) ||
	    !JS_DefineFunction(cx, st->global, "host_register", host_register, 1, 0) ||
	    !JS_DefineProperty(cx, st->global, "N", bytes, JSPROP_ENUMERATE))
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

int run_js_loop(void *p, uint64_t n, uint64_t *ops)
{
	State *st = static_cast<State *>(p);
	JS::RootedValueArray<1> args(cx);
	JS::RootedValue r(cx);
	double result;

	enter(st);
	args[0].setNumber(double(n));
	if (!JS_CallFunctionValue(cx, nullptr, st->fn, args, &r) || !JS::ToNumber(cx, r, &result))
		return fail();
	bb_sink += result;
	*ops = n;
	return 0;
}

#define BB_STATE State
#include "engine_cases.h"

} // namespace

const bb_case bb_cases[] = {BB_ENGINE_CASES};
const bb_missing bb_missing_cases[] = {BB_ENGINE_MISSING};
const int bb_ncases = sizeof bb_cases / sizeof bb_cases[0];
