package engines

import (
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestGoEnginesArePinnedByGoMod: the versions of the engines embedded in Go that bench-bridge names are the ones its
// go.mod requires, which the go command builds their floors with.
func TestGoEnginesArePinnedByGoMod(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range All {
		if e.GoModule == nil {
			continue
		}
		m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(e.GoModule.Path) + ` (\S+)`).FindSubmatch(mod)
		if m == nil || string(m[1]) != e.GoModule.Version {
			t.Errorf("%s: go.mod requires %s at %q, the engine's entry says %s", e.Name, e.GoModule.Path, m, e.GoModule.Version)
		}
		if e.Floor == nil || e.Floor.GoPackage == "" || !slices.Contains([]string{Interpreter, WasmCompiler, WasmInterpreter}, e.Kind) {
			t.Errorf("%s: floor %+v, kind %s: want a Go floor, an interpreter or a WebAssembly engine", e.Name, e.Floor, e.Kind)
		}
	}
}

// TestGoEnginesNeedNothingButGo: an engine embedded in Go needs the go command and nothing else: with it, the
// version is the module's; without it, the fix installs Go.
func TestGoEnginesNeedNothingButGo(t *testing.T) {
	for _, name := range []string{Goja, QuickJSGo} {
		e, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		have := commandsIn(t, "/usr/local/go/bin/")
		st := e.Check(have)
		if !st.Have || st.Version != map[string]string{Goja: "2026-03-11", QuickJSGo: "0.27.0"}[name] || st.Fix != "" || !strings.Contains(st.Detail, "/usr/local/go/bin/go") {
			t.Errorf("%s with go: %+v", name, st)
		}
		if st := e.Check(commandsIn(t, "/usr/local/go/bin/", "go")); st.Have || st.Detail != "missing go" || !strings.HasPrefix(st.Fix, "install Go 1.26 or later from https://go.dev/dl/") {
			t.Errorf("%s without go: %+v", name, st)
		}
	}
}

// TestWazeroNeedsGoAndWat2wasm: wazero's floors need go and wat2wasm (their guest is WebAssembly text), and the fix of
// either names both.
func TestWazeroNeedsGoAndWat2wasm(t *testing.T) {
	for _, name := range []string{Wazero, WazeroInterp} {
		e, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if st := e.Check(commandsIn(t, "/usr/local/go/bin/", "wat2wasm")); st.Have || st.Detail != "missing wat2wasm" || !strings.Contains(st.Fix, "apt-get install wabt") ||
			!strings.HasPrefix(st.Fix, "install Go") {
			t.Errorf("%s without wat2wasm: %+v", name, st)
		}
		if st := e.Check(commandsIn(t, "/usr/bin/")); !st.Have || st.Version != "1.12.0" || !strings.Contains(st.Detail, "/usr/bin/wat2wasm") {
			t.Errorf("%s with both: %+v", name, st)
		}
	}
}

// commandsIn is a Debian 12 system without pkg-config modules whose commands are all in dir, but those missing.
func commandsIn(t *testing.T, dir string, missing ...string) System {
	return System{Root: t.TempDir(), Suite: "bookworm", PkgConfig: func(string) (string, bool) { return "", false },
		LookPath: func(c string) (string, error) {
			if slices.Contains(missing, c) {
				return "", errors.New("not found")
			}
			return dir + c, nil
		}}
}
