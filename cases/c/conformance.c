/* conformance.c: the codecs' fidelity suite. `conformance CODEC` prints one line per check; the expected outputs
 * are frozen in cases/testdata/conformance/CODEC.txt (cases/conformance_test.go builds this program with
 * AddressSanitizer and UndefinedBehaviorSanitizer and compares).
 *
 * The reference is the floor's way of converting: straight through the QuickJS C API (JS_GetProperty, JS_To*,
 * JS_New*, JS_DefinePropertyValue), with no text and no buffer, written here as a codec of its own ("floor"). For
 * every value of the corpus, in both directions:
 *   s2h2s: script -> host -> script: host_echo(v) through the codec, described in JavaScript;
 *   h2s2h: host -> script -> host: the host holds v (converted by the reference), calls echo(v) through the codec,
 *          and describes what came back (converted back by the reference, described by the same JavaScript).
 * A line that differs from the floor's says so with "[floor: ...]": by design for json, never for fast or binary.
 * Then function handles (identity, held, released), exceptions both ways (message and stack), and typed calls.
 *
 * It links the reference bridge's files (sources.go: BridgeSources) and the harness's (HarnessSources) for its
 * helpers, whose main() the build renames away (-Dmain=bb_protocol_main). The context is freed at the end: QuickJS's
 * own teardown asserts that no object leaked.
 * `conformance leak-check` leaks one object on purpose, to show that the teardown check is armed. */
#include "bridge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ==== The floor's conversion, as a codec ==== */

#define REF_MAX_DEPTH 128 /* as the binary codec's, with the same message */

static int ref_to_dyn(br_state *st, JSValueConst v, dyn *out, int depth);

static int ref_too_deep(br_state *st)
{
	JS_ThrowRangeError(st->ctx, "bridge: value nested deeper than %d levels (or cyclic)", REF_MAX_DEPTH);
	return -1;
}

static int ref_to_dyn_object(br_state *st, JSValueConst v, dyn *out, int depth)
{
	JSContext *ctx = st->ctx;
	JSPropertyEnum *props;
	uint32_t n, i;
	int rc = 0;

	if (JS_GetOwnPropertyNames(ctx, &props, &n, v, JS_GPN_STRING_MASK | JS_GPN_ENUM_ONLY) < 0)
		return -1;
	if (dyn_obj(out, n) < 0) {
		JS_ThrowOutOfMemory(ctx);
		rc = -1;
	}
	for (i = 0; i < n && rc == 0; i++) {
		dyn_member *m = &out->u.obj.members[i];
		const char *key = JS_AtomToCString(ctx, props[i].atom);
		JSValue item;

		if (!key) {
			rc = -1;
			break;
		}
		m->key_len = strlen(key);
		m->key = malloc(m->key_len + 1);
		if (m->key)
			memcpy(m->key, key, m->key_len + 1);
		JS_FreeCString(ctx, key);
		if (!m->key) {
			JS_ThrowOutOfMemory(ctx);
			rc = -1;
			break;
		}
		item = JS_GetProperty(ctx, v, props[i].atom);
		rc = JS_IsException(item) ? -1 : ref_to_dyn(st, item, &m->value, depth + 1);
		JS_FreeValue(ctx, item);
	}
	for (i = 0; i < n; i++)
		JS_FreeAtom(ctx, props[i].atom);
	js_free(ctx, props);
	return rc;
}

static int ref_to_dyn_array(br_state *st, JSValueConst v, dyn *out, int depth)
{
	JSContext *ctx = st->ctx;
	JSValue lv = JS_GetPropertyStr(ctx, v, "length");
	uint32_t n, i;

	if (JS_IsException(lv) || JS_ToUint32(ctx, &n, lv) < 0) {
		JS_FreeValue(ctx, lv);
		return -1;
	}
	JS_FreeValue(ctx, lv);
	if (dyn_arr(out, n) < 0) {
		JS_ThrowOutOfMemory(ctx);
		return -1;
	}
	for (i = 0; i < n; i++) {
		JSValue item = JS_GetPropertyUint32(ctx, v, i);
		int rc = JS_IsException(item) ? -1 : ref_to_dyn(st, item, &out->u.arr.items[i], depth + 1);
		JS_FreeValue(ctx, item);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* ref_to_dyn converts v into a malloc'd Dyn; -1 with a pending exception (*out then holds what dyn_free frees). */
static int ref_to_dyn(br_state *st, JSValueConst v, dyn *out, int depth)
{
	JSContext *ctx = st->ctx;
	size_t len, nbytes, elem, i;
	const uint8_t *data;
	const char *s;
	int kind;

	out->kind = DYN_NULL;
	if (depth > REF_MAX_DEPTH)
		return ref_too_deep(st);
	if (JS_IsUndefined(v)) {
		out->kind = DYN_UNDEF;
	} else if (JS_IsNull(v)) {
	} else if (JS_IsBool(v)) {
		out->kind = DYN_BOOL;
		out->u.b = JS_ToBool(ctx, v);
	} else if (JS_IsNumber(v)) {
		out->kind = DYN_NUM;
		JS_ToFloat64(ctx, &out->u.num, v);
	} else if (JS_IsString(v)) {
		s = JS_ToCStringLen(ctx, &len, v);
		if (!s)
			return -1;
		if (!dyn_str_new(out, len)) {
			JS_FreeCString(ctx, s);
			JS_ThrowOutOfMemory(ctx);
			return -1;
		}
		memcpy(out->u.str.p, s, len);
		JS_FreeCString(ctx, s);
	} else if (JS_IsFunction(ctx, v)) {
		out->kind = DYN_FN;
		if (handle_of(st, v, &out->u.fn) < 0) {
			JS_ThrowOutOfMemory(ctx);
			return -1;
		}
	} else if ((kind = binary_kind(st, v)) >= 0) {
		if (!(data = typed_data(st, v, kind, &nbytes, &elem)))
			return -1;
		if (kind == BIN_U8) { /* bytes, as the binary codec carries them */
			out->u.bytes.p = malloc(nbytes ? nbytes : 1);
			if (!out->u.bytes.p) {
				JS_ThrowOutOfMemory(ctx);
				return -1;
			}
			memcpy(out->u.bytes.p, data, nbytes);
			out->u.bytes.len = nbytes;
			out->kind = DYN_BYTES;
			return 0;
		}
		if (dyn_arr(out, nbytes / elem) < 0) {
			JS_ThrowOutOfMemory(ctx);
			return -1;
		}
		for (i = 0; i < nbytes / elem; i++) {
			out->u.arr.items[i].kind = DYN_NUM;
			out->u.arr.items[i].u.num = binary_elem(data, kind, i);
		}
	} else if (JS_IsObject(v)) {
		switch (JS_IsArray(ctx, v)) {
		case -1:
			return -1;
		case 1:
			return ref_to_dyn_array(st, v, out, depth);
		default:
			return ref_to_dyn_object(st, v, out, depth);
		}
	} else if (JS_IsSymbol(v)) {
		JS_ThrowTypeError(ctx, "bridge: a symbol cannot cross");
		return -1;
	} else {
		JS_ThrowTypeError(ctx, "bridge: a bigint cannot cross");
		return -1;
	}
	return 0;
}

static JSValue ref_from_dyn(br_state *st, const dyn *d)
{
	JSContext *ctx = st->ctx;
	JSValue v;
	size_t i;

	switch (d->kind) {
	case DYN_UNDEF:
		return JS_UNDEFINED;
	case DYN_NULL:
		return JS_NULL;
	case DYN_BOOL:
		return JS_NewBool(ctx, d->u.b);
	case DYN_NUM:
		return JS_NewFloat64(ctx, d->u.num);
	case DYN_STR:
		return JS_NewStringLen(ctx, d->u.str.p, d->u.str.len);
	case DYN_ARR:
		v = JS_NewArray(ctx);
		for (i = 0; i < d->u.arr.len && !JS_IsException(v); i++)
			if (JS_DefinePropertyValueUint32(ctx, v, (uint32_t)i, ref_from_dyn(st, &d->u.arr.items[i]),
							 JS_PROP_C_W_E) < 0) {
				JS_FreeValue(ctx, v);
				v = JS_EXCEPTION;
			}
		return v;
	case DYN_OBJ:
		v = JS_NewObject(ctx);
		for (i = 0; i < d->u.obj.len && !JS_IsException(v); i++) {
			const dyn_member *m = &d->u.obj.members[i];
			JSAtom atom = JS_NewAtomLen(ctx, m->key, m->key_len);
			int rc = atom == JS_ATOM_NULL ? -1
						      : JS_DefinePropertyValue(ctx, v, atom, ref_from_dyn(st, &m->value),
									       JS_PROP_C_W_E);
			JS_FreeAtom(ctx, atom);
			if (rc < 0) {
				JS_FreeValue(ctx, v);
				v = JS_EXCEPTION;
			}
		}
		return v;
	case DYN_FN: {
		JSValueConst fn = handle_fn(st, d->u.fn);
		if (JS_IsUndefined(fn))
			return JS_ThrowRangeError(ctx, "%s", st->err);
		return JS_DupValue(ctx, fn);
	}
	case DYN_BYTES:
		return bin_wrap_bytes(st, d->u.bytes.p, d->u.bytes.len);
	}
	return JS_ThrowInternalError(ctx, "bad Dyn kind");
}

static JSValue ref_entry(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv, int magic)
{
	br_state *st = JS_GetContextOpaque(ctx);
	dyn args, result;
	JSValue ret;
	int i;

	(void)this_val;
	if (dyn_arr(&args, (size_t)argc) < 0)
		return JS_ThrowOutOfMemory(ctx);
	for (i = 0; i < argc; i++)
		if (ref_to_dyn(st, argv[i], &args.u.arr.items[i], 2) < 0) {
			dyn_free(&args);
			return JS_EXCEPTION;
		}
	result.kind = DYN_NULL;
	if (br_host_fns[magic].fn(st, &args, &result) < 0)
		ret = JS_ThrowInternalError(ctx, "%s", st->err);
	else
		ret = ref_from_dyn(st, &result);
	dyn_free(&args);
	dyn_free(&result);
	return ret;
}

static int ref_call_js(br_state *st, JSValueConst fn, const dyn *args, dyn *result)
{
	JSContext *ctx = st->ctx;
	JSValue argv[8], r;
	size_t argc = args->u.arr.len, i, made;
	int rc;

	result->kind = DYN_NULL;
	if (argc > 8)
		return host_err(st, "bridge: at most 8 arguments");
	for (made = 0; made < argc; made++) {
		argv[made] = ref_from_dyn(st, &args->u.arr.items[made]);
		if (JS_IsException(argv[made]))
			break;
	}
	r = made == argc ? JS_Call(ctx, fn, JS_UNDEFINED, (int)argc, argv) : JS_EXCEPTION;
	for (i = 0; i < made; i++)
		JS_FreeValue(ctx, argv[i]);
	if (JS_IsException(r)) {
		br_exception_text(st);
		return -1;
	}
	rc = ref_to_dyn(st, r, result, 1);
	JS_FreeValue(ctx, r);
	if (rc < 0) {
		dyn_free(result);
		br_exception_text(st);
	}
	return rc;
}

static JSCFunctionMagic *ref_entry_of(int i)
{
	(void)i;
	return ref_entry;
}

static void ref_free(br_state *st)
{
	(void)st;
}

static const br_codec br_floor = {"floor", ref_entry_of, ref_call_js, NULL, ref_free};

/* ==== The corpus and its JavaScript ==== */

/* describe(v) names a value exactly, in ASCII: -0, NaN, holes, key order, lone surrogates, functions by name. */
static const char js_suite[] =
	"function q(s) {\n"
	"  let o = '\"';\n"
	"  for (let i = 0; i < s.length; i++) {\n"
	"    const c = s.charCodeAt(i);\n"
	"    o += c === 34 ? '\\\\\"' : c === 92 ? '\\\\\\\\' : c >= 32 && c < 127 ? s[i]\n"
	"       : '\\\\u' + c.toString(16).padStart(4, '0');\n"
	"  }\n"
	"  return o + '\"';\n"
	"}\n"
	"function describe(v, depth = 0) {\n"
	"  if (depth > 200) return '...';\n"
	"  switch (typeof v) {\n"
	"  case 'undefined': return 'undefined';\n"
	"  case 'boolean': return String(v);\n"
	"  case 'number': return Object.is(v, -0) ? '-0' : String(v);\n"
	"  case 'bigint': return v + 'n';\n"
	"  case 'symbol': return v.toString();\n"
	"  case 'function': return 'function ' + (v.name || '(anonymous)');\n"
	"  case 'string':\n"
	"    if (v.length <= 64) return q(v);\n"
	"    let h = 2166136261;\n"
	"    for (let i = 0; i < v.length; i++) h = Math.imul(h ^ v.charCodeAt(i), 16777619) >>> 0;\n"
	"    return 'string(length ' + v.length + ', fnv ' + h.toString(16) + ', starts ' + q(v.slice(0, 12)) + ')';\n"
	"  }\n"
	"  if (v === null) return 'null';\n"
	"  if (Array.isArray(v)) {\n"
	"    const items = [];\n"
	"    for (let i = 0; i < v.length; i++) items.push(i in v ? describe(v[i], depth + 1) : 'hole');\n"
	"    return '[' + items.join(', ') + ']';\n"
	"  }\n"
	"  if (ArrayBuffer.isView(v)) return v.constructor.name + ' [' + Array.from(v, x => describe(x)).join(', ') + ']';\n"
	"  const proto = Object.getPrototypeOf(v);\n"
	"  const tag = proto === Object.prototype ? '' : (proto && proto.constructor ? proto.constructor.name : 'null-proto') + ' ';\n"
	"  return tag + '{' + Object.keys(v).map(k => q(k) + ': ' + describe(v[k], depth + 1)).join(', ') + '}';\n"
	"}\n"
	"function mkstr(nb) {  // the cases' strings: nb UTF-8 bytes, as bb_text_new makes them\n"
	"  const unit = 'ab \\u00e9\\u20ac cd ', k = Math.floor(nb / 12);\n"
	"  return [unit.repeat(k), 'a'.repeat(nb - 12 * k)].join('');\n"
	"}\n"
	"function batch(n) {  // the mutations of ui_ops_object_batch\n"
	"  const KEYS = ['x', 'y', 'w', 'h', 'color', 'text', 'opacity', 'visible'], list = [];\n"
	"  for (let m = 0; m < n; m++) list.push({id: m & 63, key: KEYS[(m >> 3) & 7], value: m * 0.5});\n"
	"  return list;\n"
	"}\n"
	"function nest(n) { let v = 0; for (let i = 0; i < n; i++) v = [v]; return v; }\n"
	"function depthOf(v) { let d = 0; while (Array.isArray(v)) { v = v[0]; d++; } return d; }\n"
	"function echo(v) { return v; }\n"
	"function outcome(f) {\n"
	"  try { return describe(f()); } catch (e) { return 'throws ' + e.name + ': ' + e.message; }\n"
	"}\n"
	"const C = {\n"
	"  undefined_: () => undefined,\n"
	"  null_: () => null,\n"
	"  false_: () => false,\n"
	"  true_: () => true,\n"
	"  zero: () => 0,\n"
	"  neg_zero: () => -0,\n"
	"  nan: () => NaN,\n"
	"  inf: () => Infinity,\n"
	"  neg_inf: () => -Infinity,\n"
	"  int32_max: () => 2147483647,\n"
	"  int32_min: () => -2147483648,\n"
	"  int32_max_plus_1: () => 2147483648,\n"
	"  int32_min_minus_1: () => -2147483649,\n"
	"  two53_minus_1: () => 2 ** 53 - 1,\n"
	"  two53: () => 2 ** 53,\n"
	"  two53_plus_1: () => 2 ** 53 + 1,  // is 2 ** 53 as a double\n"
	"  two53_plus_2: () => 2 ** 53 + 2,\n"
	"  neg_two53_minus_2: () => -(2 ** 53) - 2,\n"
	"  large_1e21: () => 1e21,\n"
	"  large_2e300: () => 2e300,\n"
	"  max_value: () => Number.MAX_VALUE,\n"
	"  min_value: () => Number.MIN_VALUE,\n"
	"  f17_point3: () => 0.1 + 0.2,\n"
	"  f17_third: () => 1 / 3,\n"
	"  f17_e: () => Math.E,\n"
	"  str_empty: () => '',\n"
	"  str_escapes: () => '\"\\\\/\\b\\f\\n\\r\\t\\u0000\\u001f\\u007f',\n"
	"  str_bmp: () => 'caf\\u00e9 \\u20ac \\u4e2d',\n"
	"  str_astral: () => '\\ud83d\\ude00 \\ud834\\udd1e',\n"
	"  str_lone_high: () => 'a\\ud800b',\n"
	"  str_lone_low: () => '\\udc00',\n"
	"  str_reversed_pair: () => '\\udc00\\ud800',\n"
	"  str_64k: () => 'ab\\u00e9\\u20ac'.repeat(16384),\n"
	"  str_case_16: () => mkstr(16),\n"
	"  str_case_1k: () => mkstr(1024),\n"
	"  str_case_64k: () => mkstr(65536),\n"
	"  obj_str_16: () => ({id: 1, text: mkstr(16)}),\n"
	"  obj_str_1k: () => ({id: 1, text: mkstr(1024)}),\n"
	"  obj_str_64k: () => ({id: 1, text: mkstr(65536)}),\n"
	"  batch_16: () => batch(16),\n"
	"  arr_empty: () => [],\n"
	"  arr_holes: () => [1, , 3],\n"
	"  arr_sparse_tail: () => { const a = [0]; a[4] = 4; return a; },\n"
	"  arr_undefined: () => [undefined, null, 1],\n"
	"  arr_numbers: () => [NaN, -0, Infinity, -Infinity, 2 ** 53 + 2],\n"
	"  arr_mixed: () => [1, 'a', true, null, {x: 1}, [2]],\n"
	"  obj_empty: () => ({}),\n"
	"  obj_key_order: () => ({b: 1, a: 2, c: 3}),\n"
	"  obj_numeric_keys: () => ({b: 1, 2: 'two', 10: 'ten', 1: 'one', a: 0}),\n"
	"  obj_undefined_value: () => ({a: undefined, b: 1}),\n"
	"  obj_numbers: () => ({n: NaN, z: -0, i: -Infinity}),\n"
	"  obj_getter: () => ({get g() { return 42; }, v: 1}),\n"
	"  obj_key_escapes: () => ({'a\"b': 1, 'caf\\u00e9': 2, '\\ud800': 3, '': 4}),\n"
	"  obj_proto_key: () => JSON.parse('{\"__proto__\": 1, \"x\": 2}'),\n"
	"  obj_inherited: () => Object.create({inherited: 1}, {own: {value: 2, enumerable: true}}),\n"
	"  obj_non_enumerable: () => Object.defineProperty({a: 1}, 'hidden', {value: 2, enumerable: false}),\n"
	"  obj_symbol_key: () => ({[Symbol('s')]: 1, a: 1}),\n"
	"  obj_repeated_keys: () => [{x: 1, y: 2}, {x: 3, y: 4}, {y: 5, x: 6}],\n"
	"  obj_nested: () => ({a: [1, {b: [2, {c: 'd'}]}]}),\n"
	"  obj_date: () => new Date(0),\n"
	"  typed_u8: () => new Uint8Array([1, 2, 255]),\n"
	"  typed_u8_subarray: () => new Uint8Array([7, 1, 2, 255, 7]).subarray(1, 4),\n"
	"  typed_u8_empty: () => new Uint8Array(0),\n"
	"  typed_u8_in_object: () => ({b: new Uint8Array([0, 128])}),\n"
	"  array_buffer: () => new Uint8Array([5, 6]).buffer,\n"
	"  typed_f64: () => new Float64Array([0.5, -0, NaN]),\n"
	"  depth_at_limit: () => nest(126),\n"
	"  depth_past_limit: () => nest(127),\n"
	"  cycle_object: () => { const o = {a: 1}; o.self = o; return o; },\n"
	"  cycle_array: () => { const a = [1]; a.push(a); return a; },\n"
	"  fn: () => function named_fn() {},\n"
	"  fn_in_object: () => ({f: function inner() {}, n: 1}),\n"
	"  bigint: () => 10n,\n"
	"  symbol: () => Symbol('s'),\n"
	"};\n"
	"const NAMES = Object.keys(C);\n"
	"function shown(name, v) { return name.startsWith('depth_') ? 'depth ' + depthOf(v) : describe(v); }\n"
	"function s2h2s(name) {\n"
	"  try { return shown(name, host_echo(C[name]())); } catch (e) { return 'throws ' + e.name + ': ' + e.message; }\n"
	"}\n"
	"function caller(i) { return host_fail(i); }\n"
	"function thrower() { throw new TypeError('boom from script'); }\n"
	"function fail(i) { throw new Error('script_fail: refused ' + i); }  // error_script_to_host's\n"
	"const TYPED = {\n"
	"  add_neg_zero: () => host_add(-0, -0),\n"
	"  add_nan: () => host_add(NaN, 1),\n"
	"  add_inf: () => host_add(Infinity, 1),\n"
	"  add_two53: () => host_add(2 ** 53, 2),\n"
	"  add_fraction: () => host_add(0.1, 0.2),\n"
	"  add_string_falls_back: () => host_add(1, '2'),\n"
	"  add_missing_argument: () => host_add(1),\n"
	"  upper_empty: () => host_upper(''),\n"
	"  upper_bmp: () => host_upper('caf\\u00e9 \\u20ac'),\n"
	"  upper_astral: () => host_upper('a\\ud83d\\ude00b'),\n"
	"  upper_lone_surrogate: () => host_upper('x\\ud800y\\udc00'),\n"
	"  upper_nul: () => host_upper('a\\u0000b'),\n"
	"  upper_64k: () => host_upper('ab\\u00e9\\u20ac'.repeat(16384)),\n"
	"  upper_number_falls_back: () => host_upper(5),\n"
	"  fail_message: () => { try { caller(7); } catch (e) { return e.name + ': ' + e.message; } },\n"
	"  fail_stack_names_caller: () => { try { caller(7); } catch (e) { return /at caller/.test(e.stack); } },\n"
	"  echo_fn_identity: () => { const f = function ident() {}; return host_echo(f) === f; },\n"
	"  echo_fn_callable: () => host_echo({f: (a, b) => a * b}).f(6, 7),\n"
	"  echo_no_argument: () => host_echo(),\n"
	"  reentrant_getter: () => host_echo({get g() { return host_add(1, 2); }}),\n"
	"  reentrant_nested: () => host_echo({get g() { return host_echo({get h() { return host_echo([1, 'x']); }}); }}),\n"
	"  bytes_in_place: () => host_bytes(new Uint8Array([1, 2, 3])),\n"
	"  bytes_subarray: () => host_bytes(new Uint8Array([9, 1, 2, 3]).subarray(1)),\n"
	"  bytes_array_falls_back: () => host_bytes([1, 2, 3]),\n"
	"  bytes_int8_falls_back: () => host_bytes(new Int8Array([-1])),\n"
	"  set_prop_bad_key: () => set_prop(0, 'nope', 1),\n"
	"  set_prop_ok: () => set_prop(1, 'w', -0),\n"
	"  record_16: () => host_record({id: 41, text: mkstr(16)}),\n"
	"  record_1k_same_text: () => host_record({id: 41, text: mkstr(1024)}).text === mkstr(1024),\n"
	"  record_64k_same_text: () => host_record({id: 41, text: mkstr(65536)}).text === mkstr(65536),\n"
	"  record_missing_text: () => host_record({id: 1}),\n"
	"  set_node_ok: () => set_node({id: 1, key: 'w', value: -0}),\n"
	"  set_node_bad_key: () => set_node({id: 1, key: 'nope', value: 1}),\n"
	"  apply_batch_16: () => apply_batch(batch(16)),\n"
	"  apply_batch_not_objects: () => apply_batch([1]),\n"
	"};\n";

/* ==== The checks ==== */

typedef struct suite {
	br_state *st, *ref; /* the codec under test, and the floor's conversion in a context of its own */
	int same, differ;
} suite;

static br_state *new_context(const br_codec *codec)
{
	br_state *st = br_new(codec);
	JSValue v;

	if (!st)
		return NULL;
	v = JS_Eval(st->ctx, js_suite, sizeof js_suite - 1, "suite.js", JS_EVAL_TYPE_GLOBAL);
	if (JS_IsException(v)) {
		br_exception_text(st);
		fprintf(stderr, "conformance: suite.js: %s\n", st->err);
		br_free(st);
		return NULL;
	}
	JS_FreeValue(st->ctx, v);
	return st;
}

/* text_of takes r, a result of the suite's JavaScript, and returns its text (or the exception's), malloc'd. */
static char *text_of(br_state *st, JSValue r)
{
	const char *s;
	char *out;

	if (JS_IsException(r)) {
		br_exception_text(st);
		return strdup(st->err);
	}
	s = JS_ToCString(st->ctx, r);
	JS_FreeValue(st->ctx, r);
	out = strdup(s ? s : "(not a string)");
	JS_FreeCString(st->ctx, s);
	return out;
}

/* call_str calls a global function of the suite with a string argument and returns its string result (malloc'd). */
static char *call_str(br_state *st, const char *fn, const char *arg)
{
	JSValue g = JS_GetGlobalObject(st->ctx), f = JS_GetPropertyStr(st->ctx, g, fn);
	JSValue a = JS_NewString(st->ctx, arg), r = JS_Call(st->ctx, f, JS_UNDEFINED, 1, &a);

	JS_FreeValue(st->ctx, a);
	JS_FreeValue(st->ctx, f);
	JS_FreeValue(st->ctx, g);
	return text_of(st, r);
}

/* eval_str evaluates an expression of the suite and describes it. */
static char *eval_str(br_state *st, const char *expr)
{
	return text_of(st, JS_Eval(st->ctx, expr, strlen(expr), "check.js", JS_EVAL_TYPE_GLOBAL));
}

/* report prints one check: its outcome under the codec, and the floor's when they differ. */
static void report(suite *su, const char *dir, const char *name, char *got, char *want)
{
	size_t i;

	for (i = 0; got[i]; i++) /* one line per check */
		if (got[i] == '\n')
			got[i] = ' ';
	for (i = 0; want[i]; i++)
		if (want[i] == '\n')
			want[i] = ' ';
	printf("%s %s: %s", dir, name, got);
	if (strcmp(got, want) != 0) {
		printf("   [floor: %s]", want);
		su->differ++;
	} else {
		su->same++;
	}
	printf("\n");
	free(got);
	free(want);
}

static char *first_line(const char *err, const char *fn, int ok);

/* h2s2h: the host holds the value (the floor's conversion of the corpus entry), calls echo(v) through the codec,
 * and describes the result, converted back by the floor's conversion. */
static char *h2s2h(br_state *st, const char *name)
{
	char expr[160];
	JSValue v, back;
	dyn args, result;
	int rc;
	char *out;

	snprintf(expr, sizeof expr, "C.%s()", name);
	v = JS_Eval(st->ctx, expr, strlen(expr), "corpus.js", JS_EVAL_TYPE_GLOBAL);
	if (JS_IsException(v)) {
		br_exception_text(st);
		return strdup(st->err);
	}
	if (dyn_arr(&args, 1) < 0) {
		JS_FreeValue(st->ctx, v);
		return strdup("out of memory");
	}
	rc = ref_to_dyn(st, v, &args.u.arr.items[0], 2);
	JS_FreeValue(st->ctx, v);
	if (rc < 0) {
		char buf[600];
		dyn_free(&args);
		br_exception_text(st);
		st->err[strcspn(st->err, "\n")] = '\0';
		snprintf(buf, sizeof buf, "the host cannot hold it: %s", st->err);
		return strdup(buf);
	}
	{
		JSValue g = JS_GetGlobalObject(st->ctx), fn = JS_GetPropertyStr(st->ctx, g, "echo");
		rc = st->codec->call_js(st, fn, &args, &result);
		JS_FreeValue(st->ctx, fn);
		JS_FreeValue(st->ctx, g);
	}
	dyn_free(&args);
	if (rc < 0)
		return first_line(st->err, "echo", 0);
	back = ref_from_dyn(st, &result);
	dyn_free(&result);
	if (JS_IsException(back)) {
		br_exception_text(st);
		return strdup(st->err);
	}
	{
		JSValue g = JS_GetGlobalObject(st->ctx), f = JS_GetPropertyStr(st->ctx, g, "shown");
		JSValue a[2] = {JS_NewString(st->ctx, name), back};
		out = text_of(st, JS_Call(st->ctx, f, JS_UNDEFINED, 2, a));
		JS_FreeValue(st->ctx, a[0]);
		JS_FreeValue(st->ctx, f);
		JS_FreeValue(st->ctx, g);
	}
	JS_FreeValue(st->ctx, back);
	return out;
}

/* first_line keeps an error text's first line and says whether the rest (the stack) names the function. */
static char *first_line(const char *err, const char *fn, int ok)
{
	char buf[600];
	const char *nl = strchr(err, '\n');
	int n = nl ? (int)(nl - err) : (int)strlen(err);

	snprintf(buf, sizeof buf, "%s%.*s | stack names %s: %s", ok ? "" : "throws ", n, err, fn,
		 nl && strstr(nl, fn) ? "yes" : "no");
	return strdup(buf);
}

/* call_global calls a global function of the context with (1, 2) through the codec or through handle h. */
static char *call_through(br_state *st, JSValueConst fn, const char *fn_name)
{
	dyn args, result;
	char buf[600];
	int rc;

	if (dyn_arr(&args, 2) < 0)
		return strdup("out of memory");
	args.u.arr.items[0].kind = args.u.arr.items[1].kind = DYN_NUM;
	args.u.arr.items[0].u.num = 6;
	args.u.arr.items[1].u.num = 7;
	rc = JS_IsUndefined(fn) ? -1 : st->codec->call_js(st, fn, &args, &result);
	dyn_free(&args);
	if (rc < 0)
		return first_line(st->err, fn_name, 0);
	snprintf(buf, sizeof buf, "%s", result.kind == DYN_NUM ? "a number" : "not a number");
	if (result.kind == DYN_NUM)
		snprintf(buf, sizeof buf, "%.17g", result.u.num);
	dyn_free(&result);
	return strdup(buf);
}

static char *global_call(br_state *st, const char *name)
{
	JSValue g = JS_GetGlobalObject(st->ctx), fn = JS_GetPropertyStr(st->ctx, g, name);
	char *out = call_through(st, fn, name);

	JS_FreeValue(st->ctx, fn);
	JS_FreeValue(st->ctx, g);
	return out;
}

/* handle_steps registers a function through host_register, calls it through its handle, releases the handle and
 * calls again: a clear error, no crash. */
static char *handle_step(br_state *st, int step)
{
	static const char reg[] = "host_register(function held(a, b) { return a * b; })";
	JSValue v;

	switch (step) {
	case 0:
		v = JS_Eval(st->ctx, reg, sizeof reg - 1, "handle.js", JS_EVAL_TYPE_GLOBAL);
		if (JS_IsException(v)) {
			br_exception_text(st);
			return strdup(st->err);
		}
		JS_FreeValue(st->ctx, v);
		return strdup(st->has_callback ? "registered" : "not registered");
	case 1:
		return call_through(st, handle_fn(st, st->callback), "held");
	default:
		handle_release(st, st->callback);
		return call_through(st, handle_fn(st, st->callback), "held");
	}
}

static int run(const br_codec *codec)
{
	static const char *const handle_steps[] = {"handle_register", "handle_call_while_held", "handle_call_after_release"};
	suite su = {NULL, NULL, 0, 0};
	char *names, *p, *name;
	int i;

	su.st = new_context(codec);
	su.ref = new_context(&br_floor);
	if (!su.st || !su.ref) {
		br_free(su.st);
		br_free(su.ref);
		return 1;
	}
	printf("# conformance of codec %s against the floor's direct conversion\n", codec->name);
	names = eval_str(su.ref, "NAMES.join(' ')");
	for (name = strtok_r(names, " ", &p); name; name = strtok_r(NULL, " ", &p)) {
		report(&su, "s2h2s", name, call_str(su.st, "s2h2s", name), call_str(su.ref, "s2h2s", name));
		report(&su, "h2s2h", name, h2s2h(su.st, name), h2s2h(su.ref, name));
	}
	free(names);
	names = eval_str(su.ref, "Object.keys(TYPED).join(' ')");
	for (name = strtok_r(names, " ", &p); name; name = strtok_r(NULL, " ", &p)) {
		char expr[160];
		snprintf(expr, sizeof expr, "outcome(TYPED.%s)", name);
		report(&su, "typed", name, eval_str(su.st, expr), eval_str(su.ref, expr));
	}
	free(names);
	report(&su, "h2s", "exception", global_call(su.st, "thrower"), global_call(su.ref, "thrower"));
	report(&su, "h2s", "script_error", global_call(su.st, "fail"), global_call(su.ref, "fail"));
	for (i = 0; i < 3; i++)
		report(&su, "h2s", handle_steps[i], handle_step(su.st, i), handle_step(su.ref, i));
	printf("# %d checks as the floor, %d not\n", su.same, su.differ);
	br_free(su.st); /* QuickJS asserts here that no object leaked */
	br_free(su.ref);
	return 0;
}

/* leak_check holds one object past the context's end: QuickJS's teardown must abort. */
static int leak_check(void)
{
	br_state *st = br_new(&br_floor);

	if (!st)
		return 1;
	(void)JS_NewObject(st->ctx);
	br_free(st);
	printf("leak not detected\n");
	return 0;
}

int main(int argc, char **argv)
{
	const br_codec *codec;

	if (argc == 2 && strcmp(argv[1], "leak-check") == 0)
		return leak_check();
	codec = argc == 2 ? br_codec_named(argv[1]) : NULL;
	if (argc == 2 && strcmp(argv[1], "floor") == 0)
		codec = &br_floor;
	if (!codec) {
		fprintf(stderr, "usage: conformance json|fast|binary|floor|leak-check\n");
		return 2;
	}
	return run(codec);
}
