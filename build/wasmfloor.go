package build

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
)

// WasmGuestHeader is the header that holds the WebAssembly guest in a floor of it (engines.Floor's WasmGuest): the
// bytes of the module build.WasmGuest compiles, so that the program is one file on the device, as every floor is.
const WasmGuestHeader = "floor/wasm_guest.h"

// withWasmGuest is in with the guest's header among its sources.
func withWasmGuest(ctx context.Context, in linkInputs, log io.Writer) (linkInputs, error) {
	path, err := WasmGuest(ctx, log)
	if err != nil {
		return in, err
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		return in, err
	}
	header := guestHeader(wasm)
	read := in.read
	in.sources = append(append([]string(nil), in.sources...), WasmGuestHeader)
	in.read = func(name string) ([]byte, error) {
		if name == WasmGuestHeader {
			return header, nil
		}
		return read(name)
	}
	return in, nil
}

// guestHeader is wasm as a C array, bb_wasm_guest, and its length, bb_wasm_guest_len.
func guestHeader(wasm []byte) []byte {
	var b strings.Builder
	b.WriteString("/* wasm_guest.h: the WebAssembly guest catalogue (floor/wasm/guest.wat), compiled; written by build. */\n")
	fmt.Fprintf(&b, "static const unsigned long bb_wasm_guest_len = %d;\n", len(wasm))
	b.WriteString("static const unsigned char bb_wasm_guest[] = {")
	for i, c := range wasm {
		if i%16 == 0 {
			b.WriteString("\n\t")
		}
		fmt.Fprintf(&b, "%d,", c)
	}
	b.WriteString("\n};\n")
	return []byte(b.String())
}
