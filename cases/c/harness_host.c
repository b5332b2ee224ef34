/* harness_host.c: the host-side work of every case, the same in every program, so that the floor and the bridges
 * differ only in how values cross; and the checks the programs run at set-up against it. */
#ifdef BB_HARNESS_UNITY /* compiled through harness.c, which says why */
#include "harness_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

double bb_add(double a, double b)
{
	bb_crossing();
	return fmod(a + b, BB_MOD); /* JavaScript's % on numbers is fmod */
}

void bb_upper_ascii(char *dst, const char *src, size_t len)
{
	size_t i;

	bb_crossing();

	for (i = 0; i < len; i++) {
		char c = src[i];
		dst[i] = (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
	}
}

char *bb_text_new(size_t n)
{
	static const char unit[] = "ab \xc3\xa9\xe2\x82\xac cd "; /* mkstr's unit: 12 bytes */
	char *p = bb_malloc(n + 1);
	size_t i, whole = n - n % 12;

	if (!p)
		return NULL;
	for (i = 0; i < whole; i += 12)
		memcpy(p + i, unit, 12);
	memset(p + whole, 'a', n - whole);
	p[n] = '\0';
	return p;
}

bb_obj_in bb_obj_sample(int32_t id)
{
	static const char name[] = "node-\xc3\xa9"; /* "node-é" in UTF-8, as in js_object */
	bb_obj_in o;

	o.id = id;
	o.name.p = name;
	o.name.len = sizeof name - 1;
	o.x = 1.5;
	o.y = 2.25;
	o.tags[0].p = "a";
	o.tags[0].len = 1;
	o.tags[1].p = "bb";
	o.tags[1].len = 2;
	o.tags[2].p = "ccc";
	o.tags[2].len = 3;
	o.pos_a = 3;
	o.pos_b = 4;
	return o;
}

bb_obj_out bb_obj_host(const bb_obj_in *in)
{
	bb_obj_out out;

	bb_crossing();

	out.id = (int32_t)((uint32_t)in->id + 1u); /* wraps instead of overflowing; ids stay far below 2^31 */
	out.ok = 1;
	out.x = in->x + in->y;
	return out;
}

double bb_sum(const double *v, size_t n)
{
	double s = 0;
	size_t i;

	bb_crossing();

	for (i = 0; i < n; i++)
		s += v[i];
	return s;
}

static const char *const ui_keys[BB_UI_KEYS] = {"x", "y", "w", "h", "color", "text", "opacity", "visible"};

int bb_ui_key(const char *s, size_t len)
{
	int k;

	for (k = 0; k < BB_UI_KEYS; k++)
		if (strlen(ui_keys[k]) == len && memcmp(ui_keys[k], s, len) == 0)
			return k;
	return -1;
}

static int ui_set(bb_ui *ui, double id, double key, double value)
{
	/* the comparisons also refuse NaN */
	if (!(id >= 0 && id < BB_UI_NODES) || !(key >= 0 && key < BB_UI_KEYS))
		return -1;
	ui->props[(int)id][(int)key] = value;
	return 0;
}

int bb_ui_set(bb_ui *ui, double id, double key, double value)
{
	bb_crossing();
	return ui_set(ui, id, key, value);
}

int bb_ui_apply(bb_ui *ui, const double *ops, size_t n)
{
	size_t i;

	bb_crossing();
	if (n % 3 != 0)
		return -1;
	for (i = 0; i < n; i += 3)
		if (ui_set(ui, ops[i], ops[i + 1], ops[i + 2]) < 0)
			return -1;
	return 0;
}

int bb_ui_check(const bb_ui *ui, uint64_t frames)
{
	bb_ui want;
	uint64_t m;
	int id, k;

	memset(&want, 0, sizeof want);
	for (m = 0; m < frames * BB_UI_FRAME; m++)
		want.props[m & 63][(m >> 3) & 7] = (double)m * 0.5;
	for (id = 0; id < BB_UI_NODES; id++)
		for (k = 0; k < BB_UI_KEYS; k++)
			if (ui->props[id][k] != want.props[id][k]) {
				bb_error("node %d key %s is %.17g, want %.17g", id, ui_keys[k], ui->props[id][k],
					 want.props[id][k]);
				return -1;
			}
	return 0;
}

double bb_bytes_sum(const uint8_t *p, size_t n)
{
	uint32_t s = 0; /* 64 KiB of 255 fits */
	size_t i;

	bb_crossing();

	for (i = 0; i < n; i++)
		s += p[i];
	return (double)s;
}

int bb_check_add(void *st, int (*call)(void *st, double a, double b, double *out))
{
	double got = 0, want = 0;
	int i;

	for (i = 0; i < 100; i++) {
		if (call(st, got, i, &got) < 0)
			return -1;
		want = bb_add(want, i);
	}
	if (got != want) {
		bb_error("100 calls of add(s, i) gave %.17g, want %.17g", got, want);
		return -1;
	}
	return 0;
}

int bb_check_obj(void *st, int (*call)(void *st, const bb_obj_in *in, bb_obj_out *out))
{
	bb_obj_in in = bb_obj_sample(41);
	bb_obj_out got, want = bb_obj_host(&in);

	if (call(st, &in, &got) < 0)
		return -1;
	if (got.id != want.id || got.ok != want.ok || got.x != want.x) {
		bb_error("obj(o) gave {id: %" PRId32 ", ok: %d, x: %.17g}, want {id: %" PRId32 ", ok: %d, x: %.17g}",
			 got.id, got.ok, got.x, want.id, want.ok, want.x);
		return -1;
	}
	return 0;
}

bb_record bb_record_host(const bb_record *in)
{
	bb_record out;

	bb_crossing();
	out.id = (int32_t)((uint32_t)in->id + 1u);
	out.text = in->text;
	return out;
}

/* same_text says whether got holds want's bytes, else fails with what differs. */
static int same_text(const char *what, const bb_str *got, const bb_str *want)
{
	if (got->len == want->len && memcmp(got->p, want->p, want->len) == 0)
		return 0;
	bb_error("%s came back as %zu bytes, want the %zu sent", what, got->len, want->len);
	return -1;
}

int bb_check_text(void *st, bb_str text, int (*call)(void *st, const bb_str *in, bb_str *out))
{
	bb_str got;

	if (call(st, &text, &got) < 0)
		return -1;
	return same_text("text(s)", &got, &text);
}

int bb_check_record(void *st, bb_str text, int (*call)(void *st, const bb_record *in, bb_record *out))
{
	bb_record in, got;

	in.id = 41;
	in.text = text;
	if (call(st, &in, &got) < 0)
		return -1;
	if (got.id != 42) {
		bb_error("record(r).id is %" PRId32 ", want 42", got.id);
		return -1;
	}
	return same_text("record(r).text", &got.text, &text);
}

void bb_fail_message(char *buf, size_t size, int32_t i)
{
	bb_crossing();
	snprintf(buf, size, "host_fail: refused %" PRId32, i);
}

int bb_check_script_error(void *st, int (*call)(void *st, int32_t i, bb_str *text))
{
	static const char want[] = "Error: script_fail: refused 12\n";
	bb_str text;

	if (call(st, 12, &text) < 0)
		return -1;
	if (text.len < sizeof want - 1 || memcmp(text.p, want, sizeof want - 1) != 0) {
		bb_error("fail(12) threw %.*s, want %s and a stack", (int)(text.len < 80 ? text.len : 80), text.p, want);
		return -1;
	}
	/* "at fail (file:1)" in QuickJS, V8, Duktape and MuJS; "fail@file:1:..." in JavaScriptCore and SpiderMonkey */
	if (!strstr(text.p + sizeof want - 1, "at fail") && !strstr(text.p + sizeof want - 1, "fail@")) {
		bb_error("the stack of fail(12)'s error does not name fail: %.*s", (int)(text.len < 200 ? text.len : 200), text.p);
		return -1;
	}
	return 0;
}

int bb_ui_set_named(bb_ui *ui, double id, const char *key, size_t key_len, double value)
{
	return bb_ui_set(ui, id, bb_ui_key(key, key_len), value);
}

#endif /* BB_HARNESS_UNITY */
