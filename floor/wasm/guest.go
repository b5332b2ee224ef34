// Package wasm holds the WebAssembly guest of the WebAssembly floors: guest.wat, the catalogue in WebAssembly text,
// whose header is the contract between it and every host (build.WasmGuest compiles it with wat2wasm). A Go floor
// over it takes the compiled module from here: bench-bridge's build writes guest.wasm into this folder of the
// sources it builds the floor from, before go build; none is committed, so that a checkout builds and vets without
// one, and such a program says so when it runs.
package wasm

import (
	"embed"
	"fmt"
)

// files is this folder: guest.wat always, guest.wasm in a floor bench-bridge built.
//
//go:embed *
var files embed.FS

// Compiled is the name of the compiled guest in this folder.
const Compiled = "guest.wasm"

// Guest is the compiled guest this program was built with, or an error that says how to get one.
func Guest() ([]byte, error) {
	b, err := files.ReadFile(Compiled)
	if err != nil {
		return nil, fmt.Errorf("this program holds no compiled WebAssembly guest (floor/wasm/%s): build it with bench-bridge "+
			"(bench-bridge floor TARGET --engine NAME), which compiles floor/wasm/guest.wat with wat2wasm first", Compiled)
	}
	return b, nil
}
