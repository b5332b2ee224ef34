package main

import (
	"strings"
	"testing"

	"modernc.org/quickjs"

	"github.com/bench-bridge/bench-bridge/floor/internal/plain"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// plainLoop is script's bench(n) straight against modernc.org/quickjs's API, outside the harness: host_add a Go
// function registered with VM.RegisterFunc, bench called with Value.Call.
func plainLoop(tb testing.TB, script string) plain.Loop {
	vm, err := quickjs.NewVM()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { vm.Close() })
	if err := vm.RegisterFunc("host_add", func(a, b any) float64 { return plain.Add(num(a), num(b)) }, false); err != nil {
		tb.Fatal(err)
	}
	if _, err := vm.Eval(script, quickjs.EvalGlobal); err != nil {
		tb.Fatal(err)
	}
	g := vm.GlobalObject()
	defer g.Free()
	atom, err := vm.NewAtom("bench")
	if err != nil {
		tb.Fatal(err)
	}
	bench, err := g.GetPropertyValue(atom)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { bench.Free() })
	return func(n uint64) error {
		_, err := bench.Call(quickjs.UndefinedValue, n)
		return err
	}
}

// TestFloorIsThePlainLoop: the floor's ×ref of script_to_host_scalar is within 1.5x of a plain loop's against
// modernc.org/quickjs.
func TestFloorIsThePlainLoop(t *testing.T) {
	testenv.SkipInShort(t, "times the floor against a plain loop")
	var log strings.Builder
	err := plain.Compare(&log, program(), plainLoop(t, plain.RefScript), plainLoop(t, plain.ScalarScript))
	t.Log("\n" + log.String())
	if err != nil {
		t.Error(err)
	}
}

// BenchmarkPlain is the plain loop's ns/op: go test -run NONE -bench Plain ./floor/quickjs-go
func BenchmarkPlain(b *testing.B) {
	for _, c := range []struct{ name, script string }{{"ref_js_loop", plain.RefScript}, {"script_to_host_scalar", plain.ScalarScript}} {
		b.Run(c.name, func(b *testing.B) {
			l := plainLoop(b, c.script)
			b.ResetTimer()
			if err := l(uint64(b.N)); err != nil {
				b.Fatal(err)
			}
		})
	}
}
