// Package v8wasm holds the plain loop of V8's WebAssembly's floor (floor/floor_v8_wasm.cc, a node addon), plain.cjs, a
// node script outside the harness, and the check of the floor against it.
package v8wasm

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"testing"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/floor/internal/plain"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestFloorIsThePlainLoop: the floor's ×ref of script_to_host_scalar is within 1.5x of plain.cjs's, the guest's loop
// calling a JavaScript host_add, against node's WebAssembly API alone.
func TestFloorIsThePlainLoop(t *testing.T) {
	testenv.SkipInShort(t, "times the floor against a plain loop")
	floor := plain.BuiltFloor(t, engines.V8Wasm)
	guest, err := build.WasmGuest(context.Background(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	plainLoop := func() (refNs, scalarNs float64, err error) {
		out, err := plain.Output("node", "plain.cjs", guest, strconv.FormatInt(plain.MinTime.Nanoseconds(), 10), strconv.Itoa(plain.Runs))
		if err == nil {
			_, err = fmt.Sscan(out, &refNs, &scalarNs)
		}
		return refNs, scalarNs, err
	}
	plain.TestWith(t, plainLoop, floor)
}
