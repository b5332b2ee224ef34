/* engine_conformance.c: the part of the conformance corpus (cases/c/conformance.c) that the floors of engine_cases.h
 * can run: numbers and strings, crossing through the floor's own functions (its host_add and host_upper, its call_add
 * and call_text), so that a floor that converts one of them wrongly is caught. The corpus of conformance.c itself is
 * QuickJS's: ES2015 and later, a generic echo through a codec, values of every kind.
 *
 * It includes the floor's C file (BB_FLOOR, e.g. "floor_duktape.c") to reach its static functions, and is linked with
 * harness.c compiled with -Dmain=bb_protocol_main -Dbb_case_script=bb_catalogue_script: the corpus's script is the
 * pseudo-case "conformance", and the others are the catalogue's. cases/conformance_test.go builds it for each floor in
 * C and compares its lines with cases/testdata/conformance/floor-ENGINE.txt.
 *
 * Lines: `s2h2s KIND NAME: ...` (a value of the script, through a host function and back, judged by the script),
 * `h2s2h KIND NAME: ...` (a value of the host, through a script function that returns it, judged by the host), `seen
 * NAME: ...` (the UTF-16 code units the script sees of a host's text). "same" is right; anything else says what. */
#include BB_FLOOR

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus /* SpiderMonkey's floor is C++: this file is compiled as C++ with it, the harness as C */
extern "C" {
#endif
const char *bb_catalogue_script(const char *case_name);
void harness_report_error(const char *case_name); /* the harness's: `error CASE MESSAGE`, the last bb_error's */
#ifdef __cplusplus
}
#endif

/* The corpus, ES5 like the cases. report(what) gives the script's own judgements, one line each. */
static const char js_conformance[] =
	"function echo(v) { return v; }\n"
	"function seen(s) {\n"
	"  var c = [];\n"
	"  for (var i = 0; i < s.length && i < 16; i++) c.push(s.charCodeAt(i).toString(16));\n"
	"  return s.length + ': ' + c.join(' ');\n"
	"}\n"
	"function twice(s, k) { while (k-- > 0) s += s; return s; }  // 2^k copies: faster than repeat under ASan\n"
	"function same(a, b) { return a !== a ? b !== b : a === b && 1 / a === 1 / b; }\n"
	"var NUMBERS = {zero: 0, neg_zero: -0, nan: NaN, inf: Infinity, neg_inf: -Infinity, int32_max: 2147483647,\n"
	"  int32_min: -2147483648, int32_max_plus_1: 2147483648, two53_plus_2: 9007199254740994,\n"
	"  neg_two53_minus_2: -9007199254740994, large_2e300: 2e300, max_value: Number.MAX_VALUE,\n"
	"  min_value: Number.MIN_VALUE, f17_point3: 0.1 + 0.2, f17_third: 1 / 3};\n"
	"var STRINGS = {empty: ['', ''], ascii: ['abc XYZ', 'ABC XYZ'], bmp: ['caf\\u00e9 \\u20ac \\u4e2d', 'CAF\\u00e9 \\u20ac \\u4e2d'],\n"
	"  astral: ['\\ud83d\\ude00 \\ud834\\udd1e', '\\ud83d\\ude00 \\ud834\\udd1e'], nul: ['a\\u0000b', 'A\\u0000B'],\n"
	"  escapes: ['\"\\\\/\\b\\f\\n\\r\\t\\u001f\\u007f', '\"\\\\/\\b\\f\\n\\r\\t\\u001f\\u007f'],\n"
	"  s64k: [twice('ab\\u00e9\\u20ac', 14), twice('AB\\u00e9\\u20ac', 14)]};\n"
	"function report(what) {\n"
	"  var out = [], k, got, want;\n"
	"  for (k in NUMBERS) {  // host_add(v, -0) is (v + -0) % 1000003, which keeps -0\n"
	"    got = host_add(NUMBERS[k], -0); want = (NUMBERS[k] + -0) % 1000003;\n"
	"    out.push('s2h2s number ' + k + ': ' + (same(got, want) ? 'same' : 'got ' + got + ', want ' + want));\n"
	"  }\n"
	"  for (k in STRINGS) {\n"
	"    got = host_upper(STRINGS[k][0]);\n"
	"    out.push('s2h2s string ' + k + ': ' + (got === STRINGS[k][1] ? 'same' : 'got ' + seen(got) + ', want ' + seen(STRINGS[k][1])));\n"
	"  }\n"
	"  return out.join('\\n');\n"
	"}\n";

const char *bb_case_script(const char *case_name)
{
	return strcmp(case_name, "conformance") == 0 ? js_conformance : bb_catalogue_script(case_name);
}

/* The host's numbers and texts: as the script's, in UTF-8. */
static const struct {
	const char *name;
	double v;
} numbers[] = {{"zero", 0.0}, {"neg_zero", -0.0}, {"nan", NAN}, {"inf", INFINITY}, {"int32_max", 2147483647.0},
	       {"two53_plus_2", 9007199254740994.0}, {"max_value", 1.7976931348623157e308}, {"min_value", 5e-324},
	       {"f17_point3", 0.30000000000000004}};

static const struct {
	const char *name, *utf8;
	size_t len;
	const char *units; /* the UTF-16 code units the script must see, as seen() prints them */
} texts[] = {
	{"empty", "", 0, "0: "},
	{"ascii", "abc XYZ", 7, "7: 61 62 63 20 58 59 5a"},
	{"bmp", "caf\xc3\xa9 \xe2\x82\xac \xe4\xb8\xad", 13, "8: 63 61 66 e9 20 20ac 20 4e2d"},
	{"astral", "\xf0\x9f\x98\x80 \xf0\x9d\x84\x9e", 9, "5: d83d de00 20 d834 dd1e"},
	{"nul", "a\0b", 3, "3: 61 0 62"},
};

static void hex(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 16; i++)
		printf("%s%02x", i ? " " : "", (unsigned char)p[i]);
}

/* script loads the corpus with fn_name kept; NULL after printing why. */
static BB_STATE *script(const char *fn_name)
{
	static const bb_case c = {"conformance", NULL, NULL, NULL};
	void *st = NULL;

	if (load(&c, &st, fn_name) < 0) {
		printf("load %s: failed\n", fn_name);
		harness_report_error("conformance");
		if (st)
			teardown(st);
		return NULL;
	}
	return (BB_STATE *)st;
}

/* corpus_failed reports why a call of the corpus failed. */
static int corpus_failed(void)
{
	harness_report_error("conformance");
	return 1;
}

int main(void)
{
	BB_STATE *rep = script("report"), *echo = script("echo"), *see = script("seen");
	bb_str in, out;
	size_t i;
	char *big = bb_text_new(65536);

	if (!rep || !echo || !see || !big) {
		free(big);
		return 1;
	}
	in.p = "all";
	in.len = 3;
	if (call_text(rep, &in, &out) < 0)
		return corpus_failed();
	printf("%.*s\n", (int)out.len, out.p);
	for (i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
		double got;

		if (call_add(echo, numbers[i].v, 0, &got) < 0)
			return corpus_failed();
		if (memcmp(&got, &numbers[i].v, sizeof got) == 0 || (got != got && numbers[i].v != numbers[i].v))
			printf("h2s2h number %s: same\n", numbers[i].name);
		else
			printf("h2s2h number %s: got %.17g, want %.17g\n", numbers[i].name, got, numbers[i].v);
	}
	for (i = 0; i <= sizeof texts / sizeof texts[0]; i++) {
		const char *name = i < sizeof texts / sizeof texts[0] ? texts[i].name : "s64k";

		in.p = i < sizeof texts / sizeof texts[0] ? texts[i].utf8 : big;
		in.len = i < sizeof texts / sizeof texts[0] ? texts[i].len : 65536;
		if (call_text(echo, &in, &out) < 0)
			return corpus_failed();
		printf("h2s2h string %s: ", name);
		if (out.len == in.len && memcmp(out.p, in.p, in.len) == 0)
			printf("same\n");
		else {
			printf("got %zu bytes (", out.len);
			hex(out.p, out.len);
			printf("), want %zu (", in.len);
			hex(in.p, in.len);
			printf(")\n");
		}
		if (i == sizeof texts / sizeof texts[0])
			break;
		if (call_text(see, &in, &out) < 0)
			return corpus_failed();
		if (out.len == strlen(texts[i].units) && memcmp(out.p, texts[i].units, out.len) == 0)
			printf("seen %s: same\n", name);
		else
			printf("seen %s: %.*s, want %s\n", name, (int)out.len, out.p, texts[i].units);
	}
	teardown(rep);
	teardown(echo);
	teardown(see);
	free(big);
	return 0;
}
