package engines

import (
	"os"
	"strings"
	"testing"
)

// TestWasmtimeIsPinnedByGoMod: the module whose library the Wasmtime floor links is the one go.mod requires (and
// go.sum checks), at the version its entry names.
func TestWasmtimeIsPinnedByGoMod(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	e, err := Lookup(Wasmtime)
	if err != nil || e.Library == nil || e.Library.Module != WasmtimeModule {
		t.Fatalf("Lookup(wasmtime): %+v, %v", e, err)
	}
	if want := "\t" + WasmtimeModule.Path + " " + WasmtimeModule.Version + "\n"; !strings.Contains(string(mod), want) {
		t.Errorf("go.mod does not require %q", strings.TrimSpace(want))
	}
}
