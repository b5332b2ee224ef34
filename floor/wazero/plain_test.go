package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/floor/internal/plain"
	"github.com/bench-bridge/bench-bridge/harness"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// guestWasm is the compiled guest, as bench-bridge builds it for the floor (build.WasmGuest: wat2wasm, cached).
func guestWasm(tb testing.TB) []byte {
	tb.Helper()
	testenv.Require(tb, "wat2wasm", "apt-get install wabt (scripts/setup does it)")
	path, err := build.WasmGuest(context.Background(), io.Discard)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// modes are the floor's two engines: wazero's compiler (its interpreter where it has none) and its interpreter.
var modes = []struct {
	name   string
	interp bool
}{{"compiler", false}, {"interpreter", true}}

// plainLoop is the guest's bench_ref or bench_scalar (the loops of plain.RefScript and plain.ScalarScript) straight
// against wazero's API, outside the harness: host_add an api.GoFunction (WithGoFunction), the other imports the
// guest needs doing nothing, the loop called with Call.
func plainLoop(guest []byte, interp bool) func(tb testing.TB, script string) plain.Loop {
	return func(tb testing.TB, script string) plain.Loop {
		export := map[string]string{plain.RefScript: "bench_ref", plain.ScalarScript: "bench_scalar"}[script]
		if export == "" {
			tb.Fatalf("no guest loop for %q", script)
		}
		ctx := context.Background()
		config := wazero.NewRuntimeConfigInterpreter()
		if !interp && compilerHere() {
			config = wazero.NewRuntimeConfigCompiler()
		}
		rt := wazero.NewRuntimeWithConfig(ctx, config)
		tb.Cleanup(func() { rt.Close(ctx) })
		const i, f = api.ValueTypeI32, api.ValueTypeF64
		b := rt.NewHostModuleBuilder("bb")
		b.NewFunctionBuilder().WithGoFunction(api.GoFunc(func(_ context.Context, s []uint64) {
			s[0] = uint64(uint32(int32(plain.Add(float64(int32(s[0])), float64(int32(s[1]))))))
		}), []api.ValueType{i, i}, []api.ValueType{i}).Export("host_add")
		nothing := api.GoFunc(func(context.Context, []uint64) {})
		for name, sig := range map[string][2][]api.ValueType{
			"host_upper": {{i, i, i}, {i}}, "host_obj": {{i, i}, nil}, "host_record": {{i, i}, nil}, "host_sum": {{i, i}, {f}},
			"host_bytes": {{i, i}, {i}}, "host_fail": {{i}, nil}, "host_register": {{i}, nil}, "set_prop": {{i, i, i, f}, nil},
			"apply_ops": {{i, i}, nil}, "set_node": {{i}, nil}, "apply_batch": {{i, i}, nil},
		} {
			b.NewFunctionBuilder().WithGoFunction(nothing, sig[0], sig[1]).Export(name)
		}
		if _, err := b.Instantiate(ctx); err != nil {
			tb.Fatal(err)
		}
		mod, err := rt.Instantiate(ctx, guest)
		if err != nil {
			tb.Fatal(err)
		}
		bench := mod.ExportedFunction(export)
		return func(n uint64) error {
			_, err := bench.Call(ctx, n)
			return err
		}
	}
}

// TestFloorIsThePlainLoop: each engine's floor's ×ref of script_to_host_scalar is within 1.5x of a plain loop's
// against the same wazero API.
func TestFloorIsThePlainLoop(t *testing.T) {
	guest := guestWasm(t)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) { plain.Test(t, program(guest, m.interp), plainLoop(guest, m.interp)) })
	}
}

// BenchmarkPlain is the plain loop's ns/op: go test -run NONE -bench Plain ./floor/wazero
func BenchmarkPlain(b *testing.B) {
	guest := guestWasm(b)
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) { plain.Bench(b, plainLoop(guest, m.interp)) })
	}
}

// TestEveryCaseRuns runs every case of the catalogue once, in both engines, in this process: each set-up's checks
// pass (the guest's check_* exports, the host's checks of the calls back), and the two error cases, a trap each
// way, are measured as error cases, not failures.
func TestEveryCaseRuns(t *testing.T) {
	guest := guestWasm(t)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			p := program(guest, m.interp)
			if len(p.Missing) > 0 || len(p.Cases) != len(cases.Catalogue) {
				t.Fatalf("%d cases, missing %+v", len(p.Cases), p.Missing)
			}
			var out, stderr bytes.Buffer
			if code := harness.Run(p, []string{"run", "--ops", "3", "--samples", "1", "--warmup-ns", "0"}, &out, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			kind := map[bool]string{false: "compiler", true: "interpreter"}[m.interp || !compilerHere()]
			if !strings.Contains(out.String(), "\nmeta wazero_engine "+kind+"\n") {
				t.Errorf("no meta wazero_engine %s:\n%s", kind, out.String())
			}
			for _, c := range cases.Catalogue {
				if !strings.Contains(out.String(), "\nsample "+c.Name+" ") {
					t.Errorf("%s: no sample", c.Name)
				}
			}
			for _, line := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(line, "error ") {
					t.Error(line)
				}
			}
		})
	}
}
