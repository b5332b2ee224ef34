/* plain.c: the check of the Wasmtime floor (floor/floor_wasmtime.c) against Wasmtime itself, outside the harness: the
 * guest's bench_ref and bench_scalar (ref_js_loop's and script_to_host_scalar's loops, s = host_add(s, i)) called
 * straight against wasmtime.h, host_add defined by wasmtime_linker_define_func_unchecked and every other import of
 * the guest a trap. It times alternating runs of each loop, every run at least MIN_NS long, and prints the least
 * ns/op of each: "ref NS scalar NS". plain_test.go compares the ratio with the floor's ×ref.
 *
 * usage: plain GUEST.wasm MIN_NS RUNS */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <wasmtime.h>

static wasm_trap_t *host_add(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n)
{
	(void)env, (void)caller, (void)n;
	v[0].i32 = (int32_t)fmod((double)v[0].i32 + (double)v[1].i32, 1000003.0);
	return NULL;
}

/* unused is every import of the guest but host_add: the loops call none. */
static wasm_trap_t *unused(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *v, size_t n)
{
	static const char msg[] = "an import the plain loop does not define";

	(void)env, (void)caller, (void)v, (void)n;
	return wasmtime_trap_new(msg, sizeof msg - 1);
}

static void die(const char *what, wasmtime_error_t *err, wasm_trap_t *trap)
{
	wasm_byte_vec_t msg = {0, NULL};

	if (err)
		wasmtime_error_message(err, &msg);
	else if (trap)
		wasm_trap_message(trap, &msg);
	fprintf(stderr, "plain: %s: %.*s\n", what, (int)msg.size, msg.data ? msg.data : "");
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* run calls bench(n) once and returns how long it took. */
static uint64_t run(wasmtime_context_t *cx, const wasmtime_func_t *bench, uint32_t n)
{
	wasmtime_val_raw_t v[1];
	wasm_trap_t *trap = NULL;
	wasmtime_error_t *err;
	uint64_t t0 = now_ns();

	v[0].i32 = (int32_t)n;
	err = wasmtime_func_call_unchecked(cx, bench, v, 1, &trap);
	if (err || trap)
		die("bench", err, trap);
	return now_ns() - t0;
}

int main(int argc, char **argv)
{
	static const char *const names[2] = {"bench_ref", "bench_scalar"};
	wasm_valtype_t *params[2], *results[1];
	wasm_valtype_vec_t pv, rv;
	wasmtime_func_t bench[2];
	uint32_t n[2] = {1, 1};
	double best[2] = {INFINITY, INFINITY};
	wasm_trap_t *trap = NULL;
	wasmtime_error_t *err;
	wasmtime_module_t *module;
	wasmtime_instance_t instance;
	wasm_byte_vec_t wasm;
	wasm_importtype_vec_t imports;
	size_t k;
	uint64_t min_ns;
	int runs, r, i;
	FILE *f;
	long size;

	if (argc != 4) {
		fprintf(stderr, "usage: plain GUEST.wasm MIN_NS RUNS\n");
		return 2;
	}
	min_ns = strtoull(argv[2], NULL, 10);
	runs = atoi(argv[3]);
	if (!(f = fopen(argv[1], "rb")) || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0) {
		perror(argv[1]);
		return 1;
	}
	wasm_byte_vec_new_uninitialized(&wasm, (size_t)size);
	if (fread(wasm.data, 1, wasm.size, f) != wasm.size) {
		perror(argv[1]);
		return 1;
	}
	fclose(f);

	wasm_config_t *config = wasm_config_new();
	wasmtime_config_strategy_set(config, WASMTIME_STRATEGY_CRANELIFT);
	wasm_engine_t *engine = wasm_engine_new_with_config(config);
	wasmtime_store_t *store = wasmtime_store_new(engine, NULL, NULL);
	wasmtime_context_t *cx = wasmtime_store_context(store);
	wasmtime_linker_t *linker = wasmtime_linker_new(engine);
	if ((err = wasmtime_module_new(engine, (const uint8_t *)wasm.data, wasm.size, &module)))
		die("compiling the guest", err, NULL);
	params[0] = wasm_valtype_new(WASM_I32);
	params[1] = wasm_valtype_new(WASM_I32);
	results[0] = wasm_valtype_new(WASM_I32);
	wasm_valtype_vec_new(&pv, 2, params);
	wasm_valtype_vec_new(&rv, 1, results);
	wasm_functype_t *type = wasm_functype_new(&pv, &rv);
	if ((err = wasmtime_linker_define_func_unchecked(linker, "bb", 2, "host_add", 8, type, host_add, NULL, NULL)))
		die("host_add", err, NULL);
	wasmtime_module_imports(module, &imports);
	for (k = 0; k < imports.size; k++) {
		const wasm_name_t *name = wasm_importtype_name(imports.data[k]);
		const wasm_functype_t *ft = wasm_externtype_as_functype_const(wasm_importtype_type(imports.data[k]));

		if (ft && !(name->size == 8 && memcmp(name->data, "host_add", 8) == 0) &&
		    (err = wasmtime_linker_define_func_unchecked(linker, "bb", 2, name->data, name->size, ft, unused, NULL, NULL)))
			die("an import", err, NULL);
	}
	wasm_importtype_vec_delete(&imports);
	if ((err = wasmtime_linker_instantiate(linker, cx, module, &instance, &trap)) || trap)
		die("instantiating the guest", err, trap);
	for (i = 0; i < 2; i++) {
		wasmtime_extern_t ext;

		if (!wasmtime_instance_export_get(cx, &instance, names[i], strlen(names[i]), &ext) || ext.kind != WASMTIME_EXTERN_FUNC) {
			fprintf(stderr, "plain: the guest exports no %s\n", names[i]);
			return 1;
		}
		bench[i] = ext.of.func;
		/* n grows until a run lasts min_ns, as the harness calibrates */
		for (uint64_t d; (d = run(cx, &bench[i], n[i])) < min_ns && n[i] < 1000000000u;)
			n[i] = (uint32_t)fmin(1e9, n[i] * fmin(10, 1.4 * (double)min_ns / (double)(d ? d : 1)));
	}
	for (r = 0; r < runs; r++)
		for (i = 0; i < 2; i++)
			best[i] = fmin(best[i], (double)run(cx, &bench[i], n[i]) / n[i]);
	printf("ref %.4f scalar %.4f\n", best[0], best[1]);
	return 0;
}
