package main

import (
	"testing"

	"github.com/dop251/goja"

	"github.com/bench-bridge/bench-bridge/floor/internal/plain"
)

// plainLoop is script's bench(n) straight against goja's API, outside the harness: host_add a Runtime.Set function
// of a goja.FunctionCall, bench the Callable AssertFunction gives.
func plainLoop(tb testing.TB, script string) plain.Loop {
	vm := goja.New()
	if err := vm.Set("host_add", func(c goja.FunctionCall) goja.Value {
		return vm.ToValue(plain.Add(c.Argument(0).ToFloat(), c.Argument(1).ToFloat()))
	}); err != nil {
		tb.Fatal(err)
	}
	if _, err := vm.RunString(script); err != nil {
		tb.Fatal(err)
	}
	bench, ok := goja.AssertFunction(vm.Get("bench"))
	if !ok {
		tb.Fatal("no bench")
	}
	return func(n uint64) error {
		_, err := bench(goja.Undefined(), vm.ToValue(n))
		return err
	}
}

// TestFloorIsThePlainLoop: the floor's ×ref of script_to_host_scalar is within 1.5x of a plain loop's against the
// same engine's API.
func TestFloorIsThePlainLoop(t *testing.T) { plain.Test(t, program(), plainLoop) }

// BenchmarkPlain is the plain loop's ns/op: go test -run NONE -bench Plain ./floor/goja
func BenchmarkPlain(b *testing.B) { plain.Bench(b, plainLoop) }
