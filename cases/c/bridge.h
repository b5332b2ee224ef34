/* bridge.h: the parts of the reference bridge, shared by its bench program (bridge.c) and the conformance program
 * (conformance.c): the Dyn type (dyn.c), the bridge's state (bridge_state.c), the typed host functions (host_fns.c)
 * and the codecs (codec_json.c, codec_binary.c, codec_fast.c).
 *
 * The host sees values as Dyn trees and its typed host functions take and give Dyn values; a codec is how a value
 * crosses between QuickJS and Dyn. Every bridge binary holds every codec; -DBB_CODEC_X picks the one its cases use
 * (and its `meta codec`), and the conformance program picks one at run time. */
#ifndef BB_BRIDGE_H
#define BB_BRIDGE_H

#include "harness.h"

/* ==== Dyn: the host's view of a value, a tagged tree ==== */

/* DYN_UNDEF and DYN_BYTES come last so that calloc'd zeros stay DYN_NULL. The json codec makes neither: it sends
 * undefined as null and bytes (a Uint8Array) as an array of numbers. */
typedef enum dyn_kind { DYN_NULL, DYN_BOOL, DYN_NUM, DYN_STR, DYN_ARR, DYN_OBJ, DYN_FN, DYN_UNDEF, DYN_BYTES } dyn_kind;

typedef struct dyn dyn;
typedef struct dyn_member dyn_member;

struct dyn {
	dyn_kind kind;
	union {
		int b;
		double num;
		struct {
			char *p; /* UTF-8, NUL-terminated */
			size_t len;
		} str;
		struct {
			dyn *items;
			size_t len;
		} arr;
		struct {
			dyn_member *members; /* in source order */
			size_t len;
		} obj;
		uint32_t fn; /* a function handle: an index into the bridge's handle table */
		struct {
			uint8_t *p; /* malloc'd, or a view into a codec's message while a host function runs */
			size_t len;
		} bytes;
	} u;
};

struct dyn_member {
	char *key;
	size_t key_len;
	dyn value;
};

/* dyn_free frees a malloc'd tree (not one a codec decoded into its arena). */
void dyn_free(dyn *d);

static inline dyn dyn_num(double v)
{
	dyn d;

	d.kind = DYN_NUM;
	d.u.num = v;
	return d;
}

static inline dyn dyn_bool(int v)
{
	dyn d;

	d.kind = DYN_BOOL;
	d.u.b = v;
	return d;
}

/* dyn_str_new makes a string of len bytes for the caller to fill (NULL when out of memory); dyn_str a copy of s. */
char *dyn_str_new(dyn *d, size_t len);
int dyn_str(dyn *d, const char *s, size_t len);
/* dyn_arr makes an array of len nulls; dyn_obj an object of len members with NULL keys. -1 when out of memory. */
int dyn_arr(dyn *d, size_t len);
int dyn_obj(dyn *d, size_t len);
/* dyn_copy makes a malloc'd deep copy of src. -1 when out of memory (*dst then holds nothing to free). */
int dyn_copy(dyn *dst, const dyn *src);
/* dyn_key copies key into member i of an object made by dyn_obj and returns its value (null) for the caller to
 * set, or NULL when out of memory; dyn_set_num sets it to a number (-1 when out of memory). Members are filled in
 * place so that dyn_free(obj) frees whatever was made when a later step fails. */
dyn *dyn_key(dyn *obj, size_t i, const char *key);
int dyn_set_num(dyn *obj, size_t i, const char *key, double v);
/* dyn_get finds a member of an object, or NULL. */
const dyn *dyn_get(const dyn *obj, const char *key);

/* ==== The bridge's state, one per context ==== */

typedef struct br_codec br_codec;
typedef struct bin_state bin_state;

/* Binary objects the json replacer turns into arrays of numbers, in the order of binary_probe's array. */
enum { BIN_ARRAY_BUFFER, BIN_U8C, BIN_I8, BIN_U8, BIN_I16, BIN_U16, BIN_I32, BIN_U32, BIN_F32, BIN_F64, BIN_KINDS };

typedef struct br_state {
	JSContext *ctx;
	const br_codec *codec;
	bin_state *bin;   /* the binary codec's buffers and key caches, made on first use */
	JSValue *handles; /* functions handed to the host, each held once; a handle is an index */
	uint32_t nhandles, cap_handles;
	JSClassID bin_class[BIN_KINDS]; /* QuickJS class ids of binary_probe's objects */
	JSValue fn;                     /* bench(n), or the JavaScript function the host calls by name */
	int has_callback;
	uint32_t callback; /* host_register's handle */
	uint64_t unit_ops; /* ops per loop unit */
	bb_ui ui;
	char *scratch; /* the fast codec's host_upper output, reused from call to call */
	size_t scratch_cap;
	char *text; /* the host's text of a case with bytes (case_table.h) */
	size_t text_len;
	dyn held; /* the last host -> script result the host still reads, until the next call */
	char err[512]; /* a host function's error result, or a JS exception's text for the host */
} br_state;

/* br_exception_text takes the pending exception into st->err: its text and, for an Error, its stack (every codec
 * carries both). */
void br_exception_text(br_state *st);

/* host_err stores a host function's error result and returns -1. */
int host_err(br_state *st, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* handle_of registers fn (holding it) unless it is already held, and returns its handle. -1 when out of memory. */
int handle_of(br_state *st, JSValueConst fn, uint32_t *h);
/* handle_fn returns the function behind handle h (not duplicated), or JS_UNDEFINED after an error result when
 * there is no such handle or it was released. */
JSValueConst handle_fn(br_state *st, uint32_t h);
/* handle_release lets go of handle h; calls through it then fail with a clear error. */
void handle_release(br_state *st, uint32_t h);
/* binary_kind returns the BIN_* kind of a typed array or ArrayBuffer, or -1; binary_elem reads element i. */
int binary_kind(const br_state *st, JSValueConst v);
double binary_elem(const uint8_t *p, int kind, size_t i);
/* typed_data returns the memory of a typed array or ArrayBuffer of BIN_* kind, not copied (valid while v lives), with
 * its size in bytes and its element size; NULL with a pending exception (a detached buffer). */
const uint8_t *typed_data(br_state *st, JSValueConst v, int kind, size_t *nbytes, size_t *elem);

/* ==== Host functions ==== */

typedef int host_fn(br_state *st, const dyn *args, dyn *result);

typedef struct br_host_fn {
	const char *name;
	host_fn *fn;
	int length;
} br_host_fn;

/* br_host_fns are the typed host functions every context exposes; a codec's entry finds its function by magic,
 * the index into this table. */
extern const br_host_fn br_host_fns[];
extern const int br_nhost_fns;

/* host_field returns member key of obj if it has the kind wanted, else NULL after an error result. */
const dyn *host_field(br_state *st, const dyn *obj, const char *key, dyn_kind kind);
/* host_int32 is JavaScript's ToInt32, for host parameters typed int. */
int32_t host_int32(double d);
/* br_record_from_dyn reads {id, text} (its text points into d; -1 after an error result); br_record_to_dyn makes
 * one, copying the text (-1 when out of memory). */
int br_record_from_dyn(br_state *st, const dyn *d, bb_record *r);
int br_record_to_dyn(const bb_record *r, dyn *d);

/* ==== Codecs ==== */

struct br_codec {
	const char *name;
	/* entry returns the C function QuickJS calls for host function i (magic = i). */
	JSCFunctionMagic *(*entry)(int i);
	/* call_js calls fn with the Dyn array args and converts its result into *result (malloc'd, for dyn_free).
	 * Returns -1 with the error's text (message, and the stack where the codec keeps it) in st->err. */
	int (*call_js)(br_state *st, JSValueConst fn, const dyn *args, dyn *result);
	/* call_num2, when not NULL, is a typed host -> script call (number, number) => number. Returns 0, or -1 with
	 * the error's text in st->err (also when the result is not a number). */
	int (*call_num2)(br_state *st, JSValueConst fn, double a, double b, double *out);
	/* free releases the codec's state; it runs before the context is freed. */
	void (*free)(br_state *st);
};

extern const br_codec br_json, br_binary, br_fast;

/* br_codec_named returns a codec by name, or NULL. */
const br_codec *br_codec_named(const char *name);

/* br_new makes a context that exposes every host function through codec and probes the binary classes. Returns
 * NULL after bb_error(); br_free frees what br_new made (and takes NULL). */
br_state *br_new(const br_codec *codec);
void br_free(br_state *st);

/* The binary codec's pieces the fast codec falls back to. */
JSValue bin_entry(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv, int magic);
int bin_call_js(br_state *st, JSValueConst fn, const dyn *args, dyn *result);
void bin_free(br_state *st);
/* bin_wrap_bytes makes a Uint8Array over an ArrayBuffer that wraps a malloc'd copy of len bytes at src, which its
 * finaliser frees. */
JSValue bin_wrap_bytes(br_state *st, const uint8_t *src, size_t len);

#endif
