package adbsim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealADB drives the simulator with the real adb command line: shell with exit status and stderr, push with a
// mode, pull, getprop.
func TestRealADB(t *testing.T) {
	srv := StartServer(t)
	opts := Emulator()
	opts.QEMU = nil
	d := Start(t, opts)
	srv.Connect(t, d, "device")
	adb := func(args ...string) string {
		t.Helper()
		out, err := srv.ADB(append([]string{"-s", d.Addr()}, args...)...)
		if err != nil {
			t.Fatalf("adb %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	if got := adb("shell", "getprop", "ro.product.cpu.abi"); got != "arm64-v8a\n" {
		t.Errorf("getprop: %q", got)
	}
	out, err := srv.ADB("-s", d.Addr(), "shell", "echo out; echo err >&2; exit 3")
	if err == nil || !strings.Contains(out, "out") || !strings.Contains(out, "err") {
		t.Errorf("shell exit 3: %v %q", err, out)
	}
	local := filepath.Join(t.TempDir(), "f")
	os.WriteFile(local, []byte(strings.Repeat("x", 300000)), 0o755)
	adb("push", local, "/data/local/tmp/f")
	if got := adb("shell", "ls", "-l", "/data/local/tmp/f"); !strings.Contains(got, "rwx") || !strings.Contains(got, "300000") {
		t.Errorf("pushed file: %q", got)
	}
	back := filepath.Join(t.TempDir(), "g")
	adb("pull", "/data/local/tmp/f", back)
	if b, _ := os.ReadFile(back); len(b) != 300000 {
		t.Errorf("pulled %d bytes", len(b))
	}
}
