package targets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// sshAddr is where an ssh target lives.
type sshAddr struct {
	User, Host, Port string
	Identities       []string  // IdentityFile entries of ~/.ssh/config
	Jumps            []sshAddr // ProxyJump hosts, in the order they are dialled
	KeyAlias         string    // HostKeyAlias: the name known_hosts has the host's key under
}

// String is user@host:port, the way errors name the device.
func (a sshAddr) String() string { return a.User + "@" + net.JoinHostPort(a.Host, a.Port) }

// hostPort is what the dialer takes.
func (a sshAddr) hostPort() string { return net.JoinHostPort(a.Host, a.Port) }

// keyName is what known_hosts is asked about: host:port, or the HostKeyAlias alone (port 22 reads as no port), as ssh
// does.
func (a sshAddr) keyName() string {
	if a.KeyAlias != "" {
		return net.JoinHostPort(a.KeyAlias, "22")
	}
	return a.hostPort()
}

// parseSSHHost reads [user@]host[:port] and resolves it through ~/.ssh/config as ssh does.
func parseSSHHost(s string) (sshAddr, error) {
	home, _ := os.UserHomeDir()
	c, err := loadSSHConfig(home)
	if err != nil {
		return sshAddr{}, err
	}
	return c.resolve(s)
}

// sshAlgorithms are what the client offers. The defaults are x/crypto's secure sets (which leave out SHA-1 key
// exchanges, CBC ciphers and ssh-rsa signatures); legacy adds the old ones that devices from 2011 still speak.
func sshAlgorithms(legacy bool) ssh.Algorithms {
	a := ssh.SupportedAlgorithms()
	a.MACs = slices.DeleteFunc(a.MACs, func(m string) bool { return m == ssh.HMACSHA1 })
	if legacy {
		old := ssh.InsecureAlgorithms()
		a.KeyExchanges = append(a.KeyExchanges, old.KeyExchanges...)
		a.Ciphers = append(a.Ciphers, old.Ciphers...)
		a.MACs = append(a.MACs, ssh.HMACSHA1)
		a.MACs = append(a.MACs, old.MACs...)
		a.HostKeys = append(a.HostKeys, old.HostKeys...)
		a.PublicKeyAuths = append(a.PublicKeyAuths, old.PublicKeyAuths...)
	}
	return a
}

// agentOp bounds every call to ssh-agent: listing its keys, and signing with one during the handshake (which has
// 20 s).
var agentOp = 30 * time.Second

// sshAuth collects the ways to log in, in ssh's order: the identity given (flag or config), then the host's
// IdentityFile entries in ~/.ssh/config, then the agent's keys; the usual key files in ~/.ssh only when neither
// names a file.
func sshAuth(identity string, configured []string, legacy bool) (ssh.AuthMethod, io.Closer, error) {
	var signers []ssh.Signer
	var closer io.Closer = io.NopCloser(nil)
	if identity != "" {
		s, err := readKey(identity)
		if err != nil {
			return nil, nil, err
		}
		signers = append(signers, s)
	}
	for _, f := range configured { // as in ssh, a missing IdentityFile of the config is passed over
		s, err := readKey(f)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("IdentityFile of ~/.ssh/config: %w", err)
		}
		if err == nil {
			signers = append(signers, s)
		}
	}
	var agentErr error
	if sock := os.Getenv("SSH_AUTH_SOCK"); sock != "" {
		if conn, err := net.DialTimeout("unix", sock, agentOp); err == nil {
			closer = conn
			// The agent is asked for its keys now and signs during the handshake: both within the bound.
			conn.SetDeadline(time.Now().Add(agentOp))
			s, err := agent.NewClient(conn).Signers()
			if err == nil {
				signers = append(signers, s...)
			} else {
				agentErr = fmt.Errorf("ssh-agent at %s did not give its keys within %s: %w", sock, agentOp, err)
			}
		}
	}
	if identity == "" && len(configured) == 0 {
		home, _ := os.UserHomeDir()
		for _, name := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
			if s, err := readKey(filepath.Join(home, ".ssh", name)); err == nil {
				signers = append(signers, s)
			}
		}
	}
	if len(signers) == 0 {
		closer.Close()
		if agentErr != nil {
			return nil, nil, agentErr
		}
		return nil, nil, errors.New("no ssh key to log in with: pass --identity FILE, set identity in the config, or load a key into ssh-agent")
	}
	return ssh.PublicKeys(rsaSigners(signers, legacy)...), closer, nil
}

// rsaSigners pins what RSA keys sign with. By default that is SHA-2 only. With legacy, each RSA key is also offered
// signing with SHA-1 (ssh-rsa): an old server may list rsa-sha2-256 among the algorithms it knows and still refuse it.
func rsaSigners(signers []ssh.Signer, legacy bool) []ssh.Signer {
	var out []ssh.Signer
	for _, s := range signers {
		as, ok := s.(ssh.AlgorithmSigner)
		if !ok || s.PublicKey().Type() != ssh.KeyAlgoRSA {
			out = append(out, s)
			continue
		}
		if ms, err := ssh.NewSignerWithAlgorithms(as, []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256}); err == nil {
			out = append(out, ms)
		}
		if legacy {
			if ms, err := ssh.NewSignerWithAlgorithms(as, []string{ssh.KeyAlgoRSA}); err == nil {
				out = append(out, ms)
			}
		}
	}
	return out
}

func readKey(file string) (ssh.Signer, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("identity: %w", err)
	}
	s, err := ssh.ParsePrivateKey(data)
	var pm *ssh.PassphraseMissingError
	if errors.As(err, &pm) {
		return nil, fmt.Errorf("identity %s is protected by a passphrase: load it into ssh-agent (ssh-add %s) and run again", file, file)
	}
	if err != nil {
		return nil, fmt.Errorf("identity %s: %w", file, err)
	}
	return s, nil
}

// sshStepTimeout bounds each step of a connection: reaching a host (directly or through a jump host), then its
// handshake and login.
var sshStepTimeout = 20 * time.Second // a variable for the tests

// dialSSH connects and logs in, through the jump hosts when there are any: each is an ssh client that the next
// connection is dialled through, with its own host key check and login. The returned client closes them all.
func dialSSH(ctx context.Context, addr sshAddr, hk *hostKeys, identity string, legacy bool) (*ssh.Client, error) {
	var via *ssh.Client // the last jump host reached; closing it closes those before it
	closeAll := func() {
		if via != nil {
			via.Close()
		}
	}
	for _, hop := range addr.Jumps {
		c, err := dialHop(ctx, via, hop, hk, "", legacy, true)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("jump host %s: %w", hop, err)
		}
		via = c
	}
	c, err := dialHop(ctx, via, addr, hk, identity, legacy, false)
	if err != nil {
		closeAll()
		if via != nil {
			return nil, fmt.Errorf("through jump host %s: %w", addr.Jumps[len(addr.Jumps)-1], err)
		}
		return nil, err
	}
	return c, nil
}

// dialHop reaches addr, directly or through the jump host via, and logs in; the connection it returns closes via
// when it closes. jump says addr is itself a jump host, for the hints.
func dialHop(ctx context.Context, via *ssh.Client, addr sshAddr, hk *hostKeys, identity string, legacy, jump bool) (*ssh.Client, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, sshStepTimeout, fmt.Errorf("%s did not finish the ssh handshake within %s", addr.hostPort(), sshStepTimeout))
	defer cancel()
	auth, closer, err := sshAuth(identity, addr.Identities, legacy)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	algos := sshAlgorithms(legacy)
	known, ca := hk.known(addr.keyName())
	cfg := &ssh.ClientConfig{
		User:              addr.User,
		Auth:              []ssh.AuthMethod{auth},
		HostKeyCallback:   hk.callback,
		HostKeyAlgorithms: hostKeyAlgorithms(known, ca, algos.HostKeys),
		Config:            ssh.Config{KeyExchanges: algos.KeyExchanges, Ciphers: algos.Ciphers, MACs: algos.MACs},
	}
	var conn net.Conn
	if via == nil {
		conn, err = (&net.Dialer{}).DialContext(ctx, "tcp", addr.hostPort())
	} else {
		conn, err = via.DialContext(ctx, "tcp", addr.hostPort())
		if err == nil {
			conn = &viaConn{Conn: conn, via: via}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", addr.hostPort(), err)
	}
	// The handshake has no context: a deadline stands in for it (a channel through a jump host takes none), and
	// closing the connection for a cancel.
	deadline, _ := ctx.Deadline()
	conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	c, chans, reqs, err := ssh.NewClientConn(conn, addr.keyName(), cfg)
	stop()
	if err != nil {
		conn.Close()
		if ctx.Err() != nil { // the step's deadline (or the caller's end) closed the connection
			return nil, fmt.Errorf("%w (%v)", context.Cause(ctx), err)
		}
		return nil, explainDial(err, legacy, jump)
	}
	conn.SetDeadline(time.Time{})
	return ssh.NewClient(c, chans, reqs), nil
}

// viaConn is a connection through a jump host: closing it closes the jump host's connection too.
type viaConn struct {
	net.Conn
	via *ssh.Client
}

func (v *viaConn) Close() error {
	err := v.Conn.Close()
	v.via.Close()
	return err
}

// explainDial adds what to do to a failed handshake; a jump host takes its key from ~/.ssh/config, not --identity.
func explainDial(err error, legacy, jump bool) error {
	var hk *HostKeyError
	var neg *ssh.AlgorithmNegotiationError
	switch {
	case errors.As(err, &hk):
		return hk
	case errors.As(err, &neg) && !legacy:
		return fmt.Errorf("%w; the device speaks only old algorithms: if it is an old device you trust on this network, "+
			"set legacy_algorithms = true in its [targets.NAME] section of the config", err)
	case strings.Contains(err.Error(), "unable to authenticate") && jump:
		return fmt.Errorf("%w; the jump host refused the keys offered: give its Host entry in ~/.ssh/config an IdentityFile, "+
			"or load the key into ssh-agent", err)
	case strings.Contains(err.Error(), "unable to authenticate"):
		return fmt.Errorf("%w; the device refused the keys offered: add your public key to ~/.ssh/authorized_keys on it, "+
			"or pass --identity FILE", err)
	}
	return err
}
