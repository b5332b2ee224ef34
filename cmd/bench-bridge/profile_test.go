package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/internal/sshdtest"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestProfileOverSSH profiles a case on an ssh board (a real sshd on loopback, programs built for this machine) with
// the profilers the board has: perf and strace run on the device, their output comes back and is summarised.
func TestProfileOverSSH(t *testing.T) {
	testenv.Require(t, "cc", "apt-get install gcc")
	srv := sshdtest.Start(t, sshdtest.Options{})
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bench-bridge.toml")
	os.WriteFile(cfg, []byte("[targets.board]\nkind = \"ssh\"\ntoolchain = \"host\"\n"), 0o644)
	flags := []string{"--config", cfg, "--host", srv.Host(), "--identity", srv.Identity, "--known-hosts", srv.KnownHosts, "--out-dir", dir}
	for _, tc := range []struct{ tool, command, want string }{
		{"perf", "perf", "interpreter"},
		{"strace", "strace", "kernel"},
	} {
		testenv.Require(t, tc.command, "apt-get install linux-perf strace")
		stdout, stderr, code := run(t, append([]string{"profile", "board", "script_to_host_scalar", "1", "--tool", tc.tool}, flags...)...)
		if code != 0 || !strings.Contains(stdout, "share by part:") || !strings.Contains(stdout, tc.want) {
			t.Fatalf("profile board with %s: exit %d\n%s\n%s", tc.tool, code, stdout, stderr)
		}
		raw := filepath.Join(dir, "profile-board-script_to_host_scalar.txt")
		if st, err := os.Stat(raw); err != nil || st.Size() == 0 {
			t.Errorf("%s: raw output not saved at %s: %v", tc.tool, raw, err)
		}
	}
}

// TestProfileOnAndroid profiles with strace on real adbd, through the real adb server: the profiler runs on the device
// (this machine's strace, copied into the device's root), its output is pulled back and summarised, with a warning
// that an emulator was profiled.
func TestProfileOnAndroid(t *testing.T) {
	testenv.Require(t, "strace", "apt-get install strace")
	android(t)
	dir := t.TempDir()
	stdout, stderr, code := run(t, "profile", "android", "callback", "1", "--program", "floor", "--tool", "strace", "--out-dir", dir)
	if code != 0 || !strings.Contains(stdout, "top functions by self share (strace)") || !strings.Contains(stderr, "this profiles the emulator") {
		t.Fatalf("profile android: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "profile-android-callback.txt")); err != nil {
		t.Error(err)
	}
}

func TestProfileRejectsBadArguments(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"profile", localName(), "no_such_case"}, `unknown case "no_such_case"`},
		{[]string{"profile", localName(), "callback", "soon"}, `SECS "soon" is not a number of seconds`},
		{[]string{"profile", localName(), "callback", "1", "--tool", "gprof"}, `--tool "gprof"`},
		{[]string{"profile", localName(), "callback", "1", "--program", "both"}, `--program "both"`},
	} {
		_, stderr, code := run(t, tt.args...)
		if code != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("bench-bridge %s: exit %d, %q; want %q", strings.Join(tt.args, " "), code, stderr, tt.want)
		}
	}
}

// TestProfileOnBoard profiles on the busybox board, which has no profiler at all: profile says so, naming what it
// tried and how to get each, and leaves nothing behind on the board.
func TestProfileOnBoard(t *testing.T) {
	b, flags := webosBoard(t)
	dir := t.TempDir()
	_, stderr, code := run(t, append([]string{"profile", "webos", "callback", "1", "--out-dir", dir}, flags...)...)
	if code != 1 || !strings.Contains(stderr, "webos: no profiler found on the device (tried simpleperf, perf, strace)") ||
		!strings.Contains(stderr, "strace: install strace") {
		t.Errorf("profile on a board without profilers: exit %d\n%s", code, stderr)
	}
	t.Logf("profile webos on the board:\n%s", stderr)
	_, stderr, code = run(t, append([]string{"profile", "webos", "callback", "1", "--tool", "strace", "--out-dir", dir}, flags...)...)
	if code != 1 || !strings.Contains(stderr, "webos: profiler strace is not on the device") {
		t.Errorf("profile --tool strace on a board without it: exit %d\n%s", code, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(b.Root(), "tmp", "bench-bridge*")); len(left) > 0 {
		t.Errorf("left on the board: %v", left)
	}
}
