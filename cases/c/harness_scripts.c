/* harness_scripts.c: the JavaScript of every case, the same in every program. cases.def names each case's script;
 * bench-bridge reads this file too (cases/scripts.go), so that `bench-bridge cases --script` and docs/bridge.md show
 * what is measured. Keep the scripts as string arrays and JS_ macros of string literals: that is what it reads.
 *
 * Script -> host cases define bench(n), whose loop makes n crossings, and check their host functions when the script
 * is evaluated (an exception there fails the case). Host -> script cases define the function the host calls;
 * callback hands one to host_register().
 *
 * Every script is ES5, the timed loops too (var, function expressions, no String.prototype.repeat: the prelude's
 * repeat does its work), so that every engine runs the same text and ×ref is like for like across engines: QuickJS
 * runs a loop of let about twice as slowly as one of var (it checks the binding's initialisation at every read),
 * where Duktape and MuJS have only var. cases/scripts_test.go checks it. */
#ifdef BB_HARNESS_UNITY /* compiled through harness.c, which says why */
#include "harness_internal.h"

#include <string.h>

/* Evaluated before every case script. expect() shows short values only, so a 64 KiB string never lands in an
 * error line. */
static const char js_prelude[] =
	"function expect(got, want, what) {\n"
	"  if (got === want) return;\n"
	"  function show(v) { var s = String(v); return s.length <= 60 ? s : s.slice(0, 60) + '...'; }\n"
	"  throw new Error(what + ': got ' + show(got) + ', want ' + show(want));\n"
	"}\n"
	"function repeat(s, k) {  // String.prototype.repeat is ES2015\n"
	"  return new Array(k + 1).join(s);\n"
	"}\n";

/* The loop of script_to_host_scalar with host_add replaced by its arithmetic. */
static const char js_ref[] =
	"function bench(n) {\n"
	"  var s = 0;\n"
	"  for (var i = 0; i < n; i++) s = (s + i) % 1000003;\n"
	"  return s;\n"
	"}\n"
	"expect(bench(2000), 998997, 'bench(2000)');\n";

static const char js_scalar[] =
	"function bench(n) {\n"
	"  var s = 0;\n"
	"  for (var i = 0; i < n; i++) s = host_add(s, i);\n"
	"  return s;\n"
	"}\n"
	"expect(bench(2000), 998997, 'bench(2000)');\n";

/* mkstr(nb) makes exactly nb UTF-8 bytes, ASCII and non-ASCII mixed, as bb_text_new does on the host side. The
 * checks avoid regular expressions and per-character callbacks over S, which are slow under qemu, and charCodeAt over
 * S, which is quadratic in MuJS (it finds the i-th character of a non-ASCII string from the start): utf8len counts
 * encodeURIComponent's escapes instead. */
#define JS_MKSTR                                                                                              \
	"function mkstr(nb, upper) {  // upper: what host_upper makes of it\n"                               \
	"  // 12 UTF-8 bytes: 7 ASCII, 2 for e-acute, 3 for euro\n"                                          \
	"  var unit = upper ? 'AB \\u00e9\\u20ac CD ' : 'ab \\u00e9\\u20ac cd ';\n"                      \
	"  var k = Math.floor(nb / 12), pad = repeat(upper ? 'A' : 'a', nb - 12 * k);\n"                   \
	"  return [repeat(unit, k), pad].join('');  // one flat string, not a rope\n"                       \
	"}\n"                                                                                                \
	"function utf8len(s) {  // each %XX is one UTF-8 byte (S has no lone surrogates)\n"                  \
	"  var e = encodeURIComponent(s);\n"                                                                 \
	"  return e.length - 2 * (e.split('%').length - 1);\n"                                               \
	"}\n"                                                                                                \
	"var S = mkstr(N);\n"                                                                                \
	"expect(utf8len(S), N, 'UTF-8 length of S');\n"

/* S holds exactly N UTF-8 bytes (N is the case's bytes); host_upper returns a string of the same length with its
 * ASCII letters upper-cased, so both directions carry N bytes and the host touches every byte. */
static const char js_string[] =
	JS_MKSTR
	"expect(host_upper(S), mkstr(N, true), 'host_upper(S)');  // not a regular expression: slow under qemu\n"
	"function bench(n) {\n"
	"  var s = 0;\n"
	"  for (var i = 0; i < n; i++) s += host_upper(S).length;\n"
	"  return s;\n"
	"}\n";

/* O is bb_obj_sample(i) in JavaScript; keep them alike. */
static const char js_object[] =
	"var O = {id: 0, name: 'node-\\u00e9', x: 1.5, y: 2.25, tags: ['a', 'bb', 'ccc'], pos: {a: 3, b: 4}};\n"
	"function bench(n) {\n"
	"  var s = 0;\n"
	"  for (var i = 0; i < n; i++) {\n"
	"    O.id = i;\n"
	"    var r = host_obj(O);\n"
	"    s = (s + r.id + r.x) % 1000003;\n"
	"  }\n"
	"  return s;\n"
	"}\n"
	"O.id = 41;\n"
	"expect(JSON.stringify(host_obj(O)), '{\"id\":42,\"ok\":true,\"x\":3.75}', 'host_obj(O)');\n";

/* R holds S, N UTF-8 bytes (as in js_string); host_record gives back {id: id + 1, text}, the same text. */
static const char js_record[] =
	JS_MKSTR
	"var R = {id: 41, text: S};\n"
	"expect(host_record(R).id, 42, 'host_record(R).id');\n"
	"expect(host_record(R).text, S, 'host_record(R).text');\n"
	"function bench(n) {\n"
	"  var s = 0;\n"
	"  for (var i = 0; i < n; i++) {\n"
	"    R.id = i;\n"
	"    var r = host_record(R);\n"
	"    s = (s + r.id + r.text.length) % 1000003;\n"
	"  }\n"
	"  return s;\n"
	"}\n";

static const char js_array[] =
	"var A = [];\n"
	"for (var i = 0; i < 64; i++) A.push(i * 0.5);\n"
	"function bench(n) {\n"
	"  var s = 0;\n"
	"  for (var i = 0; i < n; i++) {\n"
	"    A[0] = i;\n"
	"    s = (s + host_sum(A)) % 1000003;\n"
	"  }\n"
	"  return s;\n"
	"}\n"
	"expect(host_sum(A), 1008, 'host_sum(A)');\n";

/* The function the host calls is bb_add in JavaScript. */
static const char js_h2s_scalar[] = "function add(a, b) { return (a + b) % 1000003; }\n";

/* The function the host calls is bb_obj_host in JavaScript. */
static const char js_h2s_object[] = "function obj(o) { return {id: o.id + 1, ok: true, x: o.x + o.y}; }\n";

/* The functions the host calls with its text (bb_text_new) give it back: the string crosses both ways. */
static const char js_h2s_string[] = "function text(s) { return s; }\n";

/* bb_record_host in JavaScript. */
static const char js_h2s_record[] = "function record(r) { return {id: r.id + 1, text: r.text}; }\n";

static const char js_callback[] = "host_register(function (x, y) { return (x + y) % 1000003; });\n";

static const char js_error[] =
	"function bench(n) {\n"
	"  var s = 0;\n"
	"  for (var i = 0; i < n; i++) {\n"
	"    try { host_fail(i); } catch (e) { s += e.message.length; }\n"
	"  }\n"
	"  return s;\n"
	"}\n"
	"var caught = null;\n"
	"try { host_fail(12); } catch (e) { caught = e; }\n"
	"expect(caught instanceof Error, true, 'host_fail(12) threw an Error');\n"
	"expect(caught.message, 'host_fail: refused 12', 'its message');\n";

/* The function the host calls throws; the host reads the error's message and stack (bb_check_script_error). */
static const char js_script_error[] = "function fail(i) { throw new Error('script_fail: refused ' + i); }\n";

/* Mutation m of a bench run sets node m & 63, key (m >> 3) & 7 to m / 2; bb_ui_check replays it. JS_UI_BENCH makes
 * bench(n): n frames of 16 mutations, each written by the statement mutate (with m, k and KEYS), after the frame's
 * start and before its send. */
#define JS_UI_BENCH(start, mutate, send)                                                          \
	"var KEYS = ['x', 'y', 'w', 'h', 'color', 'text', 'opacity', 'visible'];\n"               \
	"function bench(n) {\n"                                                                   \
	"  for (var f = 0; f < n; f++) {\n"                                                       \
	"    var base = f * 16;\n" start "    for (var k = 0; k < 16; k++) {\n"                    \
	"      var m = base + k;\n"                                                               \
	"      " mutate "\n"                                                                      \
	"    }\n" send "  }\n"                                                                    \
	"  return n;\n"                                                                           \
	"}\n"

static const char js_ui_calls[] = JS_UI_BENCH("", "set_prop(m & 63, KEYS[(m >> 3) & 7], m * 0.5);", "");

/* The same mutations as (node, key index, value) triples in one typed array, sent once per frame. */
static const char js_ui_buffer[] =
	"var BUF = new Float64Array(48);\n"
	JS_UI_BENCH("", "BUF[3 * k] = m & 63; BUF[3 * k + 1] = (m >> 3) & 7; BUF[3 * k + 2] = m * 0.5;",
		    "    apply_ops(BUF);\n");

/* The same mutations as small objects, one per call. */
static const char js_ui_object_calls[] =
	JS_UI_BENCH("", "set_node({id: m & 63, key: KEYS[(m >> 3) & 7], value: m * 0.5});", "");

/* The same objects, made the same way, sent as one list per frame: a batch of mutations. */
static const char js_ui_object_batch[] =
	JS_UI_BENCH("    var list = [];\n", "list.push({id: m & 63, key: KEYS[(m >> 3) & 7], value: m * 0.5});",
		    "    apply_batch(list);\n");

static const char js_bytes[] =
	"var B = new Uint8Array(65536);\n"
	"for (var i = 0; i < B.length; i++) B[i] = (i * 31 + 7) & 255;\n"
	"function bench(n) {\n"
	"  var s = 0;\n"
	"  for (var i = 0; i < n; i++) s = (s + host_bytes(B)) % 1000003;\n"
	"  return s;\n"
	"}\n"
	"var want = 0;\n"
	"for (var i = 0; i < B.length; i++) want += B[i];\n"
	"expect(host_bytes(B), want, 'host_bytes(B)');\n";

/* The scripts of cases.def, with the case's bytes (the script's N). */
static const harness_script scripts[] = {
#define BB_CASE(name, crossing, unit_ops, bytes, setup, run, script, op) {#name, script, bytes},
#define BB_CASE_TYPED_ARRAYS(name, crossing, unit_ops, bytes, setup, run, script, op, why) {#name, script, bytes},
#include "cases.def"
#undef BB_CASE
#undef BB_CASE_TYPED_ARRAYS
};

const char *const harness_prelude = js_prelude;
const char *const bb_prelude = js_prelude;

const harness_script *harness_script_find(const char *case_name)
{
	size_t i;

	for (i = 0; i < sizeof scripts / sizeof scripts[0]; i++)
		if (strcmp(scripts[i].name, case_name) == 0)
			return &scripts[i];
	return NULL;
}

const char *bb_case_script(const char *case_name)
{
	const harness_script *s = harness_script_find(case_name);

	return s ? s->src : NULL;
}

int32_t bb_case_bytes(const char *case_name)
{
	const harness_script *s = harness_script_find(case_name);

	return s ? s->bytes : -1;
}

#endif /* BB_HARNESS_UNITY */
