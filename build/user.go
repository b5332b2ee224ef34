package build

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	benchbridge "github.com/bench-bridge/bench-bridge"
	"github.com/bench-bridge/bench-bridge/artifact"
)

// UserBuild is what a user's bridge was built with: the environment bench-bridge handed its build command.
type UserBuild struct {
	CC, CXX, CFlags, CXXFlags, LDFlags string
}

// UserBridge builds a user's bench program by running its build command (with sh, in dir) and returns the binary;
// with an empty command the binary is taken as it is (a prebuilt program, and lib may be nil). binary is relative to
// dir. The command's
// environment says how to build against the same toolchain, QuickJS and harness as the floor (docs/bridge.md):
//
//	CC, CXX, CFLAGS, CXXFLAGS, LDFLAGS   the target's toolchain (CXX: $CXX, else the C++ compiler beside CC)
//	BENCH_BRIDGE_QUICKJS_SRC             QuickJS's source tree (for -I)
//	BENCH_BRIDGE_QUICKJS_OBJS            QuickJS's object files, space separated
//	BENCH_BRIDGE_HARNESS                 a directory holding the harness: harness.c, the one file to compile
//	                                     (it includes the other C files, each empty on its own, so that
//	                                     compiling $BENCH_BRIDGE_HARNESS/*.c links too), harness.h (what a
//	                                     bridge includes), cases.def (the case list) and case_table.h (the
//	                                     reference programs' set-ups, loops and case table)
func UserBridge(ctx context.Context, tc Toolchain, lib *Library, name, dir, command, binary string, log io.Writer) (*Binary, error) {
	path, err := filepath.Abs(filepath.Join(dir, binary))
	if filepath.IsAbs(binary) {
		path, err = binary, nil
	}
	if err != nil {
		return nil, err
	}
	ub := UserBuild{CC: tc.CC, CXX: cxxFor(tc.CC), CFlags: strings.Join(tc.CFlags, " "), CXXFlags: strings.Join(tc.CFlags, " "),
		LDFlags: strings.Join(tc.LDFlags, " ")}
	prog := &Binary{Kind: artifact.ProgramBridge, Codec: name, Path: path, User: &ub}
	if command != "" {
		// What the build was handed; the program's own `meta compiler` line, when it prints one, says more.
		prog.Compiler = fmt.Sprintf("CC=%s CXX=%s (%s)", ub.CC, ub.CXX, lib.Compiler)
		prog.CFlags = fmt.Sprintf("CFLAGS=%s CXXFLAGS=%s LDFLAGS=%s", ub.CFlags, ub.CXXFlags, ub.LDFlags)
	}
	if command != "" {
		if err := runUserBuild(ctx, ub, lib, name, dir, command, log); err != nil {
			return nil, err
		}
	}
	st, err := os.Stat(path)
	switch {
	case err != nil && command == "":
		return nil, fmt.Errorf("bridge %s: no binary at %s (the bridge has no build command: build it first, or add build = \"...\")", name, path)
	case err != nil || st.IsDir():
		return nil, fmt.Errorf("bridge %s: the build command succeeded but left no binary at %s", name, path)
	case st.Mode()&0o111 == 0:
		return nil, fmt.Errorf("bridge %s: %s is not executable (chmod +x it, or fix the build)", name, path)
	}
	return prog, nil
}

// runUserBuild writes the harness to a temporary directory and runs the user's build command with the environment.
func runUserBuild(ctx context.Context, ub UserBuild, lib *Library, name, dir, command string, log io.Writer) error {
	harness, err := os.MkdirTemp("", "bench-bridge-harness-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(harness)
	for _, f := range benchbridge.CommonSources {
		b, err := benchbridge.CSources.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(harness, filepath.Base(f)), b, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(log, "building bridge %s: %s\n", name, command)
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"CC="+ub.CC,
		"CXX="+ub.CXX,
		"CFLAGS="+ub.CFlags,
		"CXXFLAGS="+ub.CXXFlags,
		"LDFLAGS="+ub.LDFlags,
		"BENCH_BRIDGE_QUICKJS_SRC="+lib.Src,
		"BENCH_BRIDGE_QUICKJS_OBJS="+strings.Join(lib.Objects, " "),
		"BENCH_BRIDGE_HARNESS="+harness,
	)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("bridge %s: build command %q in %s: %w", name, command, dir, err)
	}
	return nil
}

// cxxFor is the C++ compiler that goes with a C compiler: $CXX for the host's, else the same driver's C++ name
// (gcc -> g++, arm-linux-gnueabi-gcc -> arm-linux-gnueabi-g++, clang -> clang++).
func cxxFor(cc string) string {
	if cxx := os.Getenv("CXX"); cxx != "" && cc == Host().CC {
		return cxx
	}
	switch {
	case strings.HasSuffix(cc, "clang"):
		return cc + "++"
	case strings.HasSuffix(cc, "gcc"):
		return strings.TrimSuffix(cc, "gcc") + "g++"
	case cc == "cc":
		if runtime.GOOS == "darwin" {
			return "clang++"
		}
		return "c++"
	}
	return "c++"
}
