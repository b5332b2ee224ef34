/* host_fns.c: the reference bridge's typed host functions (br_host_fns: host_functions.h's list). They see Dyn values
 * only, whatever the codec, and answer with a Dyn or an error result; a codec's entry finds its function by magic (the
 * index). */
#include "bridge.h"
#include "host_functions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* arg returns argument i if it has the kind wanted, else NULL after an error result. */
static const dyn *arg(br_state *st, const dyn *args, size_t i, dyn_kind kind, const char *fn)
{
	static const char *const kinds[] = {"null", "a boolean", "a number", "a string", "an array", "an object",
					     "a function", "undefined", "bytes"};

	if (i < args->u.arr.len && args->u.arr.items[i].kind == kind)
		return &args->u.arr.items[i];
	host_err(st, "%s: argument %u is not %s", fn, (unsigned)i + 1, kinds[kind]);
	return NULL;
}

/* host_int32 is JavaScript's ToInt32, for host parameters typed int. */
int32_t host_int32(double d)
{
	if (!isfinite(d))
		return 0;
	d = fmod(trunc(d), 4294967296.0);
	if (d < 0)
		d += 4294967296.0;
	return (int32_t)(uint32_t)d;
}

/* nums_from_dyn reads an array of numbers into a new vector (the host's number[] parameter). */
static int nums_from_dyn(br_state *st, const dyn *d, const char *fn, double **out, size_t *n)
{
	size_t i;

	*n = d->u.arr.len;
	*out = bb_malloc((*n ? *n : 1) * sizeof(double));
	if (!*out)
		return host_err(st, "%s: out of memory", fn);
	for (i = 0; i < *n; i++) {
		if (d->u.arr.items[i].kind != DYN_NUM) {
			bb_free(*out);
			return host_err(st, "%s: element %u is not a number", fn, (unsigned)i);
		}
		(*out)[i] = d->u.arr.items[i].u.num;
	}
	return 0;
}

/* host_field returns member key of obj if it has the kind wanted, else NULL after an error result. */
const dyn *host_field(br_state *st, const dyn *obj, const char *key, dyn_kind kind)
{
	const dyn *v = dyn_get(obj, key);

	if (v && v->kind == kind)
		return v;
	host_err(st, "object: bad or missing field %s", key);
	return NULL;
}

/* obj_from_dyn reads the object of script_to_host_object; its strings point into d. */
static int obj_from_dyn(br_state *st, const dyn *d, bb_obj_in *o)
{
	const dyn *id = host_field(st, d, "id", DYN_NUM), *name = id ? host_field(st, d, "name", DYN_STR) : NULL;
	const dyn *x = name ? host_field(st, d, "x", DYN_NUM) : NULL, *y = x ? host_field(st, d, "y", DYN_NUM) : NULL;
	const dyn *tags = y ? host_field(st, d, "tags", DYN_ARR) : NULL;
	const dyn *pos = tags ? host_field(st, d, "pos", DYN_OBJ) : NULL;
	const dyn *a = pos ? host_field(st, pos, "a", DYN_NUM) : NULL, *b = a ? host_field(st, pos, "b", DYN_NUM) : NULL;
	int i;

	if (!b)
		return -1;
	if (tags->u.arr.len != 3)
		return host_err(st, "object: tags must hold 3 strings");
	for (i = 0; i < 3; i++) {
		const dyn *t = &tags->u.arr.items[i];
		if (t->kind != DYN_STR)
			return host_err(st, "object: tags must hold 3 strings");
		o->tags[i].p = t->u.str.p;
		o->tags[i].len = t->u.str.len;
	}
	o->id = host_int32(id->u.num);
	o->name.p = name->u.str.p;
	o->name.len = name->u.str.len;
	o->x = x->u.num;
	o->y = y->u.num;
	o->pos_a = a->u.num;
	o->pos_b = b->u.num;
	return 0;
}

static int obj_out_to_dyn(const bb_obj_out *r, dyn *d)
{
	dyn *ok;

	if (dyn_obj(d, 3) < 0)
		return -1;
	if (dyn_set_num(d, 0, "id", r->id) < 0 || !(ok = dyn_key(d, 1, "ok")) || dyn_set_num(d, 2, "x", r->x) < 0) {
		dyn_free(d);
		return -1;
	}
	*ok = dyn_bool(r->ok);
	return 0;
}

static int host_add(br_state *st, const dyn *args, dyn *result)
{
	const dyn *a = arg(st, args, 0, DYN_NUM, "host_add"), *b = a ? arg(st, args, 1, DYN_NUM, "host_add") : NULL;

	if (!b)
		return -1;
	*result = dyn_num(bb_add(a->u.num, b->u.num));
	return 0;
}

static int host_upper(br_state *st, const dyn *args, dyn *result)
{
	const dyn *s = arg(st, args, 0, DYN_STR, "host_upper");
	char *p;

	if (!s)
		return -1;
	p = dyn_str_new(result, s->u.str.len);
	if (!p)
		return host_err(st, "host_upper: out of memory");
	bb_upper_ascii(p, s->u.str.p, s->u.str.len);
	return 0;
}

static int host_obj(br_state *st, const dyn *args, dyn *result)
{
	const dyn *o = arg(st, args, 0, DYN_OBJ, "host_obj");
	bb_obj_in in;
	bb_obj_out out;

	if (!o || obj_from_dyn(st, o, &in) < 0)
		return -1;
	out = bb_obj_host(&in);
	return obj_out_to_dyn(&out, result) < 0 ? host_err(st, "host_obj: out of memory") : 0;
}

static int host_sum(br_state *st, const dyn *args, dyn *result)
{
	const dyn *a = arg(st, args, 0, DYN_ARR, "host_sum");
	double *v;
	size_t n;

	if (!a || nums_from_dyn(st, a, "host_sum", &v, &n) < 0)
		return -1;
	if (n != BB_ARRAY_LEN) {
		bb_free(v);
		return host_err(st, "host_sum: expected %d numbers", BB_ARRAY_LEN);
	}
	*result = dyn_num(bb_sum(v, n));
	bb_free(v);
	return 0;
}

static int host_register(br_state *st, const dyn *args, dyn *result)
{
	const dyn *f = arg(st, args, 0, DYN_FN, "host_register");

	if (!f)
		return -1;
	st->callback = f->u.fn;
	st->has_callback = 1;
	result->kind = DYN_NULL;
	return 0;
}

static int host_fail(br_state *st, const dyn *args, dyn *result)
{
	const dyn *i = arg(st, args, 0, DYN_NUM, "host_fail");

	(void)result;
	if (i)
		bb_fail_message(st->err, sizeof st->err, host_int32(i->u.num));
	return -1;
}

static int set_prop(br_state *st, const dyn *args, dyn *result)
{
	const dyn *id = arg(st, args, 0, DYN_NUM, "set_prop"), *key = id ? arg(st, args, 1, DYN_STR, "set_prop") : NULL;
	const dyn *value = key ? arg(st, args, 2, DYN_NUM, "set_prop") : NULL;

	if (!value)
		return -1;
	if (bb_ui_set(&st->ui, id->u.num, bb_ui_key(key->u.str.p, key->u.str.len), value->u.num) < 0)
		return host_err(st, "set_prop: bad node or key");
	result->kind = DYN_NULL;
	return 0;
}

static int apply_ops(br_state *st, const dyn *args, dyn *result)
{
	const dyn *a = arg(st, args, 0, DYN_ARR, "apply_ops");
	double *ops;
	size_t n;
	int rc;

	if (!a || nums_from_dyn(st, a, "apply_ops", &ops, &n) < 0)
		return -1;
	rc = bb_ui_apply(&st->ui, ops, n);
	bb_free(ops);
	if (rc < 0)
		return host_err(st, "apply_ops: bad node or key");
	result->kind = DYN_NULL;
	return 0;
}

/* host_bytes takes bytes; over JSON they arrive as an array of numbers, copied into a byte vector. */
static int host_bytes(br_state *st, const dyn *args, dyn *result)
{
	const dyn *a;
	uint8_t *bytes;
	size_t i, n;

	if (args->u.arr.len > 0 && args->u.arr.items[0].kind == DYN_BYTES) { /* other codecs send bytes as bytes */
		a = &args->u.arr.items[0];
		*result = dyn_num(bb_bytes_sum(a->u.bytes.p, a->u.bytes.len));
		return 0;
	}
	a = arg(st, args, 0, DYN_ARR, "host_bytes");
	if (!a)
		return -1;
	n = a->u.arr.len;
	bytes = bb_malloc(n ? n : 1);
	if (!bytes)
		return host_err(st, "host_bytes: out of memory");
	for (i = 0; i < n; i++) {
		const dyn *v = &a->u.arr.items[i];
		if (v->kind != DYN_NUM || !(v->u.num >= 0 && v->u.num <= 255)) {
			bb_free(bytes);
			return host_err(st, "host_bytes: element %u is not a byte", (unsigned)i);
		}
		bytes[i] = (uint8_t)v->u.num;
	}
	*result = dyn_num(bb_bytes_sum(bytes, n));
	bb_free(bytes);
	return 0;
}

int br_record_from_dyn(br_state *st, const dyn *d, bb_record *r)
{
	const dyn *id = host_field(st, d, "id", DYN_NUM), *text = id ? host_field(st, d, "text", DYN_STR) : NULL;

	if (!text)
		return -1;
	r->id = host_int32(id->u.num);
	r->text.p = text->u.str.p;
	r->text.len = text->u.str.len;
	return 0;
}

int br_record_to_dyn(const bb_record *r, dyn *d)
{
	dyn *text;

	if (dyn_obj(d, 2) < 0)
		return -1;
	if (dyn_set_num(d, 0, "id", r->id) < 0 || !(text = dyn_key(d, 1, "text")) ||
	    dyn_str(text, r->text.p, r->text.len) < 0) {
		dyn_free(d);
		return -1;
	}
	return 0;
}

/* host_record: {id, text} -> {id: id + 1, text}, the text copied into the result. */
static int host_record(br_state *st, const dyn *args, dyn *result)
{
	const dyn *o = arg(st, args, 0, DYN_OBJ, "host_record");
	bb_record in, out;

	if (!o || br_record_from_dyn(st, o, &in) < 0)
		return -1;
	out = bb_record_host(&in);
	return br_record_to_dyn(&out, result) < 0 ? host_err(st, "host_record: out of memory") : 0;
}

/* apply_node applies the mutation {id, key, value}. */
static int apply_node(br_state *st, const dyn *d)
{
	const dyn *id = host_field(st, d, "id", DYN_NUM), *key = id ? host_field(st, d, "key", DYN_STR) : NULL;
	const dyn *value = key ? host_field(st, d, "value", DYN_NUM) : NULL;

	if (!value)
		return -1;
	if (bb_ui_set_named(&st->ui, id->u.num, key->u.str.p, key->u.str.len, value->u.num) < 0)
		return host_err(st, "bad node or key");
	return 0;
}

static int set_node(br_state *st, const dyn *args, dyn *result)
{
	const dyn *o = arg(st, args, 0, DYN_OBJ, "set_node");

	result->kind = DYN_NULL;
	return o ? apply_node(st, o) : -1;
}

static int apply_batch(br_state *st, const dyn *args, dyn *result)
{
	const dyn *list = arg(st, args, 0, DYN_ARR, "apply_batch");
	size_t i;

	result->kind = DYN_NULL;
	if (!list)
		return -1;
	for (i = 0; i < list->u.arr.len; i++) {
		if (list->u.arr.items[i].kind != DYN_OBJ)
			return host_err(st, "apply_batch: element %u is not an object", (unsigned)i);
		if (apply_node(st, &list->u.arr.items[i]) < 0)
			return -1;
	}
	return 0;
}

/* host_echo returns a copy of its argument (or undefined): the conformance suite's round trip. No case uses it. */
static int host_echo(br_state *st, const dyn *args, dyn *result)
{
	if (args->u.arr.len == 0) {
		result->kind = DYN_UNDEF;
		return 0;
	}
	return dyn_copy(result, &args->u.arr.items[0]) < 0 ? host_err(st, "host_echo: out of memory") : 0;
}

/* host_functions.h's list, and the conformance suite's host_echo. The order is the magic number of each function's
 * entry; codecs find typed entries by name. */
const br_host_fn br_host_fns[] = {BB_HOST_FNS(BB_HOST_ENTRY, BB_HOST_ENTRY) {"host_echo", host_echo, 1}};
const int br_nhost_fns = sizeof br_host_fns / sizeof br_host_fns[0];
