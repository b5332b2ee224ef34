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
	"github.com/bench-bridge/bench-bridge/internal/devroot"
	"github.com/bench-bridge/bench-bridge/internal/sshdtest"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// webosDevice is a TouchPad stand-in: a real OpenSSH server on loopback, with or without sftp; ARMv7 softfp programs
// run on it through binfmt_misc and qemu-arm-static, or under an explicit qemu-arm prefix.
func webosDevice(t *testing.T, o sshdtest.Options) (*sshdtest.Server, []string) {
	t.Helper()
	requireArmel(t)
	srv := sshdtest.Start(t, o)
	return srv, []string{"--host", srv.Host(), "--identity", srv.Identity, "--known-hosts", srv.KnownHosts, "--runs", "1", "--samples", "3", "--min-time", "2ms"}
}

func requireArmel(t *testing.T) {
	t.Helper()
	testenv.SkipInShort(t, "runs ARMv7 bench programs through qemu")
	testenv.Require(t, "arm-linux-gnueabi-gcc", "apt-get install gcc-arm-linux-gnueabi libc6-dev-armel-cross (scripts/setup does it)")
	devroot.RequireBinfmt(t)
}

// webosBoard is a small board, shared by the tests: dropbear (no sftp-server) in a root of busybox alone; ARMv7
// softfp programs run on it through binfmt_misc, so only uname -m shows that they are emulated.
func webosBoard(t *testing.T) (*devroot.Board, []string) {
	t.Helper()
	requireArmel(t)
	b := sharedBoard.Get(t)
	return b, []string{"--host", b.Host(), "--identity", b.Identity, "--known-hosts", b.KnownHosts, "--runs", "1", "--samples", "3", "--min-time", "2ms"}
}

// webosRuns runs `bench-bridge floor webos` and `bench-bridge webos` with flags over qemuCases and checks that the
// artifacts hold those cases and the reference loop, measured by ARMv7 softfp programs, with the device's facts.
func webosRuns(t *testing.T, flags []string, log func() string) (floor, bridge *artifact.Artifact) {
	t.Helper()
	dir := t.TempDir()
	floorOut, bridgeOut := filepath.Join(dir, "floor-webos.json"), filepath.Join(dir, "webos.json")
	flags = append(flags, qemuCases...)
	for _, args := range [][]string{
		append([]string{"floor", "webos", "--out", floorOut}, flags...),
		append([]string{"webos", "--out", bridgeOut}, flags...),
	} {
		stdout, stderr, code := run(t, args...)
		if code != 0 {
			t.Fatalf("bench-bridge %s: exit %d\nstdout:\n%s\nstderr:\n%s\nserver:\n%s", strings.Join(args, " "), code, stdout, stderr, log())
		}
		if !strings.Contains(stdout, "script_to_host_scalar") || !strings.Contains(stdout, "measured under an emulator") {
			t.Errorf("bench-bridge %s printed no table, or does not say it was emulated:\n%s", args[0], stdout)
		}
	}
	floor, bridge = readArtifact(t, floorOut), readArtifact(t, bridgeOut)
	for _, a := range []*artifact.Artifact{floor, bridge} {
		if !a.Complete || len(a.Failures) > 0 || a.Target != "webos" || len(a.Cases) != 2 { // the case and the reference loop
			t.Errorf("%s: complete=%v, %d cases, failures %+v", a.Label(), a.Complete, len(a.Cases), a.Failures)
		}
		for _, c := range a.Cases {
			if len(c.SamplesNs) != 3 || c.MedianNs <= 0 {
				t.Errorf("%s %s: samples %v", a.Label(), c.Name, c.SamplesNs)
			}
		}
		d := a.Device
		if !strings.Contains(d.Compiler, "arm-linux-gnueabi") || !strings.Contains(d.CFlags, "-mfloat-abi=softfp") ||
			d.QuickJS != "2025-04-26" || d.LoadAvg == "" || d.Cores < 1 {
			t.Errorf("%s: device %+v", a.Label(), d)
		}
	}
	return floor, bridge
}

// TestWebOSOnBoard runs floor and bridge on the dropbear + busybox board: uploads through the shell (there is no
// sftp), the probe through busybox, the run directory removed after each run. The artifacts say that the programs
// were emulated, and why.
func TestWebOSOnBoard(t *testing.T) {
	b, flags := webosBoard(t)
	workdir := "/tmp/device dir; it's"
	floor, bridge := webosRuns(t, append(flags, "--workdir", workdir), b.Log)
	for _, a := range []*artifact.Artifact{floor, bridge} {
		assertEmulatedByKernel(t, a, "arm")
		if a.Device.RunPrefix != "" {
			t.Errorf("%s: run prefix %q", a.Label(), a.Device.RunPrefix)
		}
	}
	f, br := floor.Case("script_to_host_scalar").MedianNs, bridge.Case("script_to_host_scalar").MedianNs
	t.Logf("armel through binfmt on the board (emulated): script_to_host_scalar floor %.0f ns, json %.0f ns: %.1fx; ref_js_loop %.0f ns",
		f, br, br/f, floor.Case(cases.RefCase).MedianNs)
	if left, err := os.ReadDir(filepath.Join(b.Root(), workdir)); err != nil || len(left) != 0 {
		t.Errorf("workdir on the board after the runs: %v, %v", left, err)
	}
}

// TestWebOSOverOpenSSH runs a few cases on OpenSSH with sftp, under an explicit qemu-arm prefix (the artifact names
// it as the reason), and, in scripts/test --full, without sftp, through binfmt: the landing run proves that on the
// dropbear board (TestWebOSOnBoard: the shell upload, binfmt) and against OpenSSH without sftp in package targets
// (TestSSHTarget's shell upload).
func TestWebOSOverOpenSSH(t *testing.T) {
	for _, tt := range []struct {
		name   string
		opts   sshdtest.Options
		prefix string
		full   bool
	}{
		{"sftp, qemu prefix", sshdtest.Options{}, "qemu-arm -cpu cortex-a8", false},
		{"no sftp, binfmt", sshdtest.Options{NoSFTP: true}, "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.full {
				testenv.SkipUnlessFull(t, "TestWebOSOnBoard and package targets' TestSSHTarget prove it in parts")
			}
			if tt.prefix != "" {
				testenv.Require(t, "qemu-arm", "apt-get install qemu-user (scripts/setup does it)")
			}
			srv, flags := webosDevice(t, tt.opts)
			workdir := filepath.Join(t.TempDir(), "device dir; it's")
			flags = append(flags, "--workdir", workdir)
			if tt.prefix != "" {
				flags = append(flags, "--run-prefix", tt.prefix)
			}
			floor, bridge := webosRuns(t, flags, srv.Log)
			for _, a := range []*artifact.Artifact{floor, bridge} {
				d := a.Device
				if tt.prefix == "" {
					assertEmulatedByKernel(t, a, "arm")
				} else if !d.Emulated || d.RunPrefix != tt.prefix || !strings.Contains(d.EmulatedReason, "--run-prefix "+tt.prefix) {
					t.Errorf("%s: emulated %v, prefix %q, reason %q", a.Label(), d.Emulated, d.RunPrefix, d.EmulatedReason)
				}
			}
			if left, err := os.ReadDir(workdir); err != nil || len(left) != 0 {
				t.Errorf("workdir after the runs: %v, %v", left, err)
			}
		})
	}
}

// TestWebOSDroppedConnection cuts the connection in the middle of the second case: the error names the device and
// the case, and the artifact keeps the first case, marked incomplete.
func TestWebOSDroppedConnection(t *testing.T) {
	srv, flags := webosDevice(t, sshdtest.Options{})
	proxy := srv.Proxy(t)
	out := filepath.Join(t.TempDir(), "floor-webos.json")
	// Long samples, so that the cut lands inside the second case, not between two.
	args := append([]string{"floor", "webos", "--out", out, "--cases", "script_to_host_scalar", "--workdir", t.TempDir()}, flags...)
	args = append(args, "--host", srv.User+"@"+proxy.Addr) // the last --host wins
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
