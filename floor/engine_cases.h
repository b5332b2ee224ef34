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

#endif
