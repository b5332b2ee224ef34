package build

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	benchbridge "github.com/bench-bridge/bench-bridge"
	"github.com/bench-bridge/bench-bridge/artifact"
)

// UserBridge builds a user's bench program by running its build command (with sh, in dir) and returns the binary.
// The command's environment says how to build against the same QuickJS and harness as the floor:
//
//	CC, CFLAGS, LDFLAGS                  the target's toolchain
//	BENCH_BRIDGE_QUICKJS_SRC             QuickJS's source tree (for -I)
//	BENCH_BRIDGE_QUICKJS_OBJS            QuickJS's object files, space separated
//	BENCH_BRIDGE_HARNESS                 a directory with harness.c and harness.h (the protocol's main),
//	                                     cases.def (the case list harness.c includes) and case_table.h (the
//	                                     reference programs' set-ups and loops), if wanted
func UserBridge(ctx context.Context, tc Toolchain, lib *Library, name, dir, command, binary string, log io.Writer) (*Program, error) {
	harness, err := os.MkdirTemp("", "bench-bridge-harness-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(harness)
	for _, f := range benchbridge.CommonSources {
		b, err := benchbridge.CSources.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(harness, filepath.Base(f)), b, 0o644); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(log, "building bridge %s: %s\n", name, command)
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"CC="+tc.CC,
		"CFLAGS="+strings.Join(tc.CFlags, " "),
		"LDFLAGS="+strings.Join(tc.LDFlags, " "),
		"BENCH_BRIDGE_QUICKJS_SRC="+lib.Src,
		"BENCH_BRIDGE_QUICKJS_OBJS="+strings.Join(lib.Objects, " "),
		"BENCH_BRIDGE_HARNESS="+harness,
	)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("bridge %s: build command %q in %s: %w", name, command, dir, err)
	}
	path := binary
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if st, err := os.Stat(path); err != nil || st.IsDir() {
		return nil, fmt.Errorf("bridge %s: the build command succeeded but left no binary at %s", name, path)
	}
	return &Program{Kind: artifact.ProgramBridge, Codec: name, Path: path, Compiler: lib.Compiler, CFlags: strings.Join(tc.CFlags, " ")}, nil
}
