package main

import (
	"testing"

	"modernc.org/quickjs"

	"github.com/bench-bridge/bench-bridge/floor/internal/plain"
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

// TestFloorIsThePlainLoop: the floor's ×ref of script_to_host_scalar is within 1.5x of a plain loop's against the
// same engine's API.
func TestFloorIsThePlainLoop(t *testing.T) { plain.Test(t, program(), plainLoop) }

// BenchmarkPlain is the plain loop's ns/op: go test -run NONE -bench Plain ./floor/quickjs-go
func BenchmarkPlain(b *testing.B) { plain.Bench(b, plainLoop) }
