package targets

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/sshdtest"
)

// TestSSHJumpDeadline: a board behind a jump host that takes the connection and never speaks ssh. A channel through
// a jump host has no deadlines of its own; the handshake still ends at the step's bound, with an error naming the
// board.
func TestSSHJumpDeadline(t *testing.T) {
	l := sshdtest.StartLab(t)
	boardHost, _, _ := net.SplitHostPort(l.Board.Addr)
	labHost, labPort, _ := net.SplitHostPort(l.Lab.Addr)
	silent, err := l.BoardNS.Listen("tcp", net.JoinHostPort(boardHost, "2200"))
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		var held []net.Conn // open and silent until the test ends
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	old := sshStepTimeout
	sshStepTimeout = 2 * time.Second
	t.Cleanup(func() { sshStepTimeout = old })
	t.Setenv("SSH_AUTH_SOCK", "")

	hk, err := newHostKeys(l.Lab.KnownHosts, "", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	addr := sshAddr{User: l.Board.User, Host: boardHost, Port: "2200",
		Jumps: []sshAddr{{User: l.Lab.User, Host: labHost, Port: labPort, Identities: []string{l.Lab.Identity}}}}
	done := make(chan error, 1)
	go func() {
		_, err := dialSSH(context.Background(), addr, hk, l.Board.Identity, false)
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(time.Minute): // far past the bound: not a timing assertion, a hang
		t.Fatal("the handshake through the jump host did not end")
	}
	if err == nil || !strings.Contains(err.Error(), "did not finish the ssh handshake within 2s") ||
		!strings.Contains(err.Error(), net.JoinHostPort(boardHost, "2200")) || !strings.Contains(err.Error(), "through jump host") {
		t.Fatalf("silent board: %v", err)
	}
}
