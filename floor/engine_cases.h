/* engine_cases.h: the set-ups, loops and case table of the floors of the engines besides QuickJS (floor_jsc.c,
 * floor_spidermonkey.cpp, floor_v8.cc, floor_duktape.c, floor_mujs.c), so that they differ only in how they call their
 * engine. A floor includes it after defining BB_STATE (its state, with text, text_len and ui: the bb_ui its set_prop,
 * apply_ops, set_node and apply_batch mutate) and the static functions it names: load(c, state, fn_name) (a context
 * with the host functions, the case's text and script, and its function fn_name kept), run_js_loop (bench(n), *ops =
 * n), call_add, call_text, call_obj, call_record, call_fail (the host -> script calls of harness_core.h's bb_check_*),
 * text_of, callback_registered(st) and teardown. Its host functions are those of floor.c: host_add, host_upper,
 * host_register, host_obj, host_sum, host_fail, set_prop, set_node, apply_batch, host_record, and, where the engine
 * has typed arrays, apply_ops and host_bytes.
 *
 * A floor whose engine has no typed arrays defines BB_ENGINE_NO_TYPED_ARRAYS first, as the start of the reason ("mujs
 * has no typed arrays (ES5): "): ui_ops_buffer and bytes_64k are then recorded as not implemented, with it.
 *
 * A floor may include it once before as well, without BB_STATE, for the helpers alone (engine_scratch and
 * engine_text), which its host functions and load use. */
#ifndef BB_ENGINE_HELPERS_H
#define BB_ENGINE_HELPERS_H

#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* engine_scratch is a buffer of at least n bytes, for a host function's result (host_upper's) or a string's copy:
 * one for the process, as cases run one at a time. NULL after bb_error when out of memory. */
static inline char *engine_scratch(size_t n)
{
	static char *p;
	static size_t cap;

	if (n > cap) {
		char *q = (char *)bb_realloc(p, n);
		if (!q) {
			bb_error("out of memory");
			return NULL;
		}
		p = q;
		cap = n;
	}
	return p;
}

/* engine_es5 is a copy of src (to free) with its let and const declarations as var, for the ES5 engines (Duktape,
 * MuJS), which have neither: the catalogue keeps them, as QuickJS's numbers and every history of them are measured
 * with let (cases/c/harness_scripts.c says why), and in the cases' scripts they mean what var does (no closure
 * captures a loop's binding). "const" becomes "var  ", so that a line and column still point where they did. NULL
 * after bb_error when out of memory. */
static inline char *engine_es5(const char *src)
{
	size_t n = strlen(src), i;
	char *out = (char *)malloc(n + 1);

	if (!out) {
		bb_error("out of memory");
		return NULL;
	}
	memcpy(out, src, n + 1);
	for (i = 0; i < n; i++) {
		int word_start = i == 0 || !(isalnum((unsigned char)src[i - 1]) || src[i - 1] == '_' || src[i - 1] == '$');

		if (word_start && strncmp(src + i, "let ", 4) == 0)
			memcpy(out + i, "var", 3);
		else if (word_start && strncmp(src + i, "const ", 6) == 0)
			memcpy(out + i, "var  ", 5);
	}
	return out;
}

/* engine_text makes the host's text of case c (bb_case_bytes: none for a case without bytes). 0, or -1 after
 * bb_error. */
static inline int engine_text(const bb_case *c, char **text, size_t *len)
{
	int32_t bytes = bb_case_bytes(c->name);

	*len = bytes > 0 ? (size_t)bytes : 0;
	if (*len > 0 && !(*text = bb_text_new(*len))) {
		bb_error("out of memory");
		return -1;
	}
	return 0;
}

/* engine_heap counts the live allocations of one engine heap made on engine_realloc: a floor whose engine takes an
 * allocator from its embedder (Duktape's duk_create_heap, MuJS's js_newstate) keeps one in its state and counts
 * through it, as engine_quickjs.c counts QuickJS's; BB_ENGINE_COUNTED then gives the memory pass its hooks. */
typedef struct engine_heap {
	int64_t bytes, allocs;
} engine_heap;

/* engine_header is in front of each block of a counted heap: its size, for the live counts. */
typedef union engine_header {
	size_t size;
	max_align_t align;
} engine_header;

/* engine_counting says whether the heap made next is counted (the memory pass's set-up); engine_live is that heap,
 * until it is freed: the case's, whose live counts the memory record reports. */
static inline int *engine_counting(void)
{
	static int on;
	return &on;
}

static inline engine_heap **engine_live(void)
{
	static engine_heap *h;
	return &h;
}

/* engine_heap_begin starts h for a heap about to be made and returns 1 when it is to be counted (the floor then
 * gives the engine its allocator over engine_realloc), 0 when the engine keeps its own. */
static inline int engine_heap_begin(engine_heap *h)
{
	memset(h, 0, sizeof *h);
	if (!*engine_counting())
		return 0;
	*engine_live() = h;
	return 1;
}

/* engine_heap_end comes after the heap of h is freed. */
static inline void engine_heap_end(engine_heap *h)
{
	if (*engine_live() == h)
		*engine_live() = NULL;
}

/* engine_realloc is realloc for a counted heap h: p NULL allocates, size 0 frees (and returns NULL). Each allocation
 * and reallocation is counted (harness_count_engine), as QuickJS's are. */
static inline void *engine_realloc(engine_heap *h, void *p, size_t size)
{
	engine_header *b = p ? (engine_header *)p - 1 : NULL;

	if (size == 0) {
		if (b) {
			h->bytes -= (int64_t)b->size;
			h->allocs--;
			free(b);
		}
		return NULL;
	}
	if (size > SIZE_MAX - sizeof *b)
		return NULL;
	{
		size_t old = b ? b->size : 0;
		engine_header *q = (engine_header *)realloc(b, sizeof *q + size);

		if (!q)
			return NULL;
		q->size = size;
		h->bytes += (int64_t)size - (int64_t)old;
		h->allocs += b ? 0 : 1;
		harness_count_engine(size);
		return q + 1;
	}
}

/* BB_ENGINE_COUNTED defines the memory pass's hooks (engine.h) for a floor that counts through engine_realloc. */
#define BB_ENGINE_COUNTED                                        \
	int bb_engine_count_setup(int on)                        \
	{                                                        \
		if (on)                                          \
			*engine_live() = NULL;                   \
		*engine_counting() = on;                         \
		return 1;                                        \
	}                                                        \
	int bb_engine_heap(int64_t *bytes, int64_t *allocs)      \
	{                                                        \
		if (!*engine_live())                             \
			return 0;                                \
		*bytes = (*engine_live())->bytes;                \
		*allocs = (*engine_live())->allocs;              \
		return 1;                                        \
	}

#endif

#if defined(BB_STATE) && !defined(BB_ENGINE_CASES_H)
#define BB_ENGINE_CASES_H

#define BB_LOOP_ADD 1
#define BB_LOOP_TEXT 1
#define BB_LOOP_OBJ 1
#define BB_LOOP_RECORD 1
#define BB_LOOP_FAIL 1
#include "case_loops.h"

static int setup_js_loop(const bb_case *c, void **state)
{
	return load(c, state, "bench");
}

static int setup_h2s_scalar(const bb_case *c, void **state)
{
	return load(c, state, "add") < 0 ? -1 : bb_check_add(*state, call_add);
}

static int setup_h2s_string(const bb_case *c, void **state)
{
	return load(c, state, "text") < 0 ? -1 : bb_check_text(*state, text_of((BB_STATE *)*state), call_text);
}

/* setup_callback: the script hands its function to host_register, which the floor keeps. */
static int setup_callback(const bb_case *c, void **state)
{
	if (load(c, state, NULL) < 0)
		return -1;
	if (!callback_registered((BB_STATE *)*state)) {
		bb_error("the script registered no callback");
		return -1;
	}
	return bb_check_add(*state, call_add);
}

static int setup_h2s_object(const bb_case *c, void **state)
{
	return load(c, state, "obj") < 0 ? -1 : bb_check_obj(*state, call_obj);
}

static int setup_h2s_record(const bb_case *c, void **state)
{
	return load(c, state, "record") < 0 ? -1 : bb_check_record(*state, text_of((BB_STATE *)*state), call_record);
}

static int setup_script_error(const bb_case *c, void **state)
{
	return load(c, state, "fail") < 0 ? -1 : bb_check_script_error(*state, call_fail);
}

/* setup_ui also checks that three frames leave the node table as the script's mutations should (case_table.h's). */
static int setup_ui(const bb_case *c, void **state)
{
	BB_STATE *st;
	uint64_t ops;

	if (load(c, state, "bench") < 0)
		return -1;
	st = (BB_STATE *)*state;
	if (run_js_loop(st, 3, &ops) < 0 || bb_ui_check(&st->ui, 3) < 0)
		return -1;
	memset(&st->ui, 0, sizeof st->ui);
	return 0;
}

/* run_ui_loop: bench(n) makes n frames of BB_UI_FRAME mutations. */
static int run_ui_loop(void *p, uint64_t n, uint64_t *ops)
{
	BB_STATE *st = (BB_STATE *)p;

	if (run_js_loop(p, n, ops) < 0)
		return -1;
	bb_sink += st->ui.props[0][0];
	*ops = n * BB_UI_FRAME;
	return 0;
}

/* The whole catalogue, in cases.def's order; without typed arrays, less ui_ops_buffer and bytes_64k. */
#ifdef BB_ENGINE_NO_TYPED_ARRAYS
#define BB_ENGINE_UI_BUFFER_CASE
#define BB_ENGINE_BYTES_CASE
#define BB_ENGINE_MISSING                                                                                  \
	{"ui_ops_buffer", BB_ENGINE_NO_TYPED_ARRAYS "no Float64Array for the UI mutations to be written into"},   \
	{"bytes_64k", BB_ENGINE_NO_TYPED_ARRAYS "no Uint8Array whose memory the host could read"}, {NULL, NULL}
#else
#define BB_ENGINE_UI_BUFFER_CASE {"ui_ops_buffer", setup_ui, run_ui_loop, teardown},
#define BB_ENGINE_BYTES_CASE , {"bytes_64k", setup_js_loop, run_js_loop, teardown}
#define BB_ENGINE_MISSING \
	{                 \
		NULL, NULL \
	}
#endif
#define BB_ENGINE_CASES                                                                              \
	{"ref_js_loop", setup_js_loop, run_js_loop, teardown},                                        \
	{"script_to_host_scalar", setup_js_loop, run_js_loop, teardown},                              \
	{"script_to_host_string_16", setup_js_loop, run_js_loop, teardown},                           \
	{"script_to_host_string_1k", setup_js_loop, run_js_loop, teardown},                           \
	{"script_to_host_string_64k", setup_js_loop, run_js_loop, teardown},                          \
	{"script_to_host_object", setup_js_loop, run_js_loop, teardown},                              \
	{"script_to_host_object_string_16", setup_js_loop, run_js_loop, teardown},                    \
	{"script_to_host_object_string_1k", setup_js_loop, run_js_loop, teardown},                    \
	{"script_to_host_object_string_64k", setup_js_loop, run_js_loop, teardown},                   \
	{"script_to_host_array", setup_js_loop, run_js_loop, teardown},                               \
	{"host_to_script_scalar", setup_h2s_scalar, run_call_add, teardown},                          \
	{"host_to_script_string_16", setup_h2s_string, run_call_text, teardown},                      \
	{"host_to_script_string_1k", setup_h2s_string, run_call_text, teardown},                      \
	{"host_to_script_string_64k", setup_h2s_string, run_call_text, teardown},                     \
	{"host_to_script_object", setup_h2s_object, run_call_obj, teardown},                          \
	{"host_to_script_object_string_16", setup_h2s_record, run_call_record, teardown},             \
	{"host_to_script_object_string_1k", setup_h2s_record, run_call_record, teardown},             \
	{"host_to_script_object_string_64k", setup_h2s_record, run_call_record, teardown},            \
	{"callback", setup_callback, run_call_add, teardown},                                         \
	{"error_host_to_script", setup_js_loop, run_js_loop, teardown},                               \
	{"error_script_to_host", setup_script_error, run_call_fail, teardown},                        \
	{"ui_ops_calls", setup_ui, run_ui_loop, teardown},                                            \
	BB_ENGINE_UI_BUFFER_CASE                                                                      \
	{"ui_ops_object_calls", setup_ui, run_ui_loop, teardown},                                     \
	{"ui_ops_object_batch", setup_ui, run_ui_loop, teardown} BB_ENGINE_BYTES_CASE

#endif
