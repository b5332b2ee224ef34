/* bridge.c: the reference bridge as a bench program: the codec its cases use, the host -> script calls they make
 * and the state case_table.h sets up. The bridge's parts are in the files bridge.h names: the Dyn type (dyn.c), the
 * state (bridge_state.c), the typed host functions (host_fns.c) and the codecs (codec_json.c, codec_binary.c,
 * codec_fast.c); -DBB_CODEC_X picks the one the cases use. */
#include "bridge.h"

#include <stdlib.h>
#include <string.h>

const char *const bb_program = "bridge";
/* The codec the cases use; the conformance program picks its own. */
#if defined(BB_CODEC_BINARY)
#define BR_CODEC br_binary
const char *const bb_codec = "binary";
#elif defined(BB_CODEC_FAST)
#define BR_CODEC br_fast
const char *const bb_codec = "fast";
#else
#define BR_CODEC br_json
const char *const bb_codec = "json";
#endif

/* ==== Host -> script calls, as the cases make them ==== */

/* call_add calls add(a, b), or the registered callback, through the codec's call_js (or its typed call). */
static int call_add(void *state, double a, double b, double *out)
{
	br_state *st = state;
	JSValueConst fn = st->has_callback ? handle_fn(st, st->callback) : st->fn; /* the host holds a handle */
	dyn args, result;
	int rc;

	bb_crossing();
	if (JS_IsUndefined(fn)) {
		bb_error("%s", st->err);
		return -1;
	}
	if (st->codec->call_num2) {
		if (st->codec->call_num2(st, fn, a, b, out) == 0)
			return 0;
		bb_error("%s", st->err);
		return -1;
	}
	if (dyn_arr(&args, 2) < 0) {
		bb_error("out of memory");
		return -1;
	}
	args.u.arr.items[0] = dyn_num(a);
	args.u.arr.items[1] = dyn_num(b);
	rc = st->codec->call_js(st, fn, &args, &result);
	dyn_free(&args);
	if (rc < 0) {
		bb_error("%s", st->err);
		return -1;
	}
	rc = result.kind == DYN_NUM ? 0 : -1;
	*out = rc == 0 ? result.u.num : 0;
	dyn_free(&result);
	if (rc < 0)
		bb_error("the JavaScript function returned no number");
	return rc;
}

/* obj_in_to_dyn builds the whole object of host_to_script_object. */
static int obj_in_to_dyn(const bb_obj_in *in, dyn *d)
{
	dyn *name, *tags, *pos;
	int i;

	if (dyn_obj(d, 6) < 0)
		return -1;
	if (dyn_set_num(d, 0, "id", in->id) < 0 || !(name = dyn_key(d, 1, "name")) ||
	    dyn_str(name, in->name.p, in->name.len) < 0 || dyn_set_num(d, 2, "x", in->x) < 0 ||
	    dyn_set_num(d, 3, "y", in->y) < 0 || !(tags = dyn_key(d, 4, "tags")) || dyn_arr(tags, 3) < 0 ||
	    !(pos = dyn_key(d, 5, "pos")) || dyn_obj(pos, 2) < 0 || dyn_set_num(pos, 0, "a", in->pos_a) < 0 ||
	    dyn_set_num(pos, 1, "b", in->pos_b) < 0)
		goto fail;
	for (i = 0; i < 3; i++)
		if (dyn_str(&tags->u.arr.items[i], in->tags[i].p, in->tags[i].len) < 0)
			goto fail;
	return 0;
fail:
	dyn_free(d);
	return -1;
}

static int call_obj(void *state, const bb_obj_in *in, bb_obj_out *out)
{
	br_state *st = state;
	const dyn *id, *ok, *x;
	dyn args, result;
	int rc;

	bb_crossing();
	if (dyn_arr(&args, 1) < 0 || obj_in_to_dyn(in, &args.u.arr.items[0]) < 0) {
		dyn_free(&args);
		bb_error("out of memory");
		return -1;
	}
	rc = st->codec->call_js(st, st->fn, &args, &result);
	dyn_free(&args);
	if (rc < 0) {
		bb_error("%s", st->err);
		return -1;
	}
	id = host_field(st, &result, "id", DYN_NUM);
	ok = id ? host_field(st, &result, "ok", DYN_BOOL) : NULL;
	x = ok ? host_field(st, &result, "x", DYN_NUM) : NULL;
	if (x) {
		out->id = host_int32(id->u.num);
		out->ok = ok->u.b;
		out->x = x->u.num;
	} else {
		bb_error("%s", st->err);
	}
	dyn_free(&result);
	return x ? 0 : -1;
}

/* call1 calls st->fn through the codec with one argument, made by make (which returns -1 when out of memory), and
 * keeps the result in st->held until the next call. -1 after bb_error, with the error's text (and stack) in st->err
 * when the script threw. */
static int call1(br_state *st, int (*make)(const void *in, dyn *d), const void *in)
{
	dyn args;
	int rc;

	bb_crossing();
	dyn_free(&st->held);
	if (dyn_arr(&args, 1) < 0 || make(in, &args.u.arr.items[0]) < 0) {
		dyn_free(&args);
		bb_error("out of memory");
		return -1;
	}
	rc = st->codec->call_js(st, st->fn, &args, &st->held);
	dyn_free(&args);
	if (rc < 0)
		bb_error("%s", st->err);
	return rc;
}

static int text_to_dyn(const void *in, dyn *d)
{
	const bb_str *s = in;

	return dyn_str(d, s->p, s->len);
}

static int call_text(void *state, const bb_str *in, bb_str *out)
{
	br_state *st = state;

	if (call1(st, text_to_dyn, in) < 0)
		return -1;
	if (st->held.kind != DYN_STR) {
		bb_error("the JavaScript function returned no string");
		return -1;
	}
	out->p = st->held.u.str.p;
	out->len = st->held.u.str.len;
	return 0;
}

static int record_to_dyn(const void *in, dyn *d)
{
	return br_record_to_dyn(in, d);
}

static int call_record(void *state, const bb_record *in, bb_record *out)
{
	br_state *st = state;

	if (call1(st, record_to_dyn, in) < 0)
		return -1;
	if (br_record_from_dyn(st, &st->held, out) < 0) {
		bb_error("%s", st->err);
		return -1;
	}
	return 0;
}

static int int_to_dyn(const void *in, dyn *d)
{
	*d = dyn_num(*(const int32_t *)in);
	return 0;
}

/* call_fail calls the script's fail(i), which throws: the codec hands the host the error's text and stack. */
static int call_fail(void *state, int32_t i, bb_str *text)
{
	br_state *st = state;

	if (call1(st, int_to_dyn, &i) == 0) {
		bb_error("fail(%d) returned instead of throwing", (int)i);
		return -1;
	}
	text->p = st->err;
	text->len = strlen(st->err);
	return 0;
}

static void teardown(void *state)
{
	br_free(state);
}

/* new_state makes a context with the cases' codec. */
static br_state *new_state(void **state)
{
	br_state *st = br_new(&BR_CODEC);

	*state = st;
	return st;
}

static int callback_registered(const br_state *st)
{
	return st->has_callback;
}

#define BB_STATE br_state
#include "case_table.h"
