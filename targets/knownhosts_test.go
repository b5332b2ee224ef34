package targets_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/bench-bridge/bench-bridge/internal/sshdtest"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
	"github.com/bench-bridge/bench-bridge/targets"
)

// openKnown connects to srv checking its key against the known_hosts file known.
func openKnown(t *testing.T, srv *sshdtest.Server, known string, o targets.Overrides) (targets.Target, error) {
	t.Helper()
	o.KnownHosts = known
	return open(t, srv, targets.Spec{}, o)
}

// fingerprint is what ssh-keygen -lf prints for the server's host key.
func fingerprint(t *testing.T, srv *sshdtest.Server) string {
	t.Helper()
	k, _, _, _, err := ssh.ParseAuthorizedKey([]byte(srv.HostKey))
	if err != nil {
		t.Fatal(err)
	}
	return ssh.FingerprintSHA256(k)
}

// keygenFinds asks OpenSSH's own ssh-keygen -F whether file has an entry for addr: what bench-bridge records must be
// read by ssh as well.
func keygenFinds(t *testing.T, file, addr string) bool {
	t.Helper()
	keygen := testenv.Require(t, "ssh-keygen", "apt-get install openssh-client")
	out, err := exec.Command(keygen, "-F", knownhosts.Normalize(addr), "-f", file).CombinedOutput()
	return err == nil && strings.Contains(string(out), "found")
}

// TestSSHHostKeys: an unknown host is refused with its fingerprint; --accept-host-key records the key only when it
// is given that fingerprint (bare, or with another one, nothing is recorded); a changed key is refused even then.
func TestSSHHostKeys(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{})
	fp := fingerprint(t, srv)
	known := filepath.Join(t.TempDir(), "ssh", "known_hosts")
	notWritten := func(what string) {
		t.Helper()
		if _, err := os.Stat(known); err == nil {
			t.Fatalf("%s: known_hosts written", what)
		}
	}
	var hk *targets.HostKeyError
	_, err := openKnown(t, srv, known, targets.Overrides{})
	if !errors.As(err, &hk) || !strings.Contains(err.Error(), "--accept-host-key "+fp) || !strings.Contains(err.Error(), "ssh-ed25519") {
		t.Fatalf("unknown host: %v", err)
	}
	notWritten("without --accept-host-key")

	_, err = openKnown(t, srv, known, targets.Overrides{AcceptHostKey: targets.AcceptHostKeyUnchecked})
	if !errors.As(err, &hk) || !strings.Contains(err.Error(), "takes the fingerprint") || !strings.Contains(err.Error(), "--accept-host-key "+fp) {
		t.Fatalf("bare --accept-host-key: %v", err)
	}
	notWritten("bare --accept-host-key")

	other := sshdtest.Start(t, sshdtest.Options{})
	otherFP := fingerprint(t, other)
	_, err = openKnown(t, srv, known, targets.Overrides{AcceptHostKey: otherFP})
	if !errors.As(err, &hk) || !strings.Contains(err.Error(), "does not match") || !strings.Contains(err.Error(), fp) ||
		!strings.Contains(err.Error(), otherFP) {
		t.Fatalf("another fingerprint: %v", err)
	}
	notWritten("a fingerprint that does not match")

	if _, err = openKnown(t, srv, known, targets.Overrides{AcceptHostKey: "yes"}); err == nil ||
		!strings.Contains(err.Error(), `--accept-host-key "yes" is not a host key fingerprint`) {
		t.Fatalf("not a fingerprint: %v", err)
	}

	var log bytes.Buffer
	if _, err := openKnown(t, srv, known, targets.Overrides{AcceptHostKey: fp, Log: &log}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(known)
	if string(b) != srv.KnownHostsLine(srv.Addr)+"\n" || !strings.Contains(log.String(), "recorded host key") {
		t.Fatalf("known_hosts %q, want the plain line %q; log %q", b, srv.KnownHostsLine(srv.Addr), log.String())
	}
	if !keygenFinds(t, known, srv.Addr) {
		t.Errorf("ssh-keygen -F does not find the recorded entry")
	}
	if _, err := openKnown(t, srv, known, targets.Overrides{}); err != nil {
		t.Fatalf("recorded key not accepted: %v", err)
	}

	// Another server's key under this address: the device changed, or someone is in the middle. Passing the new
	// key's fingerprint does not record it over the old one.
	wrong := filepath.Join(t.TempDir(), "known_hosts")
	sshdtest.AppendLine(t, wrong, other.KnownHostsLine(srv.Addr))
	_, err = openKnown(t, srv, wrong, targets.Overrides{AcceptHostKey: fp})
	if !errors.As(err, &hk) || len(hk.Known) == 0 || !strings.Contains(err.Error(), "CHANGED") || !strings.Contains(err.Error(), "ssh-keygen -R") {
		t.Fatalf("changed key: %v", err)
	}
	if b, _ := os.ReadFile(wrong); strings.Count(string(b), "\n") != 1 {
		t.Errorf("a changed key was recorded: %q", b)
	}
}

// TestSSHHostKeysHashed: in a file that hashes its host names (ssh-keygen -H), the recorded entry is hashed too,
// and both bench-bridge and ssh-keygen find it.
func TestSSHHostKeysHashed(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{})
	keygen := testenv.Require(t, "ssh-keygen", "apt-get install openssh-client")
	known := filepath.Join(t.TempDir(), "known_hosts")
	sshdtest.AppendLine(t, known, "lab.example "+srv.HostKey)
	if out, err := exec.Command(keygen, "-H", "-f", known).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen -H: %v\n%s", err, out)
	}
	if _, err := openKnown(t, srv, known, targets.Overrides{AcceptHostKey: fingerprint(t, srv)}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(known)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "|1|") || strings.Contains(string(b), "127.0.0.1") {
		t.Fatalf("known_hosts %q: want a second, hashed entry", b)
	}
	if !keygenFinds(t, known, srv.Addr) {
		t.Errorf("ssh-keygen -F does not find the hashed entry")
	}
	if _, err := openKnown(t, srv, known, targets.Overrides{}); err != nil {
		t.Fatalf("hashed entry not accepted: %v", err)
	}
}

// TestSSHHostCertificate: a host whose certificate (ssh-keygen -s, HostCertificate in sshd_config) is signed by an
// @cert-authority of known_hosts is accepted; an authority that did not sign it, a changed plain key and a
// @revoked key are refused; a host known only through an authority that offers a plain key is unknown, not changed.
func TestSSHHostCertificate(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{HostCertificate: true})
	plain := sshdtest.Start(t, sshdtest.Options{}) // no certificate: a plain key only
	other := sshdtest.Start(t, sshdtest.Options{HostCertificate: true})
	knownFile := func(lines ...string) string {
		f := filepath.Join(t.TempDir(), "known_hosts")
		for _, l := range lines {
			sshdtest.AppendLine(t, f, l)
		}
		return f
	}
	ca := func(s *sshdtest.Server, pattern string) string { return "@cert-authority " + pattern + " " + s.CAKey }
	port := strings.TrimPrefix(srv.Addr, "127.0.0.1:") // x/crypto matches a pattern's port exactly, and * only port 22

	for _, pattern := range []string{"[127.0.0.1]:" + port, "[127.0.0.*]:" + port} {
		tgt, err := openKnown(t, srv, knownFile(ca(srv, pattern)), targets.Overrides{})
		if err != nil {
			t.Fatalf("certificate of a known authority (%s): %v\nsshd:\n%s", pattern, err, srv.Log())
		}
		tgt.Close()
	}
	if _, err := openKnown(t, srv, knownFile(ca(other, "[127.0.0.1]:"+port)), targets.Overrides{}); err == nil ||
		!strings.Contains(err.Error(), "certificate") {
		t.Fatalf("a certificate of another authority: %v", err)
	}

	var hk *targets.HostKeyError
	_, err := openKnown(t, plain, knownFile(ca(srv, knownhosts.Normalize(plain.Addr)), other.KnownHostsLine(plain.Addr)), targets.Overrides{})
	if !errors.As(err, &hk) || !strings.Contains(err.Error(), "CHANGED") {
		t.Fatalf("a changed plain key next to an authority: %v", err)
	}
	onlyCA := knownFile(ca(srv, knownhosts.Normalize(plain.Addr)))
	_, err = openKnown(t, plain, onlyCA, targets.Overrides{})
	if !errors.As(err, &hk) || strings.Contains(err.Error(), "CHANGED") || !strings.Contains(err.Error(), "--accept-host-key SHA256:") {
		t.Fatalf("a plain key where only an authority is known: %v", err)
	}
	if _, err := openKnown(t, plain, onlyCA, targets.Overrides{AcceptHostKey: fingerprint(t, plain)}); err != nil {
		t.Fatalf("recording a plain key next to an authority: %v", err)
	}

	revoked := knownFile(plain.KnownHostsLine(plain.Addr), "@revoked * "+plain.HostKey)
	_, err = openKnown(t, plain, revoked, targets.Overrides{AcceptHostKey: fingerprint(t, plain)})
	if !errors.As(err, &hk) || hk.Revoked == nil || !strings.Contains(err.Error(), "@revoked") {
		t.Fatalf("a revoked key: %v", err)
	}
	_, err = openKnown(t, srv, knownFile(ca(srv, "[127.0.0.1]:"+port), "@revoked * "+srv.HostKey), targets.Overrides{})
	if err == nil || !strings.Contains(err.Error(), "revoked") {
		t.Fatalf("a certificate for a revoked key: %v", err)
	}
}

// TestSSHKnownHostsLongLine: a line longer than x/crypto's reader takes is an error naming the file and line, at
// once, even without a newline in 8 MiB; a long line under the limit is fine.
func TestSSHKnownHostsLongLine(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{})
	fine := filepath.Join(t.TempDir(), "known_hosts")
	os.WriteFile(fine, []byte(srv.KnownHostsLine(srv.Addr)+"\n# "+strings.Repeat("x", 60<<10)+"\n"), 0o600)
	if _, err := openKnown(t, srv, fine, targets.Overrides{}); err != nil {
		t.Fatalf("a 60 KiB comment: %v", err)
	}
	for name, tail := range map[string]string{"70 KiB": strings.Repeat("x", 70<<10) + "\n", "8 MiB, no newline": strings.Repeat("y", 8<<20)} {
		long := filepath.Join(t.TempDir(), "known_hosts")
		os.WriteFile(long, []byte(srv.KnownHostsLine(srv.Addr)+"\n# "+tail), 0o600)
		_, err := openKnown(t, srv, long, targets.Overrides{})
		if err == nil || !strings.Contains(err.Error(), long+":2") || !strings.Contains(err.Error(), "64 KiB") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
