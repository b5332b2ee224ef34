package build

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/hint"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestCheckBuildsWithEachToolchain compiles and links the check program with each toolchain scripts/setup installs.
func TestCheckBuildsWithEachToolchain(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the cross toolchains are Debian's amd64 packages")
	}
	for _, tc := range []Toolchain{Host(), Toolchains["aarch64"], Toolchains["webos"], Toolchains["armv7"], Toolchains["armel"],
		Toolchains["armv6"], Toolchains["x86_64"]} {
		t.Run(tc.Name, func(t *testing.T) {
			testenv.Require(t, strings.Fields(tc.CC)[0], "scripts/setup installs it ("+tc.InstallHint()+")")
			if err := tc.Check(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// fixOf returns err's *hint.Fix, failing the test when there is none.
func fixOf(t *testing.T, err error) *hint.Fix {
	t.Helper()
	var f *hint.Fix
	if !errors.As(err, &f) {
		t.Fatalf("err = %v, want a *hint.Fix", err)
	}
	return f
}

// TestCheckNamesTheMissingCLibrary is a cross compiler that cannot find its C library's headers, as when
// libc6-dev-armel-cross is not installed: the error quotes the compiler and the fix names the package.
func TestCheckNamesTheMissingCLibrary(t *testing.T) {
	testenv.Require(t, "arm-linux-gnueabi-gcc", "apt-get install gcc-arm-linux-gnueabi libc6-dev-armel-cross")
	tc := Toolchains["webos"]
	tc.CC += " -nostdinc" // the headers' directory, as if the package were missing
	err := tc.Check(context.Background())
	f := fixOf(t, err)
	if f.Hint != "apt-get install gcc-arm-linux-gnueabi libc6-dev-armel-cross" {
		t.Errorf("hint = %q", f.Hint)
	}
	for _, want := range []string{"toolchain webos", "cannot compile and statically link", "math.h"} {
		if !strings.Contains(f.Err.Error(), want) {
			t.Errorf("error %q does not say %q", f.Err, want)
		}
	}
}

// TestCheckNamesAMissingLibrary is a link that fails (a library the linker cannot find, as -latomic without
// libgcc's cross package): the error quotes the linker's line.
func TestCheckNamesAMissingLibrary(t *testing.T) {
	testenv.Require(t, "gcc", "apt-get install gcc libc6-dev")
	tc := Host()
	tc.LDFlags = append(slices.Clone(tc.LDFlags), "-lbench-bridge-no-such-library")
	err := tc.Check(context.Background())
	if f := fixOf(t, err); !strings.Contains(f.Err.Error(), "cannot find -lbench-bridge-no-such-library") || !strings.Contains(f.Hint, "libc6-dev") {
		t.Errorf("err = %v", err)
	}
}

func TestCheckMissingCompiler(t *testing.T) {
	tc := Toolchains["aarch64"]
	tc.CC = "no-such-cc-for-bench-bridge --sysroot=/x"
	f := fixOf(t, tc.Check(context.Background()))
	if !strings.Contains(f.Err.Error(), `"no-such-cc-for-bench-bridge" not found`) || f.Hint != "apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross" {
		t.Errorf("err = %v, hint %q", f.Err, f.Hint)
	}
}

// TestCheckHasADeadline is a compiler that never finishes: the check ends at its context's deadline and says so.
func TestCheckHasADeadline(t *testing.T) {
	testenv.Require(t, "sleep", "coreutils")
	cc := filepath.Join(t.TempDir(), "cc")
	if err := os.WriteFile(cc, []byte("#!/bin/sh\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tc := Host()
	tc.CC = cc
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	err := tc.Check(ctx)
	if err == nil || !strings.Contains(err.Error(), "did not compile and link a test program") {
		t.Fatalf("err = %v, want the deadline named", err)
	}
}

// TestInstallHintOnTheMachineItBuildsFor: on the toolchain's own architecture the system's gcc is the compiler.
func TestInstallHintOnTheMachineItBuildsFor(t *testing.T) {
	tc := Toolchains["x86_64"]
	tc.NativeOn = runtime.GOARCH
	if got := tc.InstallHint(); got != "apt-get install gcc libc6-dev" {
		t.Errorf("native: %q", got)
	}
	tc.NativeOn = "no-such-arch"
	if got := tc.InstallHint(); got != "apt-get install gcc-x86-64-linux-gnu libc6-dev-amd64-cross" {
		t.Errorf("cross: %q", got)
	}
}

// TestSetupChecksWhatBuildUses keeps scripts/setup in step with the toolchains: each compiler check there uses the
// toolchain's flags and installs its packages.
func TestSetupChecksWhatBuildUses(t *testing.T) {
	b, err := os.ReadFile("../scripts/setup")
	if err != nil {
		t.Fatal(err)
	}
	setup := string(b)
	expand := strings.NewReplacer(`"${common[@]}"`, strings.Join(commonCFlags, " "), `"${static[@]}"`, strings.Join(staticLD, " "))
	for check, tc := range map[string]Toolchain{"cc_aarch64": Toolchains["aarch64"], "cc_webos": Toolchains["webos"], "cc_armv7": Toolchains["armv7"],
		"cc_armel": Toolchains["armel"], "cc_armv6": Toolchains["armv6"]} {
		var fn, row string
		for _, line := range strings.Split(setup, "\n") {
			if strings.HasPrefix(line, check+"()") {
				fn = expand.Replace(line)
			}
			if strings.HasPrefix(line, check+" ") {
				row = line
			}
		}
		want := "links " + tc.CC + " " + strings.Join(slices.Concat(tc.CFlags, tc.LDFlags), " ") + ";"
		if !strings.Contains(fn, want) {
			t.Errorf("scripts/setup's %s is %q, want it to run %q", check, fn, want)
		}
		if !strings.HasSuffix(strings.TrimSpace(row), "| "+strings.Join(tc.Packages, " ")) {
			t.Errorf("scripts/setup's %s row is %q, want it to install %s", check, row, strings.Join(tc.Packages, " "))
		}
	}
}

// TestFailedBuildSaysWhatToInstall: a build that fails because the toolchain cannot compile at all (the C library's
// headers missing) ends in the check's error and its apt-get line, not in a page of compiler output.
func TestFailedBuildSaysWhatToInstall(t *testing.T) {
	testenv.Require(t, "aarch64-linux-gnu-gcc", "apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross")
	t.Setenv("BENCH_BRIDGE_CACHE", t.TempDir())
	src := t.TempDir()
	for _, f := range quickJS.Pinned.Lib {
		if err := os.WriteFile(filepath.Join(src, f), []byte("#include <stdio.h>\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tc := Toolchains["aarch64"]
	tc.CC += " -nostdinc"
	_, err := BuildQuickJS(context.Background(), tc, src, io.Discard)
	if f := fixOf(t, err); f.Hint != "apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross" || !strings.Contains(f.Err.Error(), "cannot compile") {
		t.Errorf("err = %v", err)
	}
}
