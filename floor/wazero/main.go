// Command wazero is the floor of wazero (github.com/tetratelabs/wazero, WebAssembly in pure Go): the catalogue as the
// WebAssembly guest (floor/wasm/guest.wat, whose header is the contract) hosted straight through wazero's API along
// its cheapest documented paths, over the Go harness, with the same host-side work as every other floor.
//
//   - A host import is an api.GoFunction (WithGoFunction): it reads its parameters from, and writes its results to,
//     the stack of uint64s wazero hands it. WithFunc's reflection-made functions cost about 400 ns a call on this
//     kind of machine, a GoFunction about 45 ns (docs/engines.md).
//   - A call into the guest is api.Function.CallWithStack on a stack the state keeps, so that no call allocates
//     (Call makes a slice for its results).
//   - Texts, bytes and records are read and written in place, in the slice over the guest's whole memory that
//     api.Memory.Read gives (its pages are fixed, so the slice never moves): a text as a Go string over the guest's
//     bytes, an array of f64 as a []float64 over them.
//   - A host error is a panic of the host function, which wazero turns into a trap that unwinds the guest and comes
//     back from the host's call as an error wrapping the panic's value; a guest's trap comes back the same way.
//
// The engine is chosen when the program is built: `wazero` runs wazero's compiler where wazero has one (arm64, and
// amd64 with SSE4.1: what wazero's default picks) and its interpreter elsewhere (32-bit ARM, x86), `wazero-interp`
// (build tag bb_wazero_interp) its interpreter everywhere; the meta line wazero_engine says which ran.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/cpu"

	"github.com/tetratelabs/wazero"

	"github.com/bench-bridge/bench-bridge/floor/wasm"
	"github.com/bench-bridge/bench-bridge/harness"
)

// module is wazero's module path: its version in the build information is the engine's.
const module = "github.com/tetratelabs/wazero"

func main() {
	guest, err := wasm.Guest()
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(2)
	}
	harness.Main(program(guest, interpreter))
}

// program is the floor over wazero's interpreter, or its default engine: the whole catalogue.
func program(guest []byte, interp bool) harness.Program {
	name, kind, config := "wazero", "compiler", wazero.NewRuntimeConfigCompiler
	if interp {
		name = "wazero-interp"
	}
	if interp || !compilerHere() {
		kind, config = "interpreter", wazero.NewRuntimeConfigInterpreter
	}
	w := &wasmFloor{guest: guest, config: config, ctx: context.Background()}
	cs, missing := wasm.Cases(w.load)
	return harness.Program{Kind: harness.Floor, Engine: name + " " + harness.ModuleVersion(module), Cases: cs, Missing: missing,
		Meta: [][2]string{{"wazero_engine", kind}, {"host_functions", "WithGoFunction; exports called with CallWithStack"}}}
}

// wasmFloor makes the cases' states: one runtime, host module and guest each.
type wasmFloor struct {
	guest  []byte
	config func() wazero.RuntimeConfig
	ctx    context.Context
}

// compilerHere says whether wazero has a compiler for this machine, as wazero's default configuration decides it.
func compilerHere() bool {
	return runtime.GOARCH == "arm64" || runtime.GOARCH == "amd64" && cpu.X86.HasSSE41
}
