package targets

import (
	"context"
	"io"
	"runtime"
	"strings"
	"testing"

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
