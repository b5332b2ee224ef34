/* harness_core.h: the bench program protocol (docs/protocol.md) as every program linked with the harness shares it,
 * whatever its engine. harness.h adds QuickJS's helpers to it (what a QuickJS program includes); a program over
 * another engine includes this file and its engine's adapter header.
 *
 * A program compiles harness.c (the whole harness: main() and the files it includes) and provides a case table. The
 * harness parses the command line, measures the timer, warms up, calibrates, takes the samples and prints every
 * record; a program only says how to set a case up, how to run n loop units of it and how to tear it down.
 *
 * Besides the protocol, this file declares what every program must share so that they differ only in how a value
 * crosses the boundary: the JavaScript of every case and the host-side work. */
#ifndef BB_HARNESS_CORE_H
#define BB_HARNESS_CORE_H

#include <stddef.h>
#include <stdint.h>

/* C++ bridges include this header and define bb_cases and the rest: C linkage keeps their names what the harness
 * (compiled as C) links against. */
#ifdef __cplusplus
extern "C" {
#endif

/* ---- What a program provides ---- */

typedef struct bb_case bb_case;

struct bb_case {
	const char *name;
	/* Creates what the case needs outside the timed region. Returns 0, or -1 after bb_error(). *state may be set
	 * even on failure: teardown runs whenever *state is not NULL, so a setup can leave cleanup to it. */
	int (*setup)(const bb_case *c, void **state);
	/* Runs n loop units and stores the op count they make in *ops (16 per unit for ui_ops_*, else one).
	 * Returns 0, or -1 after bb_error(). */
	int (*run)(void *state, uint64_t n, uint64_t *ops);
	void (*teardown)(void *state);
};

extern const bb_case bb_cases[];
extern const int bb_ncases;
extern const char *const bb_program; /* "floor" or "bridge": meta program */
extern const char *const bb_codec;   /* "json", ...; NULL for none: meta codec */

/* A program may say why it lacks cases of the catalogue: bb_missing_cases, ended by {NULL, NULL}. The harness prints
 * each as `meta not_implemented.CASE REASON`, and the artifact keeps the reason beside the case (not_implemented_why).
 * It is optional: a program that does not define it links as before (a weak reference, NULL when undefined). */
typedef struct bb_missing {
	const char *name, *reason;
} bb_missing;
extern const bb_missing bb_missing_cases[]
#if defined(__GNUC__)
	__attribute__((weak))
#endif
	;

/* ---- What the harness offers ---- */

/* bb_error records why the current case failed; the harness prints it as one `error CASE MESSAGE` line. */
void bb_error(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

/* bb_now_ns reads the monotonic clock. */
uint64_t bb_now_ns(void);

/* bb_sink receives every timed result so that no work can be optimised away. */
extern volatile double bb_sink;

/* ---- The slowdown hook: the gate's A/B proof in one binary ----
 *
 * bb_crossing is called once per crossing: by the host-side work below (script -> host) and by the programs' host ->
 * script calls. It counts the crossings and, when `run --slowdown SHARE` is given, adds busy work that the harness
 * calibrated at start-up to be SHARE of the case's own cost per op on this machine (docs/protocol.md). Without the
 * flag it costs one increment and one predictable branch, in both the A and the B process of the same binary. */
extern uint64_t bb_crossings;
extern uint64_t bb_slowdown_q8; /* busy-work steps per crossing, in 1/256 steps; 0 for none */
/* bb_extra_alloc is 1 when the environment sets BB_EXTRA_ALLOC=1: every crossing then makes one host allocation of
 * 16 bytes (the allocation gate's A/B proof, docs/protocol.md); 0 otherwise. */
extern uint64_t bb_extra_alloc;
/* bb_slowdown adds the calibrated busy work of one crossing (and the extra allocation, when asked for). */
void bb_slowdown(void);
static inline void bb_crossing(void)
{
	bb_crossings++;
	if (bb_slowdown_q8 | bb_extra_alloc)
		bb_slowdown();
}

/* ---- The host side's allocator: what the memory pass counts as the bridge's own ----
 *
 * The harness counts allocations in a memory pass after each case's samples (docs/protocol.md, the memory record):
 * the engine's through the allocator its adapter hands the engine (engine.h; QuickJS's JSMallocFunctions), the host
 * side's through these, which the bridge's codecs and host functions call instead of malloc. A hook rather than
 * interposing malloc: interposition would count the engine's allocations (and libc's own) as the bridge's, where the
 * two must stay apart, and it needs link tricks that differ between glibc, bionic and Apple's libc and between
 * static and dynamic programs. A bridge linked with the harness that allocates otherwise (C++ new, std::string)
 * reports host counts of what went through these only. Memory from them is plain malloc memory: free() and bb_free() both release it. */
void *bb_malloc(size_t size);
void *bb_calloc(size_t count, size_t size);
void *bb_realloc(void *p, size_t size);
void bb_free(void *p);

/* ---- The cases' JavaScript, the same in every program (harness_scripts.c) ----
 *
 * Script -> host cases define bench(n), whose loop makes n crossings, and check their host functions when the
 * script is evaluated (an exception there fails the case). Host -> script cases define the function the host
 * calls; callback hands one to host_register(). */

/* bb_case_script returns the JavaScript source of the named case, or NULL. */
const char *bb_case_script(const char *case_name);
/* bb_case_bytes returns the case's bytes, the global N its script reads (0 when it has none), or -1 for no case of
 * that name. */
int32_t bb_case_bytes(const char *case_name);
/* bb_prelude is evaluated before every case's script (it defines expect): an engine's loader, when it is not the
 * harness's, evaluates it, sets N and evaluates the case's script. */
extern const char *const bb_prelude;

/* ---- Host-side work, the same in every program ---- */

#define BB_MOD 1000003.0 /* keeps the running sums of the loops exact integers */

/* bb_add is host_add, the callback's and host_to_script_scalar's arithmetic: (a + b) % 1000003, as in JS. */
double bb_add(double a, double b);

/* bb_upper_ascii is host_upper: copies len bytes, upper-casing ASCII letters and leaving UTF-8 sequences alone. */
void bb_upper_ascii(char *dst, const char *src, size_t len);

/* bb_text_new makes the host's text of a case with bytes: exactly n UTF-8 bytes and a NUL, the same text as the
 * scripts' mkstr(n). malloc'd; NULL when out of memory. */
char *bb_text_new(size_t n);

typedef struct bb_str {
	const char *p;
	size_t len;
} bb_str;

/* The object of script_to_host_object and host_to_script_object, as a typed host sees it. */
typedef struct bb_obj_in {
	int32_t id;
	bb_str name;
	double x, y;
	bb_str tags[3];
	double pos_a, pos_b;
} bb_obj_in;

/* The object that comes back: {id: id + 1, ok: true, x: x + y}. */
typedef struct bb_obj_out {
	int32_t id;
	int ok;
	double x;
} bb_obj_out;

/* bb_obj_sample is the object the host sends in host_to_script_object (id varies per call). */
bb_obj_in bb_obj_sample(int32_t id);
/* bb_obj_host is host_obj (and what the JS function of host_to_script_object computes). */
bb_obj_out bb_obj_host(const bb_obj_in *in);

#define BB_ARRAY_LEN 64
/* bb_sum is host_sum over an array of BB_ARRAY_LEN numbers. */
double bb_sum(const double *v, size_t n);

/* UI: a small table of nodes with numeric properties, mutated by set_prop / apply_ops. */
#define BB_UI_NODES 64
#define BB_UI_KEYS 8
#define BB_UI_FRAME 16 /* mutations per frame: one ui_ops_* loop unit */
typedef struct bb_ui {
	double props[BB_UI_NODES][BB_UI_KEYS];
} bb_ui;
/* bb_ui_key maps a property name to its index (the interned key of ui_ops_buffer), or -1. */
int bb_ui_key(const char *s, size_t len);
/* bb_ui_set applies one mutation; -1 (after bb_error) for a bad node or key. */
int bb_ui_set(bb_ui *ui, double id, double key, double value);
/* bb_ui_apply applies (id, key, value) triples from a buffer of n doubles. */
int bb_ui_apply(bb_ui *ui, const double *ops, size_t n);
/* bb_ui_check compares the table with what `frames` frames of the case scripts produce from zero. */
int bb_ui_check(const bb_ui *ui, uint64_t frames);

#define BB_BYTES_LEN 65536
/* bb_bytes_sum is host_bytes: the sum of the bytes. */
double bb_bytes_sum(const uint8_t *p, size_t n);

/* bb_check_add makes 100 host -> script calls the way host_to_script_scalar does (s = call(s, i)) and compares
 * with bb_add; bb_check_obj makes one call as host_to_script_object does and compares with bb_obj_host.
 * call returns 0, or -1 after bb_error. Both return 0, or -1 after bb_error. */
int bb_check_add(void *st, int (*call)(void *st, double a, double b, double *out));
int bb_check_obj(void *st, int (*call)(void *st, const bb_obj_in *in, bb_obj_out *out));

/* The object of the *_object_string_* cases: {id, text}, text of the case's bytes. */
typedef struct bb_record {
	int32_t id;
	bb_str text;
} bb_record;

/* bb_record_host is host_record (and what the JavaScript function record computes): {id: id + 1, text: text}, the
 * text the same bytes as the argument's. */
bb_record bb_record_host(const bb_record *in);

/* bb_check_text makes one call as host_to_script_string_* does and checks that the text came back unchanged;
 * bb_check_record does the same for host_to_script_object_string_*. A call's out->text stays valid until the next
 * call. Both return 0, or -1 after bb_error. */
int bb_check_text(void *st, bb_str text, int (*call)(void *st, const bb_str *in, bb_str *out));
int bb_check_record(void *st, bb_str text, int (*call)(void *st, const bb_record *in, bb_record *out));

/* bb_fail_message formats host_fail's error message for argument i. */
void bb_fail_message(char *buf, size_t size, int32_t i);

/* bb_check_script_error makes one call as error_script_to_host does: call(st, i, text) calls the script's fail(i),
 * which throws, and gives the error's text as the host got it ("Error: message", a newline and the stack, valid
 * until the next call; where the engine's stack begins with that first line, it need not come twice). It checks the
 * message and that the stack names fail. 0, or -1 after bb_error. */
int bb_check_script_error(void *st, int (*call)(void *st, int32_t i, bb_str *text));

/* UI mutations as small objects {id, key, value}: bb_ui_set_named applies one whose key is a property name. */
int bb_ui_set_named(bb_ui *ui, double id, const char *key, size_t key_len, double value);

#ifdef __cplusplus
}
#endif

#endif
