package cases

import (
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	benchbridge "github.com/bench-bridge/bench-bridge"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// withCase is the embedded C sources with the case of testdata/onelist added as docs/contributing.md says to add
// one: its entry at the end of cases.def, its script in harness_scripts.c (before the table of scripts) and its
// set-up and timed loop in case_loops.h (before the case table). Nothing else changes.
func withCase(t *testing.T) fstest.MapFS {
	t.Helper()
	src := fstest.MapFS{}
	err := fs.WalkDir(benchbridge.CSources, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := benchbridge.CSources.ReadFile(path)
		src[path] = &fstest.MapFile{Data: b, Mode: 0o644}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	add := func(path, testdata, before string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("testdata", "onelist", testdata))
		if err != nil {
			t.Fatal(err)
		}
		text := string(src[path].Data)
		i := len(text)
		if before != "" {
			if i = strings.Index(text, before); i < 0 {
				t.Fatalf("%s: no %q to add %s before", path, before, testdata)
			}
		}
		src[path].Data = []byte(text[:i] + string(b) + "\n" + text[i:])
	}
	add(benchbridge.CaseList, "cases.def", "")
	add(benchbridge.HarnessScripts, "script.c", "static const harness_script scripts[]")
	add(benchbridge.CaseLoops, "loop.h", "/* ==== The table ==== */")
	return src
}

// TestACaseIsItsEntryAndItsCode adds a case that exists only in testdata/onelist (its cases.def entry, its script,
// its set-up and loop) and nothing else, and checks that everything that reads the case list has it: the Go
// catalogue and its scripts, and the programs built from the sources so changed (the floor and the reference bridge
// over QuickJS, Duktape's floor from floor/engine_cases.h), which list the case last and run it, two ops per loop
// unit as its entry says.
func TestACaseIsItsEntryAndItsCode(t *testing.T) {
	testenv.SkipInShort(t, "builds and runs bench programs")
	testenv.Require(t, "gcc", "apt-get install gcc (scripts/setup does it)")
	const name = "onelist_add_twice"
	src := withCase(t)

	list, err := ParseList(benchbridge.CaseList, string(src[benchbridge.CaseList].Data))
	if err != nil {
		t.Fatal(err)
	}
	if last := list[len(list)-1]; last.Name != name || last.UnitOps != 2 || !last.Crossing || len(list) != len(Catalogue)+1 {
		t.Fatalf("the catalogue ends with %+v (%d cases), want %s, 2 ops per unit, after the %d of cases.def", last, len(list), name, len(Catalogue))
	}
	scripts, err := parseScripts(string(src[benchbridge.HarnessScripts].Data), string(src[benchbridge.CaseList].Data))
	if err != nil {
		t.Fatal(err)
	}
	if got := DefinedFunctions(scripts.ByCase[name]); !slices.Equal(got, []string{"add(a, b)"}) {
		t.Fatalf("the script of %s defines %v, want add(a, b)", name, got)
	}

	// run checks that prog lists every case, the new one last, and runs it.
	want := append(Names(), name)
	run := func(t *testing.T, prog string, args ...string) {
		t.Helper()
		out, err := exec.Command(prog, append(args, "list")...).CombinedOutput()
		if got := strings.Fields(string(out)); err != nil || !slices.Equal(got, want) {
			t.Fatalf("%s list: %v\n%s\nwant the %d cases of cases.def, then %s", prog, err, out, len(want)-1, name)
		}
		out, err = exec.Command(prog, append(args, "run", "--ops", "1000", "--samples", "1", "--warmup-ns", "0", name)...).CombinedOutput()
		if text := string(out); err != nil || !strings.Contains(text, "\nsample "+name+" 2000 ") || strings.Contains(text, "\nerror ") {
			t.Errorf("%s run %s: %v; want one sample of 2000 ops (1000 units of 2), no error:\n%s", prog, name, err, text)
		}
	}
	ctx := context.Background()
	tc := build.Host()
	qjs, err := build.QuickJSSource(ctx, "", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := build.BuildQuickJS(ctx, tc, qjs, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ kind, codec string }{{"floor", ""}, {"bridge", "json"}, {"bridge", "fast"}} {
		t.Run(strings.TrimSuffix(p.kind+"-"+p.codec, "-"), func(t *testing.T) {
			prog, err := build.BuildProgramFrom(ctx, tc, lib, src, p.kind, p.codec, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			run(t, prog.Path)
		})
	}

	// Duktape's floor, compiled from the same sources as build compiles an engine's floor (harness.c and the floor's
	// file in one folder, against the engine's library).
	t.Run("floor-duktape", func(t *testing.T) {
		compile, link, err := build.EngineCompileFlags(ctx, tc, "duktape", io.Discard)
		if err != nil {
			testenv.Missing(t, err.Error())
		}
		dir := t.TempDir()
		for path, f := range src {
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(path)), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		prog := filepath.Join(dir, "floor-duktape")
		args := slices.Concat(tc.CFlags, compile, []string{"-I", dir, filepath.Join(dir, "harness.c"), filepath.Join(dir, "floor_duktape.c")},
			link, []string{"-lm", "-o", prog})
		if out, err := exec.Command(tc.CC, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", tc.CC, strings.Join(args, " "), err, out)
		}
		run(t, prog)
	})
}
