package targets_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/sshdtest"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
	"github.com/bench-bridge/bench-bridge/targets"
)

// TestSSHProxyJump: a board in a network namespace that only a lab machine (in another namespace) reaches, named
// in ~/.ssh/config with ProxyJump, as people set it up. bench-bridge on the host reaches it through one jump host,
// and through two (the second written user@host:port and reachable only from the first), each hop with its own
// identity and host key (the board's under a HostKeyAlias); OpenSSH's ssh reaches it with the same files.
func TestSSHProxyJump(t *testing.T) {
	l := sshdtest.StartLab(t)
	lab, inner, board := l.Lab, l.Inner, l.Board
	labInner, boardAddr := l.LabInner, strings.Split(board.Addr, ":")[0]

	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("SSH_AUTH_SOCK", "") // each hop logs in with its own IdentityFile
	sshDir := filepath.Join(home, ".ssh")
	known := filepath.Join(sshDir, "known_hosts")
	sshdtest.AppendLine(t, filepath.Join(sshDir, "config"), l.SSHConfig(known, fmt.Sprintf(`Host board-two-hops
  HostName %s
  IdentityFile %s
  ProxyJump lab,%s@%s
  HostKeyAlias touchpad-in-lab
Host %s
  IdentityFile %s
`, boardAddr, board.Identity, inner.User, inner.Addr, labInner, inner.Identity)))
	for _, s := range []*sshdtest.Server{lab, inner, board} {
		sshdtest.AppendLine(t, known, s.KnownHostsLine(s.Addr))
	}
	aliasLine := "touchpad-in-lab " + board.HostKey
	sshdtest.AppendLine(t, known, aliasLine)

	for _, host := range []string{"board", "board-two-hops"} {
		t.Run(host, func(t *testing.T) {
			tgt := openHost(t, host, targets.Overrides{})
			ctx := context.Background()
			var out bytes.Buffer
			if err := tgt.Run(ctx, "/bin/sh", []string{"-c", "echo $SSH_CONNECTION"}, &out, &bytes.Buffer{}); err != nil {
				t.Fatal(err)
			}
			// client address, port, server address, port: the board saw the lab machine connect, not the host.
			if f := strings.Fields(out.String()); len(f) != 4 || f[0] != labInner || f[2] != boardAddr {
				t.Fatalf("SSH_CONNECTION on the board %q, want from %s to %s", out.String(), labInner, boardAddr)
			}
			remote, err := tgt.Push(ctx, script(t, "prog", "echo pushed through the jump host\n"))
			if err != nil {
				t.Fatal(err)
			}
			out.Reset()
			if err := tgt.Run(ctx, remote, nil, &out, &bytes.Buffer{}); err != nil || out.String() != "pushed through the jump host\n" {
				t.Fatalf("run: %q, %v", out.String(), err)
			}
			if err := tgt.Close(); err != nil {
				t.Fatal(err)
			}
			if m := tgt.Capabilities().Machine; !strings.Contains(m, boardAddr) {
				t.Errorf("machine identity %v", tgt)
			}
			sshClient := testenv.Require(t, "ssh", "apt-get install openssh-client")
			cmd := exec.Command(sshClient, "-F", filepath.Join(sshDir, "config"), host, "echo", "ok")
			if b, err := cmd.CombinedOutput(); err != nil || string(b) != "ok\n" {
				t.Errorf("OpenSSH's ssh with the same config: %v\n%s", err, b)
			}
		})
	}

	// As in ssh, --identity is tried first and the host's IdentityFile after it: a key the board does not take does
	// not keep the configured one from logging in.
	openHost(t, "board", targets.Overrides{Identity: lab.Identity}).Close()

	// With HostKeyAlias the board's key is looked up under the alias, not its address.
	os.WriteFile(known, []byte(lab.KnownHostsLine(lab.Addr)+"\n"+inner.KnownHostsLine(inner.Addr)+"\n"+aliasLine+"\n"), 0o600)
	openHost(t, "board-two-hops", targets.Overrides{}).Close()

	// A jump host whose key is not known is refused by name; the first connection to a new lab records the jump
	// host's and the board's keys at once when given both fingerprints.
	os.WriteFile(known, nil, 0o600)
	var hk *targets.HostKeyError
	_, err := tryHost(t, "board", targets.Overrides{})
	if !errors.As(err, &hk) || !strings.Contains(err.Error(), "jump host "+lab.User+"@"+lab.Addr) || hk.Addr != "["+strings.Split(lab.Addr, ":")[0]+"]:2222" {
		t.Fatalf("unknown jump host: %v", err)
	}
	_, err = tryHost(t, "board", targets.Overrides{AcceptHostKey: fingerprint(t, lab)})
	if !errors.As(err, &hk) || hk.Addr != boardAddr || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("the board with only the jump host's fingerprint: %v", err)
	}
	os.WriteFile(known, nil, 0o600)
	openHost(t, "board", targets.Overrides{AcceptHostKey: fingerprint(t, lab) + "," + fingerprint(t, board)}).Close()
	b, _ := os.ReadFile(known)
	if want := lab.KnownHostsLine(lab.Addr) + "\n" + board.KnownHostsLine(board.Addr) + "\n"; string(b) != want {
		t.Errorf("known_hosts %q, want %q", b, want)
	}
}

// openHost opens the built-in webos target with --host set to a name of ~/.ssh/config.
func openHost(t *testing.T, host string, o targets.Overrides) targets.Target {
	t.Helper()
	tgt, err := tryHost(t, host, o)
	if err != nil {
		t.Fatal(err)
	}
	return tgt
}

func tryHost(t *testing.T, host string, o targets.Overrides) (targets.Target, error) {
	t.Helper()
	o.Host, o.Workdir = host, t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tgt, err := targets.Open(ctx, "webos", nil, o)
	if err == nil {
		t.Cleanup(func() { tgt.Close() })
	}
	return tgt, err
}
