/* engine_cases.h: the cases the floors of the engines besides QuickJS have so far (floor_jsc.c,
 * floor_spidermonkey.cpp): the scalar and string crossings both ways and the callback, each with the set-up and loop
 * of that name, which every such floor defines. The catalogue's other cases are recorded as not implemented. */
#ifndef BB_ENGINE_CASES_H
#define BB_ENGINE_CASES_H

#define BB_ENGINE_CASES                                                     \
	{"ref_js_loop", setup_js_loop, run_js_loop, teardown},                      \
	{"script_to_host_scalar", setup_js_loop, run_js_loop, teardown},            \
	{"script_to_host_string_16", setup_js_loop, run_js_loop, teardown},         \
	{"script_to_host_string_1k", setup_js_loop, run_js_loop, teardown},         \
	{"script_to_host_string_64k", setup_js_loop, run_js_loop, teardown},        \
	{"host_to_script_scalar", setup_h2s_scalar, run_call_add, teardown},        \
	{"host_to_script_string_16", setup_h2s_string, run_call_text, teardown},    \
	{"host_to_script_string_1k", setup_h2s_string, run_call_text, teardown},    \
	{"host_to_script_string_64k", setup_h2s_string, run_call_text, teardown},   \
	{"callback", setup_callback, run_call_add, teardown}

/* BB_ENGINE_MISSING says why each other case of the catalogue is not in BB_ENGINE_CASES (bb_missing_cases). */
#define BB_ENGINE_OBJECTS "not written for this engine's floor yet: objects, property by property"
#define BB_ENGINE_MISSING                                                                                    \
	{"script_to_host_object", BB_ENGINE_OBJECTS}, {"script_to_host_object_string_16", BB_ENGINE_OBJECTS},        \
	{"script_to_host_object_string_1k", BB_ENGINE_OBJECTS}, {"script_to_host_object_string_64k", BB_ENGINE_OBJECTS}, \
	{"script_to_host_array", "not written for this engine's floor yet: arrays, element by element"},             \
	{"host_to_script_object", BB_ENGINE_OBJECTS}, {"host_to_script_object_string_16", BB_ENGINE_OBJECTS},        \
	{"host_to_script_object_string_1k", BB_ENGINE_OBJECTS}, {"host_to_script_object_string_64k", BB_ENGINE_OBJECTS}, \
	{"error_host_to_script", "not written for this engine's floor yet: a host error thrown into script"},         \
	{"error_script_to_host", "not written for this engine's floor yet: a script error's message and stack"},      \
	{"ui_ops_calls", "not written for this engine's floor yet: the UI mutation cases"},                          \
	{"ui_ops_buffer", "not written for this engine's floor yet: the UI mutation cases (a Float64Array's memory)"}, \
	{"ui_ops_object_calls", "not written for this engine's floor yet: the UI mutation cases"},                   \
	{"ui_ops_object_batch", "not written for this engine's floor yet: the UI mutation cases"},                   \
	{"bytes_64k", "not written for this engine's floor yet: a Uint8Array's memory"},                             \
	{NULL, NULL}

#endif
