package build

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	benchbridge "github.com/bench-bridge/bench-bridge"
)

// TestUserBridgeEnvironment: the build command gets the C and C++ compilers and flags, QuickJS's paths and the
// harness as a folder whose C files are the harness's and nothing else (a build compiles $BENCH_BRIDGE_HARNESS/*.c),
// with its headers, the case list and case_table.h; the binary is found relative to the folder.
func TestUserBridgeEnvironment(t *testing.T) {
	dir := t.TempDir()
	tc := Toolchain{Name: "host", CC: "gcc", CFlags: []string{"-O2", "-g"}, LDFlags: []string{"-lm"}}
	lib := &Library{Src: "/quickjs/src", Objects: []string{"/q/a.o", "/q/b.o"}, Compiler: "gcc 12"}
	t.Setenv("CXX", "")
	cmd := `printf '%s\n' "$CC" "$CXX" "$CFLAGS" "$CXXFLAGS" "$LDFLAGS" "$BENCH_BRIDGE_QUICKJS_SRC" "$BENCH_BRIDGE_QUICKJS_OBJS" > env.txt
ls "$BENCH_BRIDGE_HARNESS" > harness.txt
printf '#!/bin/sh\n' > prog && chmod +x prog`
	prog, err := UserBridge(context.Background(), tc, lib, "mine", dir, cmd, "prog", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	env, _ := os.ReadFile(filepath.Join(dir, "env.txt"))
	want := "gcc\ng++\n-O2 -g\n-O2 -g\n-lm\n/quickjs/src\n/q/a.o /q/b.o\n"
	if string(env) != want {
		t.Errorf("the build's environment:\n%s\nwant:\n%s", env, want)
	}
	listing, _ := os.ReadFile(filepath.Join(dir, "harness.txt"))
	files := strings.Fields(string(listing))
	for _, f := range slices.Concat([]string{"harness.h", "harness_core.h", "engine.h", "case_table.h", "cases.def"}, benchbridge.HarnessSources, benchbridge.HarnessParts) {
		if !slices.Contains(files, filepath.Base(f)) {
			t.Errorf("BENCH_BRIDGE_HARNESS holds %q, no %s", files, filepath.Base(f))
		}
	}
	var cFiles, harnessFiles []string
	for _, f := range files {
		if strings.HasSuffix(f, ".c") {
			cFiles = append(cFiles, f)
		}
	}
	for _, f := range slices.Concat(benchbridge.HarnessSources, benchbridge.HarnessParts) {
		harnessFiles = append(harnessFiles, filepath.Base(f))
	}
	slices.Sort(cFiles)
	slices.Sort(harnessFiles)
	if !slices.Equal(cFiles, harnessFiles) {
		t.Errorf("BENCH_BRIDGE_HARNESS holds the C files %q, want the harness's %q", cFiles, harnessFiles)
	}
	if prog.Path != filepath.Join(dir, "prog") || !strings.Contains(prog.CFlags, "CXXFLAGS=-O2 -g") || !strings.Contains(prog.Compiler, "CXX=g++") {
		t.Errorf("program %+v", prog)
	}
}

func TestCXXBesideCC(t *testing.T) {
	t.Setenv("CXX", "")
	for cc, want := range map[string]string{"gcc": "g++", "arm-linux-gnueabi-gcc": "arm-linux-gnueabi-g++", "clang": "clang++",
		"/usr/bin/aarch64-linux-gnu-gcc": "/usr/bin/aarch64-linux-gnu-g++"} {
		if got := cxxFor(cc); got != want {
			t.Errorf("cxxFor(%q) = %q, want %q", cc, got, want)
		}
	}
}
