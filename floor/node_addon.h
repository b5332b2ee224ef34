/*
 * node_addon.h: what the floors that are addons of this machine's node share (V8's, floor_v8.cc, and V8's
 * WebAssembly's, floor_v8_wasm.cc): the turn of a caught exception into the harness's error, and the run of the
 * harness from the addon's main(argv). node, loading the addon, is the program; its script calls main with the
 * program's words.
 */
#ifndef BB_NODE_ADDON_H
#define BB_NODE_ADDON_H

#include <cstdio>
#include <string>
#include <vector>

#include <v8.h>

#include "harness_core.h"

extern "C" int bb_harness_main(int argc, char **argv);

namespace bb_node {

/* fail turns the exception tc caught into bb_error and returns -1. */
inline int fail(v8::Isolate *iso, const v8::TryCatch &tc)
{
	if (!tc.HasCaught()) {
		bb_error("V8 failed without an exception (terminated?)");
		return -1;
	}
	v8::String::Utf8Value text(iso, tc.Exception());
	bb_error("%s", *text ? *text : "exception that cannot be converted to a string");
	return -1;
}

/* run_harness runs the harness with the words of args, a JavaScript array (the program's name first), and returns its
 * exit status, with what it printed flushed. */
inline int run_harness(v8::Isolate *iso, v8::Local<v8::Context> ctx, v8::Local<v8::Array> args)
{
	std::vector<std::string> words;
	std::vector<char *> argv;
	for (uint32_t i = 0; i < args->Length(); i++)
		words.push_back(*v8::String::Utf8Value(iso, args->Get(ctx, i).ToLocalChecked()));
	for (auto &w : words)
		argv.push_back(w.data());
	argv.push_back(nullptr);
	int rc = bb_harness_main(int(words.size()), argv.data());
	std::fflush(stdout);
	return rc;
}

} // namespace bb_node

#endif
