package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/internal/devroot"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// boardFlags reach b and measure two cases once each: qemu is slow, and these tests check the plumbing.
func boardFlags(b *devroot.Board) []string {
	return []string{"--identity", b.Identity, "--known-hosts", b.KnownHosts, "--runs", "1", "--samples", "1",
		"--min-time", "1ms", "--cases", "ref_js_loop,script_to_host_scalar"}
}

// measureBoard runs `bench-bridge [floor] ssh root@ADDR` on b and checks that it said what it picked and why, and that
// the artifact holds both cases, measured by a program of the picked compiler, under the board's name.
func measureBoard(t *testing.T, b *devroot.Board, floor bool, why, compiler string) *artifact.Artifact {
	t.Helper()
	out := filepath.Join(t.TempDir(), "board.json")
	args := append([]string{"ssh", b.Host(), "--out", out}, boardFlags(b)...)
	if floor {
		args = append([]string{"floor"}, args...)
	}
	stdout, stderr, code := run(t, args...)
	if code != 0 {
		t.Fatalf("bench-bridge %s: exit %d\nstdout:\n%s\nstderr:\n%s\nserver:\n%s", strings.Join(args, " "), code, stdout, stderr, b.Log())
	}
	if !strings.Contains(stderr, "ssh "+b.Host()+": "+why) {
		t.Errorf("stderr does not say %q:\n%s", "ssh "+b.Host()+": "+why, stderr)
	}
	a := readArtifact(t, out)
	if !a.Complete || len(a.Failures) > 0 || a.Target != b.Addr || len(a.Cases) != 2 {
		t.Errorf("%s: complete=%v, target %q, %d cases, failures %+v", a.Label(), a.Complete, a.Target, len(a.Cases), a.Failures)
	}
	for _, c := range a.Cases {
		if len(c.SamplesNs) != 1 || c.MedianNs <= 0 {
			t.Errorf("%s %s: samples %v", a.Label(), c.Name, c.SamplesNs)
		}
	}
	if !strings.Contains(a.Device.Compiler, compiler) {
		t.Errorf("%s: built by %q, want %s", a.Label(), a.Device.Compiler, compiler)
	}
	return a
}

// TestSSHBoardOnDropbear measures the dropbear + busybox board by its host alone: its userland is this machine's
// busybox-static (with dropbear's glibc beside it), so the x86_64 toolchain builds for it, and it runs natively.
// floor, the bridge, profile and doctor take the board the same way.
func TestSSHBoardOnDropbear(t *testing.T) {
	testenv.Require(t, "x86_64-linux-gnu-gcc", "apt-get install gcc libc6-dev (scripts/setup does it)")
	b := sharedBoard.Get(t)
	for _, floor := range []bool{true, false} {
		a := measureBoard(t, b, floor, "x86_64 userland (ELF of /bin/sh), glibc (/lib64/ld-linux-x86-64.so.2): toolchain x86_64, static",
			"x86_64-linux-gnu-gcc")
		if a.Device.Emulated || a.Device.Arch != "x86_64" {
			t.Errorf("%s: emulated %v (%s), arch %q", a.Label(), a.Device.Emulated, a.Device.EmulatedReason, a.Device.Arch)
		}
	}
	stdout, stderr, code := run(t, "profile", "ssh", b.Host(), "script_to_host_scalar", "1", "--tool", "itimer",
		"--out-dir", t.TempDir(), "--identity", b.Identity, "--known-hosts", b.KnownHosts)
	if code != 0 || !strings.Contains(stdout, "share by part") || !strings.Contains(stderr, "toolchain x86_64, static") {
		t.Errorf("profile ssh: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	stdout, stderr, code = run(t, "doctor", "ssh", b.Host(), "--identity", b.Identity, "--known-hosts", b.KnownHosts)
	for _, want := range []string{"ok       " + b.Addr + " compiler (x86_64)", "ok       " + b.Addr + " device"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("doctor ssh: exit %d, no %q in\n%s\nstderr:\n%s", code, want, stdout, stderr)
		}
	}
}

// measureUserland measures the bridge on an ARM userland through OpenSSH: the ELF header of its /bin/sh picks the
// toolchain, /proc/sys/kernel/arch shows that binfmt_misc runs it, and the artifact says the run was emulated.
func measureUserland(t *testing.T, u devroot.Userland, why, compiler, program string) {
	testenv.Require(t, compiler, "scripts/setup installs it")
	b := devroot.StartUserland(t, u)
	a := measureBoard(t, b, false, why, compiler)
	assertEmulatedByKernel(t, a, program)
	if a.Device.Arch != "x86_64" {
		t.Errorf("%s: arch %q, want the kernel's x86_64 (the emulated uname says otherwise)", a.Label(), a.Device.Arch)
	}
}

func TestSSHBoardARM64Userland(t *testing.T) {
	measureUserland(t, devroot.ARM64, "aarch64 userland (ELF of /bin/sh), glibc (/lib/ld-linux-aarch64.so.1), kernel x86_64 "+
		"(/proc/sys/kernel/arch): emulated, so the userland alone decides: toolchain aarch64, static", "aarch64-linux-gnu-gcc", "aarch64")
}

func TestSSHBoardARMHFUserland(t *testing.T) {
	measureUserland(t, devroot.ARMHF, "armhf userland (ELF of /bin/sh), glibc (/lib/ld-linux-armhf.so.3), kernel x86_64 "+
		"(/proc/sys/kernel/arch): emulated, so the userland alone decides: toolchain armv7, static", "arm-linux-gnueabihf-gcc", "arm")
}

func TestSSHBoardARMELUserland(t *testing.T) {
	measureUserland(t, devroot.ARMEL, "armel userland (ELF of /bin/sh), glibc (/lib/ld-linux.so.3), kernel x86_64 "+
		"(/proc/sys/kernel/arch): emulated, so the userland alone decides: toolchain armel, static", "arm-linux-gnueabi-gcc", "arm")
}
