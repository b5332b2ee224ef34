package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/cases"
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
	if !regexp.MustCompile(`\nquickjs +2025-04-26 +interpreter +yes`).MatchString(out) {
		t.Errorf("engines' quickjs row:\n%s", out)
	}
	for _, e := range engines.All {
		// a kind may be words ("WebAssembly, compiler")
		row := regexp.MustCompile(`\n` + regexp.QuoteMeta(e.Name) + ` +\S+ +` + regexp.QuoteMeta(e.Kind) + ` +(\S+)`).FindStringSubmatch(out)
		if row == nil || (row[1] == "yes") != (e.Floor != nil) {
			t.Errorf("engines' %s row does not say floor %v:\n%s", e.Name, e.Floor, out)
		}
	}
	// Every engine listed has a floor today: one listed without is made by clearing Duktape's Floor for this test.
	all := engines.All
	engines.All = slices.Clone(all)
	t.Cleanup(func() { engines.All = all })
	for i := range engines.All {
		if engines.All[i].Name == engines.Duktape {
			engines.All[i].Floor = nil
		}
	}
	for engine, want := range map[string]string{"duktape": "no floor for Duktape yet", "hermes": `unknown engine "hermes" (have quickjs, duktape`} {
		fs := newFakes(false, false, &fakeTarget{name: "fake-a"})
		if code := fs.run("floor", "fake-a", "--engine", engine); code == 0 || !strings.Contains(fs.stderr.String(), want) || fs.opened.Load() != 0 {
			t.Errorf("floor --engine %s: exit %d, %d targets opened\n%s", engine, code, fs.opened.Load(), fs.stderr.String())
		}
	}
}

// TestEngineFloors builds each other engine's floor for this machine (against its library, or from the engine's
// pinned source) and measures every case of the catalogue once: the artifact names the engine, only the cases the
// engine cannot express are recorded as not implemented, with the floor's reason, and Duktape's and MuJS's memory
// records count the engine's allocations.
func TestEngineFloors(t *testing.T) {
	requireCC(t)
	for _, name := range build.EngineFloors() {
		t.Run(name, func(t *testing.T) {
			requireEngine(t, name)
			out := filepath.Join(t.TempDir(), "floor.json")
			stdout, stderr, code := run(t, "floor", localName(), "--engine", name, "--runs", "1", "--samples", "1", "--min-time", "1ms", "--out", out)
			if code != 0 {
				t.Fatalf("floor --engine %s: exit %d\n%s\n%s", name, code, stdout, stderr)
			}
			a := readArtifact(t, out)
			if a.Engine.Name != name || a.Engine.Version == "" || !a.Complete || len(a.Failures) > 0 || len(a.Cases)+len(a.NotImplemented) != len(cases.Catalogue) {
				t.Fatalf("artifact: engine %+v complete=%v, %d cases, failures %+v, not implemented %v", a.Engine, a.Complete, len(a.Cases), a.Failures, a.NotImplemented)
			}
			// Every floor has the whole catalogue but the cases its engine cannot express: MuJS (ES5) has no typed
			// arrays, and says so of the cases of a typed array's memory.
			var missing []string
			if name == engines.MuJS {
				missing = []string{"ui_ops_buffer", "bytes_64k"}
			}
			if !slices.Equal(a.NotImplemented, missing) {
				t.Errorf("not implemented: %v (%v), want %v", a.NotImplemented, a.NotImplementedWhy, missing)
			}
			for _, c := range a.NotImplemented {
				if why := "mujs has no typed arrays (ES5): "; !strings.HasPrefix(a.NotImplementedWhy[c], why) {
					t.Errorf("%s is not implemented because %q, want %q...", c, a.NotImplementedWhy[c], why)
				}
			}
			// Duktape and MuJS take an allocator from their embedder, and their floors count through it: a host ->
			// script 64 KiB text is copied into the engine's heap. The JIT engines' floors count the host alone.
			m := a.Case("host_to_script_string_64k").Memory
			if m == nil {
				t.Fatal("host_to_script_string_64k has no memory record")
			}
			if counted := name == engines.Duktape || name == engines.MuJS; (m.EngineBytesPerOp != nil) != counted ||
				(counted && !(*m.EngineBytesPerOp >= 65536 && m.HeapBytes != nil && *m.HeapBytes > 0)) {
				t.Errorf("host_to_script_string_64k's memory: %+v, want the engine's allocations counted: %v", *m, counted)
			}
			if a.Cases[0].Name != cases.RefCase {
				t.Errorf("the floor's first case is %s, want %s (every ratio needs it)", a.Cases[0].Name, cases.RefCase)
			}
		})
	}
}
