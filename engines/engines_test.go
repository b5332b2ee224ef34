package engines

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestCheckSaysWhatIsMissingAndTheFix checks an engine against a root of files and a pkg-config that knows one
// module: what is there gives its version, what is not names the part and the suite's package.
func TestCheckSaysWhatIsMissingAndTheFix(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("usr/include/duktape.h", "#define DUK_VERSION                       20700L\n")
	s := System{Root: root, Suite: "bookworm",
		PkgConfig: func(m string) (string, bool) { return "102.15.1", m == "mozjs-102" },
		LookPath:  func(string) (string, error) { return "", errors.New("not found") }}
	tests := []struct {
		name                 string
		have                 bool
		version, detail, fix string
	}{
		{Duktape, true, "2.7.0", "/usr/include/duktape.h", ""},
		{SpiderMonkey, true, "102.15.1", "pkg-config mozjs-102", ""},
		{MuJS, false, "", "missing pkg-config mujs", "apt-get install libmujs-dev"},
		{V8, false, "", "missing /usr/include/node/v8.h, /usr/include/node/node.h, node", "apt-get install nodejs libnode-dev"},
	}
	for _, tt := range tests {
		e, err := Lookup(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		st := e.Check(s)
		if st.Have != tt.have || st.Version != tt.version || st.Detail != tt.detail || !strings.HasPrefix(st.Fix, tt.fix) {
			t.Errorf("%s: %+v, want have=%v version %q detail %q fix %q...", tt.name, st, tt.have, tt.version, tt.detail, tt.fix)
		}
	}
	s.Suite = "trixie"
	s.PkgConfig = func(string) (string, bool) { return "", false }
	e, _ := Lookup(SpiderMonkey)
	if st := e.Check(s); st.Have || !strings.HasPrefix(st.Fix, "apt-get install libmozjs-128-dev") {
		t.Errorf("SpiderMonkey on Debian 13 without mozjs: %+v, want libmozjs-128-dev", st)
	}
	if _, err := Lookup("hermes"); err == nil || !strings.Contains(err.Error(), "have quickjs, duktape, mujs, jsc, v8, spidermonkey") {
		t.Errorf("Lookup(hermes): %v", err)
	}
}

// TestThisMachineHasDuktape: scripts/setup installs duktape-dev, so this machine has the engine, with the version its
// header says.
func TestThisMachineHasDuktape(t *testing.T) {
	e, _ := Lookup(Duktape)
	st := e.Check(Local())
	if !st.Have {
		testenv.Missing(t, "Duktape: "+st.Detail+": "+st.Fix)
	}
	if !strings.HasPrefix(st.Version, "2.") {
		t.Errorf("Duktape's version here: %q", st.Version)
	}
}

// TestFloorsAreTheBuildsFloors: an engine says it has a floor exactly when build has one for it.
func TestFloorsAreTheBuildsFloors(t *testing.T) {
	for _, e := range All {
		if built := e.Name == QuickJS || slices.Contains(build.EngineFloors(), e.Name); e.Floor != built {
			t.Errorf("%s: Floor %v, but build has a floor for it: %v", e.Name, e.Floor, built)
		}
	}
}
