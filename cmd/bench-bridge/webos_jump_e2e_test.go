package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/internal/sshdtest"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestWebOSThroughJumpHost runs `bench-bridge floor webos --host board` where board is a ~/.ssh/config name behind
// ProxyJump lab, in network namespaces that only the lab machine bridges: the board's key is unknown, a bare
// --accept-host-key prints the fingerprint to pass and records nothing, passing it records the key and the run
// completes on the board.
func TestWebOSThroughJumpHost(t *testing.T) {
	testenv.Require(t, "arm-linux-gnueabi-gcc", "apt-get install gcc-arm-linux-gnueabi (scripts/setup does it)")
	testenv.Require(t, "qemu-arm", "apt-get install qemu-user (scripts/setup does it)")
	l := sshdtest.StartLab(t)
	cache, err := build.CacheDir() // before HOME moves: the QuickJS build is shared
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("BENCH_BRIDGE_CACHE", cache)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("SSH_AUTH_SOCK", "")
	known := filepath.Join(home, ".ssh", "known_hosts")
	sshdtest.AppendLine(t, filepath.Join(home, ".ssh", "config"), l.SSHConfig(known, ""))
	sshdtest.AppendLine(t, known, l.Lab.KnownHostsLine(l.Lab.Addr)) // the lab machine is known, the board not yet
	boardKey, _, _, _, err := ssh.ParseAuthorizedKey([]byte(l.Board.HostKey))
	if err != nil {
		t.Fatal(err)
	}
	fp := ssh.FingerprintSHA256(boardKey)

	out := filepath.Join(t.TempDir(), "floor-webos.json")
	args := []string{"floor", "webos", "--host", "board", "--out", out, "--cases", "script_to_host_scalar", "--runs", "1", "--samples", "3",
		"--min-time", "2ms", "--run-prefix", "qemu-arm -cpu cortex-a8", "--workdir", t.TempDir()}
	_, stderr, code := run(t, append(args, "--accept-host-key")...)
	if code == 0 || !strings.Contains(stderr, "bench-bridge: error:") || !strings.Contains(stderr, "--accept-host-key "+fp) {
		t.Fatalf("bare --accept-host-key: exit %d\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(known); strings.Count(string(b), "\n") != 1 {
		t.Fatalf("a bare --accept-host-key recorded a key: %q", b)
	}
	stdout, stderr, code := run(t, append(args, "--accept-host-key", fp)...)
	if code != 0 {
		t.Fatalf("with the fingerprint: exit %d\nstdout:\n%s\nstderr:\n%s\nboard sshd:\n%s", code, stdout, stderr, l.Board.Log())
	}
	if b, _ := os.ReadFile(known); !strings.Contains(string(b), l.Board.KnownHostsLine(l.Board.Addr)) {
		t.Errorf("the board's key was not recorded: %q", b)
	}
	a := readArtifact(t, out)
	if !a.Complete || len(a.Cases) != 2 || !a.Device.Emulated {
		t.Errorf("artifact: complete=%v, %d cases, device %+v", a.Complete, len(a.Cases), a.Device)
	}
}
