package targets

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// channellessSSHServer is an ssh server on loopback that completes the handshake and the login, and then never
// accepts (nor refuses) a channel: a fault a real sshd cannot be made to produce. It returns the spec that reaches
// it, which names a toolchain, so that opening it runs nothing on it.
func channellessSSHServer(t *testing.T) Spec {
	t.Helper()
	_, hostPriv, _ := ed25519.GenerateKey(rand.Reader)
	hostSigner, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(ssh.ConnMetadata, ssh.PublicKey) (*ssh.Permissions, error) { return nil, nil }}
	cfg.AddHostKey(hostSigner)
	addr := serveLoopback(t, func(c net.Conn) {
		_, chans, reqs, err := ssh.NewServerConn(c, cfg)
		if err != nil {
			return
		}
		go ssh.DiscardRequests(reqs)
		for range chans {
			// never answered: neither accepted nor rejected, so the client's open waits
		}
	})

	dir := t.TempDir()
	_, clientPriv, _ := ed25519.GenerateKey(rand.Reader)
	block, err := ssh.MarshalPrivateKey(clientPriv, "")
	if err != nil {
		t.Fatal(err)
	}
	identity := filepath.Join(dir, "id_ed25519")
	os.WriteFile(identity, pem.EncodeToMemory(block), 0o600)
	known := filepath.Join(dir, "known_hosts")
	os.WriteFile(known, []byte(knownhosts.Line([]string{knownhosts.Normalize(addr)}, hostSigner.PublicKey())+"\n"), 0o600)
	return Spec{Kind: "ssh", Host: "bench@" + addr, Identity: identity, KnownHosts: known, Toolchain: "host"}
}

// TestSSHChannelThatNeverOpens logs in to a server that never opens a channel: every step ends at its bound with an
// error naming the device and the step, instead of hanging.
func TestSSHChannelThatNeverOpens(t *testing.T) {
	shortBound(t, &openOp, 300*time.Millisecond)
	t.Setenv("SSH_AUTH_SOCK", "")
	spec := channellessSSHServer(t)
	tgt, err := NewSSH(context.Background(), "board", spec, Overrides{})
	if err != nil {
		t.Fatalf("the handshake and login work on this server: %v", err)
	}
	defer tgt.Close()
	err = tgt.Run(context.Background(), "true", nil, io.Discard, io.Discard)
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "board (bench@127.0.0.1:") ||
		!strings.Contains(err.Error(), "opening an ssh session channel: no answer within 300ms") {
		t.Fatalf("run: %v", err)
	}
	// The connection was given up on: what follows fails at once, and still names the device.
	if _, err := tgt.Device(context.Background()); err == nil || !strings.Contains(err.Error(), "board (bench@127.0.0.1:") {
		t.Fatalf("device facts after the stall: %v", err)
	}

	// sftp opens a channel too: its subsystem has the same bound.
	tgt2, err := NewSSH(context.Background(), "board", spec, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt2.Close()
	err = tgt2.tr.push(context.Background(), strings.NewReader("x"), "/tmp/x")
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "opening the sftp subsystem: no answer within 300ms") {
		t.Fatalf("sftp: %v", err)
	}
}

// TestSSHAgentThatNeverAnswers: an agent that accepts the connection and says nothing costs its bound, and the
// error names it.
func TestSSHAgentThatNeverAnswers(t *testing.T) {
	shortBound(t, &agentOp, 200*time.Millisecond)
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, silent, until the listener closes
		}
	}()
	t.Setenv("SSH_AUTH_SOCK", sock)
	t.Setenv("HOME", t.TempDir()) // no ~/.ssh/id_* to fall back on
	_, _, err = sshAuth("", nil, false)
	if err == nil || !strings.Contains(err.Error(), "ssh-agent at "+sock+" did not give its keys within 200ms") {
		t.Fatalf("a silent agent: %v", err)
	}
}

// serveLoopback listens on a loopback port and hands each connection to serve, until the test ends; it returns the
// address.
func serveLoopback(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return ln.Addr().String()
}
