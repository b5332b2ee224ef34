package build

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestARMv6ToolchainRunsOnAnARM1176 runs the check program of each 32-bit ARM toolchain on an ARM1176 (the CPU of the
// first Raspberry Pis) as qemu-arm models it: armv6's and armel's run, while armv7's, which Debian's armhf boards get,
// and webos's stop at an ARMv7 instruction. That is why an ARMv6 board has a toolchain of its own.
func TestARMv6ToolchainRunsOnAnARM1176(t *testing.T) {
	qemu := testenv.Require(t, "qemu-arm", "apt-get install qemu-user (scripts/setup does it)")
	for name, runs := range map[string]bool{"armv6": true, "armel": true, "armv7": false, "webos": false} {
		t.Run(name, func(t *testing.T) {
			tc := Toolchains[name]
			testenv.Require(t, strings.Fields(tc.CC)[0], "scripts/setup installs it ("+tc.InstallHint()+")")
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "check.c"), []byte(checkProgram), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := tc.compile(context.Background(), dir, append([]string{"check.c", "-o", "check"}, tc.LDFlags...)...); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(qemu, "-cpu", "arm1176", "./check")
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			switch {
			case runs && (err != nil || !strings.HasPrefix(string(out), "1 1 ./check")):
				t.Errorf("on an ARM1176: %v\n%s", err, out)
			case !runs && (err == nil || !strings.Contains(string(out), "Illegal instruction")):
				t.Errorf("ran on an ARM1176, want an illegal instruction: %v\n%s", err, out)
			}
		})
	}
}
