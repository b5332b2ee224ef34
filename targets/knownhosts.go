package targets

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// AcceptHostKeyUnchecked is what a bare --accept-host-key stands for: the user has not said which key they checked,
// so nothing is recorded (none, as --help shows it) and the error prints the fingerprint to pass.
const AcceptHostKeyUnchecked = "none"

// maxKnownHostsLine is the longest line x/crypto's known_hosts reader takes (bufio.Scanner's limit).
const maxKnownHostsLine = bufio.MaxScanTokenSize

// HostKeyError is a host key that was not accepted: unknown (Known is empty), changed, revoked, or not the one
// --accept-host-key named.
type HostKeyError struct {
	Addr    string        // [host]:port as known_hosts writes it
	File    string        // the known_hosts file
	Key     ssh.PublicKey // what the server offered
	Known   []knownhosts.KnownKey
	Revoked *knownhosts.KnownKey // the @revoked line that names Key
	Accept  string               // what --accept-host-key said: fingerprints, AcceptHostKeyUnchecked, or empty
}

func (e *HostKeyError) Error() string {
	fp := e.Key.Type() + " " + ssh.FingerprintSHA256(e.Key)
	want := ssh.FingerprintSHA256(e.Key)
	switch {
	case e.Revoked != nil:
		return fmt.Sprintf("host key of %s (%s) is marked @revoked in %s:%d; refused", e.Addr, fp, e.Revoked.Filename, e.Revoked.Line)
	case len(e.Known) > 0:
		k := e.Known[0]
		return fmt.Sprintf("host key of %s has CHANGED: it offered %s, but %s:%d has %s %s; refused (someone may be "+
			"intercepting the connection). If the device was reinstalled, remove the old key with: ssh-keygen -R '%s' -f %s",
			e.Addr, fp, k.Filename, k.Line, k.Key.Type(), ssh.FingerprintSHA256(k.Key), e.Addr, e.File)
	case e.Accept == AcceptHostKeyUnchecked:
		return fmt.Sprintf("--accept-host-key takes the fingerprint you checked: %s offered %s; check it on the device "+
			"(ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub), then run again with --accept-host-key %s", e.Addr, fp, want)
	case e.Accept != "":
		return fmt.Sprintf("host key of %s does not match --accept-host-key: it offered %s, you passed %s; nothing recorded "+
			"(check the fingerprint on the device again: someone may be intercepting the connection; a jump host's and the "+
			"board's fingerprints go together, separated by a comma)", e.Addr, fp, e.Accept)
	}
	return fmt.Sprintf("host key of %s is not in %s; it offered %s: check that fingerprint on the device "+
		"(ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub), then run again with --accept-host-key %s to record it", e.Addr, e.File, fp, want)
}

// hostKeys checks a server's key against a known_hosts file and records an unknown key when it is the one the user
// checked.
type hostKeys struct {
	file     string
	accept   string   // as passed (normalized): fingerprints, AcceptHostKeyUnchecked, or empty
	accepted []string // the fingerprints of keys to record
	log      io.Writer
	check    ssh.HostKeyCallback // nil while the file does not exist
	facts    knownHostsFacts
}

// knownHostsFacts are what the x/crypto reader does not tell: which lines are certificate authorities, and whether
// the file hashes its host names.
type knownHostsFacts struct {
	caLines map[int]bool
	hashed  bool
}

// newHostKeys reads file; accept is what --accept-host-key said: one fingerprint, or several separated by commas
// (a board and the jump host in front of it), or AcceptHostKeyUnchecked.
func newHostKeys(file, accept string, log io.Writer) (*hostKeys, error) {
	h := &hostKeys{file: file, accept: accept, log: log}
	if accept != "" && accept != AcceptHostKeyUnchecked {
		for _, a := range strings.Split(accept, ",") {
			fp, err := parseFingerprint(strings.TrimSpace(a))
			if err != nil {
				return nil, err
			}
			h.accepted = append(h.accepted, fp)
		}
		h.accept = strings.Join(h.accepted, ",")
	}
	facts, err := scanKnownHosts(file)
	if errors.Is(err, os.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return nil, err
	}
	cb, err := knownhosts.New(file)
	if err != nil {
		return nil, fmt.Errorf("known_hosts %s: %w", file, err)
	}
	h.check, h.facts = cb, facts
	return h, nil
}

// parseFingerprint checks that s is a SHA256 fingerprint as ssh-keygen -l prints it (with or without base64 padding).
func parseFingerprint(s string) (string, error) {
	b64, ok := strings.CutPrefix(s, "SHA256:")
	b64 = strings.TrimRight(b64, "=")
	if raw, err := base64.RawStdEncoding.DecodeString(b64); !ok || err != nil || len(raw) != 32 {
		return "", fmt.Errorf("--accept-host-key %q is not a host key fingerprint: pass the SHA256:... that ssh-keygen -lf "+
			"/etc/ssh/ssh_host_ed25519_key.pub prints on the device", s)
	}
	return "SHA256:" + b64, nil
}

// scanKnownHosts reads the file once line by line, as x/crypto's reader will, but refuses a line that reader cannot
// take (it would fail with no line number) and notes the facts it does not give out.
func scanKnownHosts(file string) (knownHostsFacts, error) {
	facts := knownHostsFacts{caLines: map[int]bool{}}
	f, err := os.Open(file)
	if err != nil {
		return facts, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, maxKnownHostsLine)
	for n := 1; ; n++ {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return facts, fmt.Errorf("known_hosts %s:%d: the line is longer than %d KiB, which no host key needs: remove it",
				file, n, maxKnownHostsLine>>10)
		}
		if err != nil && err != io.EOF {
			return facts, fmt.Errorf("known_hosts %s: %w", file, err)
		}
		fields := bytes.Fields(line)
		if len(fields) > 1 && string(fields[0]) == "@cert-authority" {
			facts.caLines[n] = true
		}
		if len(fields) > 1 && fields[0][0] == '@' {
			fields = fields[1:]
		}
		if len(fields) > 0 && bytes.HasPrefix(fields[0], []byte("|1|")) {
			facts.hashed = true
		}
		if err == io.EOF {
			return facts, nil
		}
	}
}

// known lists the file's plain keys for addr and whether a certificate authority covers it: asking about a key that
// cannot be there makes knownhosts list every line that matches.
func (h *hostKeys) known(addr string) (keys []ssh.PublicKey, ca bool) {
	if h.check == nil {
		return nil, false
	}
	probe, _ := ssh.NewPublicKey(ed25519.PublicKey(make([]byte, ed25519.PublicKeySize)))
	var ke *knownhosts.KeyError
	if err := h.check(addr, &net.TCPAddr{IP: net.IPv4zero}, probe); !errors.As(err, &ke) {
		return nil, false
	}
	for _, k := range ke.Want {
		if h.facts.caLines[k.Line] {
			ca = true
		} else {
			keys = append(keys, k.Key)
		}
	}
	return keys, ca
}

// plain drops the @cert-authority lines: they are not keys of the host, so a plain key offered where only an
// authority is known is unknown, not changed.
func (h *hostKeys) plain(want []knownhosts.KnownKey) []knownhosts.KnownKey {
	var out []knownhosts.KnownKey
	for _, k := range want {
		if !h.facts.caLines[k.Line] {
			out = append(out, k)
		}
	}
	return out
}

// callback is the ssh.HostKeyCallback: known keys and certificates of a known authority pass, revoked and changed
// keys never do, and an unknown key is recorded only when its fingerprint is the one the user passed.
func (h *hostKeys) callback(hostname string, remote net.Addr, key ssh.PublicKey) error {
	e := &HostKeyError{Addr: knownhosts.Normalize(hostname), File: h.file, Key: key, Accept: h.accept}
	if h.check != nil {
		err := h.check(hostname, remote, key)
		var ke *knownhosts.KeyError
		var re *knownhosts.RevokedError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &re):
			e.Revoked = &re.Revoked
			return e
		case !errors.As(err, &ke):
			return fmt.Errorf("host certificate of %s refused: %w", e.Addr, err)
		}
		e.Known = h.plain(ke.Want)
	}
	if len(e.Known) > 0 || !slices.Contains(h.accepted, ssh.FingerprintSHA256(key)) {
		return e
	}
	return h.record(e.Addr, key)
}

// record appends the key, with the host name hashed when the file hashes its names (ssh's HashKnownHosts).
func (h *hostKeys) record(addr string, key ssh.PublicKey) error {
	if err := os.MkdirAll(filepath.Dir(h.file), 0o700); err != nil {
		return err
	}
	name := addr
	if h.facts.hashed {
		name = knownhosts.HashHostname(addr)
	}
	f, err := os.OpenFile(h.file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("recording the host key: %w", err)
	}
	_, err = fmt.Fprintln(f, knownhosts.Line([]string{name}, key))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("recording the host key in %s: %w", h.file, err)
	}
	fmt.Fprintf(h.log, "recorded host key of %s (%s %s) in %s\n", addr, key.Type(), ssh.FingerprintSHA256(key), h.file)
	return nil
}

// hostKeyAlgorithms turns what known_hosts has for a host into the algorithms to ask for, so that a host known by
// its ed25519 key is not asked for its RSA key (which would look like a changed key), and a host whose authority is
// known is asked for its certificate first.
func hostKeyAlgorithms(known []ssh.PublicKey, ca bool, allowed []string) []string {
	var algos []string
	if ca {
		for _, a := range allowed {
			if strings.Contains(a, "-cert-") {
				algos = append(algos, a)
			}
		}
	}
	for _, k := range known {
		for _, a := range allowed {
			if (a == k.Type() || (k.Type() == ssh.KeyAlgoRSA && strings.HasPrefix(a, "rsa-sha2-"))) && !slices.Contains(algos, a) {
				algos = append(algos, a)
			}
		}
	}
	if len(known) == 0 { // unknown, or known only through an authority: any plain key, to be checked by fingerprint
		for _, a := range allowed {
			if !strings.Contains(a, "-cert-") && !slices.Contains(algos, a) {
				algos = append(algos, a)
			}
		}
	}
	return algos
}
