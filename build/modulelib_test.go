package build

import (
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/engines"
)

// TestWasmtimeLibraryPerToolchain: the Wasmtime floor links the module's library for x86_64 and aarch64 (the host's
// too, on those machines), and is refused with why on the toolchains the module has none for and with the NDK.
func TestWasmtimeLibraryPerToolchain(t *testing.T) {
	e, err := engines.Lookup(engines.Wasmtime)
	if err != nil || e.Library == nil {
		t.Fatalf("Lookup(wasmtime): %+v, %v", e, err)
	}
	ndk, err := forPlatform("", "arm64-v8a", "/opt/ndk")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"aarch64": "build/linux-aarch64/libwasmtime.a", "x86_64": "build/linux-x86_64/libwasmtime.a"}
	for _, tc := range append([]Toolchain{ndk}, Toolchains["aarch64"], Toolchains["x86_64"], Toolchains["x86"],
		Toolchains["armv7"], Toolchains["armel"], Toolchains["armv6"], Toolchains["webos"]) {
		lib, err := moduleLibrary(e.Name, e.Library, tc)
		switch {
		case want[tc.Name] != "":
			if lib != want[tc.Name] || err != nil {
				t.Errorf("%s: %q, %v; want %s", tc.Name, lib, err, want[tc.Name])
			}
		case err == nil || !strings.Contains(err.Error(), "which has none for the "+tc.Name+" toolchain") ||
			!strings.HasSuffix(err.Error(), e.Library.Why) && !strings.Contains(err.Error(), "bionic"):
			t.Errorf("%s: %q, %v; want refused with why", tc.Name, lib, err)
		}
	}
}

// TestGuestHeader: the guest's bytes as the C array the floor includes.
func TestGuestHeader(t *testing.T) {
	got := string(guestHeader([]byte{0, 'a', 's', 'm', 255}))
	for _, want := range []string{"bb_wasm_guest_len = 5;", "bb_wasm_guest[] = {\n\t0,97,115,109,255,\n};"} {
		if !strings.Contains(got, want) {
			t.Errorf("guestHeader lacks %q:\n%s", want, got)
		}
	}
}
