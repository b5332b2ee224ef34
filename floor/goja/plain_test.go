package main

import (
	"strings"
	"testing"

	"github.com/dop251/goja"

	"github.com/bench-bridge/bench-bridge/floor/internal/plain"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
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

// TestFloorIsThePlainLoop: the floor's ×ref of script_to_host_scalar is within 1.5x of a plain loop's against goja.
func TestFloorIsThePlainLoop(t *testing.T) {
	testenv.SkipInShort(t, "times the floor against a plain loop")
	var log strings.Builder
	err := plain.Compare(&log, program(), plainLoop(t, plain.RefScript), plainLoop(t, plain.ScalarScript))
	t.Log("\n" + log.String())
	if err != nil {
		t.Error(err)
	}
}

// BenchmarkPlain is the plain loop's ns/op: go test -run NONE -bench Plain ./floor/goja
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
