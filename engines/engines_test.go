package engines

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckSaysWhatIsMissingAndTheFix checks an engine against an empty root and a pkg-config that knows one
// module: what is there gives its version, what is not names the part and the suite's package; an engine built from
// its pinned source needs nothing but a compiler, and has the pinned version.
func TestCheckSaysWhatIsMissingAndTheFix(t *testing.T) {
	root := t.TempDir()
	s := System{Root: root, Suite: "bookworm",
		PkgConfig: func(m string) (string, bool) { return "102.15.1", m == "mozjs-102" },
		LookPath:  func(string) (string, error) { return "", errors.New("not found") }}
	tests := []struct {
		name                 string
		have                 bool
		version, detail, fix string
	}{
		{Duktape, true, "2.7.0", "built from source on first use (needs a C compiler; doctor checks it)", ""},
		{MuJS, true, "1.3.6", "built from source on first use (needs a C compiler; doctor checks it)", ""},
		{SpiderMonkey, true, "102.15.1", "pkg-config mozjs-102", ""},
		{JSC, false, "", "missing pkg-config javascriptcoregtk-4.1", "apt-get install libjavascriptcoregtk-4.1-dev"},
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
