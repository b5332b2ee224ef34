package targets

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
)

// sshAddr is where an ssh target lives.
type sshAddr struct {
	User, Host, Port string
}

// String is user@host:port, the way errors name the device.
func (a sshAddr) String() string { return a.User + "@" + net.JoinHostPort(a.Host, a.Port) }

// hostPort is what known_hosts and the dialer take.
func (a sshAddr) hostPort() string { return net.JoinHostPort(a.Host, a.Port) }

// parseSSHHost reads [user@]host[:port]; an IPv6 host with a port is written [::1]:22.
func parseSSHHost(s string) (sshAddr, error) {
	a := sshAddr{Port: "22"}
	if u, h, ok := strings.Cut(s, "@"); ok {
		a.User, s = u, h
	}
	switch {
	case strings.HasPrefix(s, "["):
		h, p, err := net.SplitHostPort(s)
		if err != nil {
			h, p = strings.Trim(s, "[]"), a.Port
		}
		a.Host, a.Port = h, p
	case strings.Count(s, ":") == 1:
		a.Host, a.Port, _ = strings.Cut(s, ":")
	default:
		a.Host = s
	}
	if a.Host == "" || a.Port == "" || strings.ContainsAny(a.Host+a.User, " /") {
		return sshAddr{}, fmt.Errorf("host %q is not [user@]host[:port]", s)
	}
	if a.User == "" {
		if u, err := user.Current(); err == nil {
			a.User = u.Username
		}
	}
	return a, nil
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

// hostKeyAlgorithms turns the key formats known for a host into the algorithms to ask for, so that a host known by
// its ed25519 key is not asked for its RSA key (which would look like a changed key).
func hostKeyAlgorithms(known []ssh.PublicKey, allowed []string) []string {
	var algos []string
	for _, k := range known {
		for _, a := range allowed {
			if (a == k.Type() || (k.Type() == ssh.KeyAlgoRSA && strings.HasPrefix(a, "rsa-sha2-"))) && !slices.Contains(algos, a) {
				algos = append(algos, a)
			}
		}
	}
	return algos
}

// HostKeyError is a host key that was not accepted: unknown (Known is empty) or changed.
type HostKeyError struct {
	Addr  string        // [host]:port as known_hosts writes it
	File  string        // the known_hosts file
	Key   ssh.PublicKey // what the server offered
	Known []knownhosts.KnownKey
}

func (e *HostKeyError) Error() string {
	fp := e.Key.Type() + " " + ssh.FingerprintSHA256(e.Key)
	if len(e.Known) == 0 {
		return fmt.Sprintf("host key of %s is not in %s; it offered %s: check that fingerprint on the device "+
			"(ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub), then run again with --accept-host-key to record it", e.Addr, e.File, fp)
	}
	k := e.Known[0]
	return fmt.Sprintf("host key of %s has CHANGED: it offered %s, but %s:%d has %s %s; refused (someone may be "+
		"intercepting the connection). If the device was reinstalled, remove the old key with: ssh-keygen -R '%s' -f %s",
		e.Addr, fp, k.Filename, k.Line, k.Key.Type(), ssh.FingerprintSHA256(k.Key), e.Addr, e.File)
}

// hostKeys checks a server's key against a known_hosts file and records unknown keys when asked to.
type hostKeys struct {
	file   string
	accept bool
	log    io.Writer
	check  ssh.HostKeyCallback // nil while the file does not exist
}

func newHostKeys(file string, accept bool, log io.Writer) (*hostKeys, error) {
	h := &hostKeys{file: file, accept: accept, log: log}
	if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
		return h, nil
	}
	cb, err := knownhosts.New(file)
	if err != nil {
		return nil, fmt.Errorf("known_hosts %s: %w", file, err)
	}
	h.check = cb
	return h, nil
}

// known lists the keys the file has for addr: asking about a key that cannot be there makes knownhosts list them.
func (h *hostKeys) known(addr string) []ssh.PublicKey {
	if h.check == nil {
		return nil
	}
	probe, _ := ssh.NewPublicKey(ed25519.PublicKey(make([]byte, ed25519.PublicKeySize)))
	var ke *knownhosts.KeyError
	if err := h.check(addr, &net.TCPAddr{IP: net.IPv4zero}, probe); !errors.As(err, &ke) {
		return nil
	}
	var keys []ssh.PublicKey
	for _, k := range ke.Want {
		keys = append(keys, k.Key)
	}
	return keys
}

// callback is the ssh.HostKeyCallback: known keys pass, unknown ones are recorded only with accept, changed ones
// never pass.
func (h *hostKeys) callback(hostname string, remote net.Addr, key ssh.PublicKey) error {
	addr := knownhosts.Normalize(hostname)
	var known []knownhosts.KnownKey
	if h.check != nil {
		err := h.check(hostname, remote, key)
		var ke *knownhosts.KeyError
		if !errors.As(err, &ke) {
			return err // nil when known, or a revoked key
		}
		known = ke.Want
	}
	if len(known) > 0 || !h.accept {
		return &HostKeyError{Addr: addr, File: h.file, Key: key, Known: known}
	}
	if err := os.MkdirAll(filepath.Dir(h.file), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(h.file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("recording the host key: %w", err)
	}
	_, err = fmt.Fprintln(f, knownhosts.Line([]string{addr}, key))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("recording the host key in %s: %w", h.file, err)
	}
	fmt.Fprintf(h.log, "recorded host key of %s (%s %s) in %s\n", addr, key.Type(), ssh.FingerprintSHA256(key), h.file)
	return nil
}

// sshAuth collects the ways to log in: the identity file, the agent's keys, then the usual key files in ~/.ssh.
func sshAuth(identity string, legacy bool) (ssh.AuthMethod, io.Closer, error) {
	var signers []ssh.Signer
	var closer io.Closer = io.NopCloser(nil)
	if identity != "" {
		s, err := readKey(identity)
		if err != nil {
			return nil, nil, err
		}
		signers = append(signers, s)
	}
	if sock := os.Getenv("SSH_AUTH_SOCK"); sock != "" {
		if conn, err := net.Dial("unix", sock); err == nil {
			closer = conn
			if s, err := agent.NewClient(conn).Signers(); err == nil {
				signers = append(signers, s...)
			}
		}
	}
	if identity == "" {
		home, _ := os.UserHomeDir()
		for _, name := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
			if s, err := readKey(filepath.Join(home, ".ssh", name)); err == nil {
				signers = append(signers, s)
			}
		}
	}
	if len(signers) == 0 {
		closer.Close()
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

// dialSSH connects and logs in, and turns the usual failures into what to do about them.
func dialSSH(ctx context.Context, addr sshAddr, hk *hostKeys, identity string, legacy bool) (*ssh.Client, error) {
	auth, closer, err := sshAuth(identity, legacy)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	algos := sshAlgorithms(legacy)
	cfg := &ssh.ClientConfig{
		User:              addr.User,
		Auth:              []ssh.AuthMethod{auth},
		HostKeyCallback:   hk.callback,
		HostKeyAlgorithms: algos.HostKeys,
		Config:            ssh.Config{KeyExchanges: algos.KeyExchanges, Ciphers: algos.Ciphers, MACs: algos.MACs},
	}
	if k := hostKeyAlgorithms(hk.known(addr.hostPort()), algos.HostKeys); len(k) > 0 {
		cfg.HostKeyAlgorithms = k
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr.hostPort())
	if err != nil {
		return nil, fmt.Errorf("connecting: %w", err)
	}
	// The handshake has no context: a deadline stands in for it, and closing the socket for a cancel.
	deadline, _ := ctx.Deadline()
	conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	c, chans, reqs, err := ssh.NewClientConn(conn, addr.hostPort(), cfg)
	stop()
	if err != nil {
		conn.Close()
		return nil, explainDial(err, legacy)
	}
	conn.SetDeadline(time.Time{})
	return ssh.NewClient(c, chans, reqs), nil
}

// explainDial adds what to do to a failed handshake.
func explainDial(err error, legacy bool) error {
	var hk *HostKeyError
	var neg *ssh.AlgorithmNegotiationError
	switch {
	case errors.As(err, &hk):
		return hk
	case errors.As(err, &neg) && !legacy:
		return fmt.Errorf("%w; the device speaks only old algorithms: if it is an old device you trust on this network, "+
			"set legacy_algorithms = true in its [targets.NAME] section of the config", err)
	case strings.Contains(err.Error(), "unable to authenticate"):
		return fmt.Errorf("%w; the device refused the keys offered: add your public key to ~/.ssh/authorized_keys on it, "+
			"or pass --identity FILE", err)
	}
	return err
}
