package build

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUserBridgeEnvironment: the build command gets the C and C++ compilers and flags, QuickJS's paths and the
// harness as a folder holding harness.c, harness.h and case_table.h; the binary is found relative to the folder.
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
	files, _ := os.ReadFile(filepath.Join(dir, "harness.txt"))
	for _, f := range []string{"harness.c", "harness.h", "case_table.h", "cases.def"} {
		if !strings.Contains(string(files), f) {
			t.Errorf("BENCH_BRIDGE_HARNESS holds %q, no %s", files, f)
		}
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
