package targets

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestLocalLinuxDeviceHasLoadAndLibc: on Linux the local target records the load average and the C library, as an
// ssh device does.
func TestLocalLinuxDeviceHasLoadAndLibc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the local target reads load and libc on Linux")
	}
	l, err := NewLocal("linux", Spec{Kind: "local"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.Device(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(strings.Fields(d.LoadAvg)) != 3 || d.Libc == "" {
		t.Fatalf("load_avg %q, libc %q: want three load averages and the C library", d.LoadAvg, d.Libc)
	}
}

// TestLocalRunPrefix: the local target runs the program under the run prefix, its words passed to exec as they are,
// and a qemu- prefix marks the run emulated: an emulator's numbers are not this machine's.
func TestLocalRunPrefix(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the qemu user emulators are Linux programs")
	}
	qemu := testenv.Require(t, "qemu-x86_64-static", "apt-get install qemu-user-static")
	env := testenv.Require(t, "env", "apt-get install coreutils")
	for _, tt := range []struct {
		prefix   string
		emulated bool
	}{{env + " BB_PREFIX_SEEN=1", false}, {qemu + " " + env + " BB_PREFIX_SEEN=1", true}} {
		l, err := NewLocal("linux", Spec{Kind: "local", RunPrefix: tt.prefix})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() }) // its run directory, which holds the pid files
		var out strings.Builder
		if err := l.Run(context.Background(), "/bin/sh", []string{"-c", "echo $BB_PREFIX_SEEN"}, &out, io.Discard); err != nil {
			t.Fatalf("%s: %v", tt.prefix, err)
		}
		if strings.TrimSpace(out.String()) != "1" {
			t.Errorf("prefix %q: the program saw %q, want the prefix's environment", tt.prefix, out.String())
		}
		d, err := l.Device(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if d.RunPrefix != tt.prefix || d.Emulated != tt.emulated || (tt.emulated && !strings.Contains(d.EmulatedReason, "--run-prefix")) {
			t.Errorf("prefix %q: run_prefix %q, emulated %v (%s)", tt.prefix, d.RunPrefix, d.Emulated, d.EmulatedReason)
		}
	}
	if _, err := NewLocal("linux", Spec{Kind: "local", RunPrefix: "nice -n '5'"}); err == nil || !strings.Contains(err.Error(), "shell syntax") {
		t.Errorf("a quoted prefix: %v", err)
	}
}

// TestLocalRunStopsItsProcessGroup: a cancelled run on this machine is stopped as on every device, by the kill script
// through the pid file: its program and what the program started are gone when Run returns, which names the program
// and ctx's error. A program that cannot start is named as such, not as a lost connection.
func TestLocalRunStopsItsProcessGroup(t *testing.T) {
	l, err := NewLocal("local-test", Spec{Kind: "local"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	child := filepath.Join(t.TempDir(), "child")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- l.Run(ctx, "/bin/sh", []string{"-c", "sleep 60 & echo $! > " + shellQuote(child) + "; wait"}, io.Discard, io.Discard)
	}()
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(child)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if pid == 0 {
		t.Fatal("the program did not start its child")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || err.Error() != "local-test: sh: context canceled" {
			t.Errorf("a cancelled run: %v", err)
		}
	case <-time.After(killOp):
		t.Fatal("a cancelled run did not return")
	}
	for deadline := time.Now().Add(5 * time.Second); !processGone(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the program's child %d outlived the cancelled run", pid)
		}
	}
	missing := filepath.Join(t.TempDir(), "none")
	if err := l.Run(context.Background(), missing, nil, io.Discard, io.Discard); err == nil ||
		!strings.HasPrefix(err.Error(), "local-test: starting "+missing+": ") {
		t.Errorf("a program that cannot start: %v", err)
	}
}
