package main

import (
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/engines"
)

// TestEnginesListsEveryEngine: `bench-bridge engines` has a row for each engine, with whether bench-bridge has its
// floor, and its source; `floor --engine` refuses an engine without a floor, and one it does not know, before any
// target opens.
func TestEnginesListsEveryEngine(t *testing.T) {
	fs := newFakes(false, false, &fakeTarget{name: "fake-a"})
	if code := fs.run("engines"); code != 0 {
		t.Fatalf("engines: exit %d\n%s", code, fs.stderr.String())
	}
	out := fs.stdout.String()
	for _, e := range engines.All {
		if !strings.Contains(out, "\n"+e.Name+" ") || !strings.Contains(out, e.Source) {
			t.Errorf("engines does not list %s with its source:\n%s", e.Name, out)
		}
	}
	if !strings.Contains(out, "\nquickjs       2025-04-26  interpreter  yes") {
		t.Errorf("engines' quickjs row:\n%s", out)
	}
	for engine, want := range map[string]string{"duktape": "no floor for Duktape yet", "hermes": `unknown engine "hermes" (have quickjs, duktape`} {
		fs := newFakes(false, false, &fakeTarget{name: "fake-a"})
		if code := fs.run("floor", "fake-a", "--engine", engine); code == 0 || !strings.Contains(fs.stderr.String(), want) || fs.opened.Load() != 0 {
			t.Errorf("floor --engine %s: exit %d, %d targets opened\n%s", engine, code, fs.opened.Load(), fs.stderr.String())
		}
	}
}
