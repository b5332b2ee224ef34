package build

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/hint"
)

// checkTimeout bounds one toolchain check: a tiny program compiles in well under a second, even on a busy machine.
const checkTimeout = time.Minute

// checkProgram uses what bench programs use: stdio, libm, threads and a 64-bit atomic (libatomic on armel).
const checkProgram = `#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
static _Atomic long long counter;
static void *work(void *arg) { atomic_fetch_add(&counter, 1); return arg; }
int main(int argc, char **argv) {
	pthread_t t;
	if (pthread_create(&t, NULL, work, NULL) != 0 || pthread_join(t, NULL) != 0) return 1;
	printf("%g %lld %s\n", sqrt((double)argc), (long long)atomic_load(&counter), argv[0]);
	return 0;
}
`

// Check compiles and links a small C program with the toolchain's compiler and flags, linked as bench programs are
// (statically, for every device toolchain), so that a compiler without its C library or libatomic is found before
// a build. It fails with a *hint.Fix that names what failed, the compiler's first error and how to install the rest.
func (tc Toolchain) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	fields := strings.Fields(tc.CC)
	if len(fields) == 0 {
		return hint.With(fmt.Errorf("toolchain %s: no C compiler set", tc.Name), tc.InstallHint())
	}
	if _, err := exec.LookPath(fields[0]); err != nil {
		return hint.With(fmt.Errorf("toolchain %s: C compiler %q not found", tc.Name, fields[0]), tc.InstallHint())
	}
	dir, err := os.MkdirTemp("", "bench-bridge-check-")
	if err != nil {
		return fmt.Errorf("toolchain %s: %w", tc.Name, err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "check.c"), []byte(checkProgram), 0o644); err != nil {
		return fmt.Errorf("toolchain %s: %w", tc.Name, err)
	}
	args := slices.Concat(fields[1:], tc.CFlags, []string{"check.c", "-o", "check"}, tc.LDFlags)
	cmd := exec.CommandContext(ctx, fields[0], args...)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second // a compiler's children holding the pipe open do not stop the deadline
	out, err := cmd.CombinedOutput()
	out = bytes.ReplaceAll(out, []byte(dir+string(filepath.Separator)), nil) // "check.c:1:10: ...", not a temp path
	what := "compile and link"
	if slices.Contains(tc.LDFlags, "-static") {
		what = "compile and statically link"
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("toolchain %s: %s did not %s a test program before its deadline (at most %v)", tc.Name, tc.CC, what, checkTimeout)
	case ctx.Err() != nil:
		return fmt.Errorf("toolchain %s: checking %s: %w", tc.Name, tc.CC, ctx.Err())
	case err != nil:
		return hint.With(fmt.Errorf("toolchain %s: %s cannot %s a C program: %s", tc.Name, tc.CC, what, firstError(out, err)),
			tc.InstallHint())
	}
	return nil
}

// diagnose explains a failed build: when the toolchain cannot build even the check program, that error and its fix
// say more than the build's own (a page of compiler output); otherwise the build's error stands.
func (tc Toolchain) diagnose(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil {
		return err
	}
	if cerr := tc.Check(ctx); cerr != nil {
		return cerr
	}
	return err
}

// firstError is the compiler's first line that says what went wrong ("fatal error: stdio.h: No such file",
// "ld: cannot find -latomic"), else its first line, else err.
func firstError(out []byte, err error) string {
	var first string
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if first == "" {
			first = line
		}
		for _, mark := range []string{"error", "cannot find", "undefined reference", "No such file"} {
			if strings.Contains(line, mark) {
				return clip(line)
			}
		}
	}
	if first != "" {
		return clip(first)
	}
	return err.Error()
}

// clip keeps a line short enough for one line of doctor's output.
func clip(s string) string {
	if len(s) > 240 {
		return s[:240] + "..."
	}
	return s
}
