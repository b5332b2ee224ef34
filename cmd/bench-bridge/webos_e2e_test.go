package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/internal/sshdtest"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// webosDevice is a simulated TouchPad: a real sshd on loopback whose programs run under qemu's Cortex-A8.
func webosDevice(t *testing.T) (*sshdtest.Server, []string) {
	t.Helper()
	testenv.Require(t, "arm-linux-gnueabi-gcc", "apt-get install gcc-arm-linux-gnueabi (scripts/setup does it)")
	testenv.Require(t, "qemu-arm", "apt-get install qemu-user (scripts/setup does it)")
	srv := sshdtest.Start(t, sshdtest.Options{})
	flags := []string{"--identity", srv.Identity, "--known-hosts", srv.KnownHosts, "--run-prefix", "qemu-arm -cpu cortex-a8",
		"--samples", "3", "--min-time", "2ms"}
	return srv, flags
}

// TestWebOSEndToEnd runs `bench-bridge floor webos` and `bench-bridge webos` against the simulated device and checks
// that the artifacts hold every case, measured by ARMv7 softfp programs, marked as emulated.
func TestWebOSEndToEnd(t *testing.T) {
	srv, flags := webosDevice(t)
	dir := t.TempDir()
	workdir := filepath.Join(dir, "device dir; it's")
	floorOut, bridgeOut := filepath.Join(dir, "floor-webos.json"), filepath.Join(dir, "webos.json")
	flags = append(flags, "--host", srv.Host(), "--workdir", workdir)
	for _, args := range [][]string{
		append([]string{"floor", "webos", "--out", floorOut}, flags...),
		append([]string{"webos", "--out", bridgeOut}, flags...),
	} {
		stdout, stderr, code := run(t, args...)
		if code != 0 {
			t.Fatalf("bench-bridge %s: exit %d\nstdout:\n%s\nstderr:\n%s\nsshd:\n%s", strings.Join(args, " "), code, stdout, stderr, srv.Log())
		}
		if !strings.Contains(stdout, "script_to_host_scalar") {
			t.Errorf("bench-bridge %s printed no table:\n%s", args[0], stdout)
		}
	}
	floor, bridge := readArtifact(t, floorOut), readArtifact(t, bridgeOut)
	for _, a := range []*artifact.Artifact{floor, bridge} {
		if !a.Complete || len(a.Failures) > 0 || a.Target != "webos" || len(a.Cases) != len(cases.Catalogue) {
			t.Errorf("%s: complete=%v, %d cases, failures %+v", a.Label(), a.Complete, len(a.Cases), a.Failures)
		}
		for _, c := range a.Cases {
			if len(c.SamplesNs) != 3 || c.MedianNs <= 0 {
				t.Errorf("%s %s: samples %v", a.Label(), c.Name, c.SamplesNs)
			}
		}
		d := a.Device
		if !d.Emulated || d.EmulatedReason != "the program ran under an emulator: --run-prefix qemu-arm -cpu cortex-a8" || d.RunPrefix != "qemu-arm -cpu cortex-a8" || !strings.Contains(d.Compiler, "arm-linux-gnueabi") ||
			!strings.Contains(d.CFlags, "-mfloat-abi=softfp") || d.QuickJS != "2025-04-26" || d.LoadAvg == "" || d.Cores < 1 {
			t.Errorf("%s: device %+v", a.Label(), d)
		}
	}
	// Under qemu these are not a device's numbers; the ratio of one run is what the note keeps.
	f, b := floor.Case("script_to_host_scalar").MedianNs, bridge.Case("script_to_host_scalar").MedianNs
	t.Logf("qemu-arm cortex-a8: script_to_host_scalar floor %.0f ns, json %.0f ns: %.1fx", f, b, b/f)
	// Each run removed its directory on the device and left the workdir.
	if left, err := os.ReadDir(workdir); err != nil || len(left) != 0 {
		t.Errorf("workdir after the runs: %v, %v", left, err)
	}
}

// TestWebOSDroppedConnection cuts the connection in the middle of the second case: the error names the device and
// the case, and the artifact keeps the first case, marked incomplete.
func TestWebOSDroppedConnection(t *testing.T) {
	srv, flags := webosDevice(t)
	proxy := srv.Proxy(t)
	out := filepath.Join(t.TempDir(), "floor-webos.json")
	// Long samples, so that the cut lands inside the second case, not between two.
	args := append([]string{"floor", "webos", "--out", out, "--host", srv.User + "@" + proxy.Addr, "--cases", "script_to_host_scalar",
		"--workdir", t.TempDir()}, flags...)
	args = append(args, "--min-time", "300ms")
	var stdout bytes.Buffer
	stderr := &cutter{when: "webos: " + cases.RefCase, cut: func() { time.AfterFunc(300*time.Millisecond, proxy.Cut) }}
	code := execute(args, &stdout, stderr)
	msg := stderr.String()
	if code != 1 || !strings.Contains(msg, proxy.Addr) || !strings.Contains(msg, "case script_to_host_scalar") ||
		!strings.Contains(msg, "partial artifact") {
		t.Fatalf("exit %d, stderr:\n%s", code, msg)
	}
	t.Logf("stderr:\n%s", msg)
	a := readArtifact(t, out)
	if a.Complete || a.Case(cases.RefCase) == nil || a.Case("script_to_host_scalar") != nil {
		t.Errorf("artifact: complete=%v cases=%d failures=%+v", a.Complete, len(a.Cases), a.Failures)
	}
}

// cutter is a stderr that calls cut once when a line containing when goes by.
type cutter struct {
	when string
	cut  func()
	mu   sync.Mutex
	buf  bytes.Buffer
	done bool
}

func (c *cutter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	if !c.done && strings.Contains(c.buf.String(), c.when) {
		c.done = true
		c.cut()
	}
	return len(p), nil
}

func (c *cutter) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}
