/* bridge_state.c: the reference bridge's state, one per context (bridge.h): its making with a codec, error
 * results, function handles and the classes of binary objects, which every codec and the conformance suite share. */
#include "bridge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ==== Errors, handles, binary classes ==== */

static const char binary_probe[] =
	"[new ArrayBuffer(0), new Uint8ClampedArray(0), new Int8Array(0), new Uint8Array(0), new Int16Array(0),"
	" new Uint16Array(0), new Int32Array(0), new Uint32Array(0), new Float32Array(0), new Float64Array(0)]";

int host_err(br_state *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->err, sizeof st->err, fmt, ap);
	va_end(ap);
	return -1;
}

void br_exception_text(br_state *st)
{
	bb_js_error_text(st->ctx, st->err, sizeof st->err);
}

int handle_of(br_state *st, JSValueConst fn, uint32_t *h)
{
	uint32_t i;

	for (i = 0; i < st->nhandles; i++)
		if (JS_IsObject(st->handles[i]) && JS_VALUE_GET_PTR(st->handles[i]) == JS_VALUE_GET_PTR(fn)) {
			*h = i;
			return 0;
		}
	if (st->nhandles == st->cap_handles) {
		uint32_t cap = st->cap_handles ? 2 * st->cap_handles : 8;
		JSValue *p = bb_realloc(st->handles, cap * sizeof(JSValue));
		if (!p)
			return -1;
		st->handles = p;
		st->cap_handles = cap;
	}
	st->handles[st->nhandles] = JS_DupValue(st->ctx, fn);
	*h = st->nhandles++;
	return 0;
}

JSValueConst handle_fn(br_state *st, uint32_t h)
{
	if (h >= st->nhandles) {
		host_err(st, "bridge: no function handle %lu", (unsigned long)h);
		return JS_UNDEFINED;
	}
	if (!JS_IsObject(st->handles[h]))
		host_err(st, "bridge: function handle %lu was released", (unsigned long)h);
	return st->handles[h];
}

/* handle_release keeps the slot (as undefined) so that a stale handle is recognised, not reused. */
void handle_release(br_state *st, uint32_t h)
{
	if (h < st->nhandles) {
		JS_FreeValue(st->ctx, st->handles[h]);
		st->handles[h] = JS_UNDEFINED;
	}
}

int binary_kind(const br_state *st, JSValueConst v)
{
	JSClassID id = JS_GetClassID(v);
	int k;

	for (k = 0; k < BIN_KINDS; k++)
		if (st->bin_class[k] == id)
			return k;
	return -1;
}

double binary_elem(const uint8_t *p, int kind, size_t i)
{
	/* memcpy: no alignment or aliasing assumptions about the buffer's bytes */
	switch (kind) {
	case BIN_I8: return (int8_t)p[i];
	case BIN_I16: { int16_t v; memcpy(&v, p + 2 * i, 2); return v; }
	case BIN_U16: { uint16_t v; memcpy(&v, p + 2 * i, 2); return v; }
	case BIN_I32: { int32_t v; memcpy(&v, p + 4 * i, 4); return v; }
	case BIN_U32: { uint32_t v; memcpy(&v, p + 4 * i, 4); return v; }
	case BIN_F32: { float v; memcpy(&v, p + 4 * i, 4); return v; }
	case BIN_F64: { double v; memcpy(&v, p + 8 * i, 8); return v; }
	default: return p[i];
	}
}


void br_free(br_state *st)
{
	uint32_t i;

	if (!st)
		return;
	if (st->ctx) {
		st->codec->free(st);
		for (i = 0; i < st->nhandles; i++)
			JS_FreeValue(st->ctx, st->handles[i]);
		JS_FreeValue(st->ctx, st->fn);
		bb_js_free(st->ctx);
	}
	dyn_free(&st->held);
	bb_free(st->handles);
	bb_free(st->scratch);
	bb_free(st->text);
	bb_free(st);
}

/* probe_binary_classes records the class ids of binary_probe's objects, which the replacer recognises. */
static int probe_binary_classes(br_state *st)
{
	JSValue a = JS_Eval(st->ctx, binary_probe, sizeof binary_probe - 1, "<bridge>", JS_EVAL_TYPE_GLOBAL);
	int k;

	if (JS_IsException(a))
		return bb_js_fail(st->ctx);
	for (k = 0; k < BIN_KINDS; k++) {
		JSValue v = JS_GetPropertyUint32(st->ctx, a, (uint32_t)k);
		st->bin_class[k] = JS_GetClassID(v);
		JS_FreeValue(st->ctx, v);
	}
	JS_FreeValue(st->ctx, a);
	return 0;
}

br_state *br_new(const br_codec *codec)
{
	br_state *st = bb_calloc(1, sizeof *st);
	JSValue global;
	int i, rc = 0;

	if (!st) {
		bb_error("out of memory");
		return NULL;
	}
	st->codec = codec;
	st->fn = JS_UNDEFINED;
	st->unit_ops = 1;
	st->ctx = bb_js_new(st);
	if (!st->ctx || probe_binary_classes(st) < 0) {
		br_free(st);
		return NULL;
	}
	global = JS_GetGlobalObject(st->ctx);
	for (i = 0; i < br_nhost_fns && rc >= 0; i++)
		rc = JS_SetPropertyStr(st->ctx, global, br_host_fns[i].name,
				       JS_NewCFunctionMagic(st->ctx, codec->entry(i), br_host_fns[i].name,
							    br_host_fns[i].length, JS_CFUNC_generic_magic, i));
	JS_FreeValue(st->ctx, global);
	if (rc < 0) {
		bb_js_fail(st->ctx);
		br_free(st);
		return NULL;
	}
	return st;
}

const br_codec *br_codec_named(const char *name)
{
	static const br_codec *const all[] = {&br_json, &br_binary, &br_fast};
	size_t i;

	for (i = 0; i < sizeof all / sizeof all[0]; i++)
		if (strcmp(all[i]->name, name) == 0)
			return all[i];
	return NULL;
}

