package targets

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

const testSSHConfig = `# as people write it: specific entries first, defaults last
Host *.lab
  User labuser
Host board
  HostName 198.18.0.6
  Port 2200
  IdentityFile ~/.ssh/board_key
  IdentityFile %d/keys/%r@%h
  ProxyJump gw.lab
Host board
  Port 9999
  User root
Host gw.lab
  HostName 198.18.0.2
  Port 2222
Host twohop
  HostName 198.18.0.10
  HostKeyAlias twohop-key
  ProxyJump me@hop1:2022,ssh://hop2.lab
Host hop1
  HostName 198.18.0.20
  ProxyJump gw.lab
Host hop2.lab
  ProxyJump not-followed
Host direct
  HostName %h.example
  ProxyJump none
Host *
  User fallback
  Port 2000
`

// hop is an sshAddr as a test writes it: user@host:port, then the jump hosts.
func hop(a sshAddr) string {
	s := a.String()
	for _, j := range a.Jumps {
		s += " via " + j.String()
	}
	return s
}

// TestSSHConfigPrecedence: what is written in the destination wins, then the first value of the first matching Host
// entry for each keyword, then the defaults; ProxyJump hops have their own entries, and the first hop's own
// ProxyJump is followed. OpenSSH's ssh -G, given the same file, must agree on host, user and port.
func TestSSHConfigPrecedence(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "config")
	if err := os.WriteFile(file, []byte(testSSHConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := readSSHConfig(home, file)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dest, want string
		ids        []string
		sshArgs    []string // how ssh -G is asked for the same destination
	}{
		{"board", "root@198.18.0.6:2200 via labuser@198.18.0.2:2222",
			[]string{home + "/.ssh/board_key", home + "/keys/root@198.18.0.6"}, []string{"board"}},
		{"admin@board:22", "admin@198.18.0.6:22 via labuser@198.18.0.2:2222",
			[]string{home + "/.ssh/board_key", home + "/keys/admin@198.18.0.6"}, []string{"-l", "admin", "-p", "22", "board"}},
		{"gw.lab", "labuser@198.18.0.2:2222", nil, []string{"gw.lab"}},
		{"twohop", "fallback@198.18.0.10:2000 via labuser@198.18.0.2:2222 via me@198.18.0.20:2022 via labuser@hop2.lab:2000",
			nil, []string{"twohop"}},
		{"direct", "fallback@direct.example:2000", nil, []string{"direct"}},
		{"someone@unlisted", "someone@unlisted:2000", nil, []string{"someone@unlisted"}},
		{"[::1]:22", "fallback@[::1]:22", nil, nil},
	} {
		a, err := c.resolve(tc.dest)
		if err != nil {
			t.Errorf("%s: %v", tc.dest, err)
			continue
		}
		if got := hop(a); got != tc.want || !slices.Equal(a.Identities, tc.ids) || (a.KeyAlias != "") != (tc.dest == "twohop") {
			t.Errorf("%s: %s %q, want %s %q", tc.dest, got, a.Identities, tc.want, tc.ids)
		}
		if tc.sshArgs != nil {
			if g := sshG(t, file, tc.sshArgs...); g != a.User+"@"+a.Host+":"+a.Port {
				t.Errorf("%s: ssh -G says %s, bench-bridge %s", tc.dest, g, a.String())
			}
		}
	}
}

// sshG is OpenSSH's own reading of the config: user@hostname:port from ssh -G.
func sshG(t *testing.T, file string, args ...string) string {
	t.Helper()
	bin := testenv.Require(t, "ssh", "apt-get install openssh-client")
	out, err := exec.Command(bin, append([]string{"-F", file, "-G"}, args...)...).Output()
	if err != nil {
		t.Fatalf("ssh -G %s: %v", strings.Join(args, " "), err)
	}
	got := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(l, " "); ok {
			got[k] = v
		}
	}
	return got["user"] + "@" + got["hostname"] + ":" + got["port"]
}

// TestSSHConfigErrors: what bench-bridge cannot follow is an error naming the file and the host, not a silent
// direct connection.
func TestSSHConfigErrors(t *testing.T) {
	for name, tc := range map[string]struct{ config, dest, want string }{
		"loop":          {"Host a\n  ProxyJump b\nHost b\n  ProxyJump a\n", "a", "lead in a loop or too far (a -> b -> a)"},
		"proxy command": {"Host a\n  ProxyCommand nc %h %p\n", "a", "ProxyCommand"},
		"bad port":      {"Host a\n  Port twenty\n", "a", `Port "twenty" of host a`},
		"bad jump":      {"Host a\n  ProxyJump user@:22\n", "a", "ProxyJump of host a"},
		"unsupported":   {"Match exec true\n  User x\n", "a", "Match"},
	} {
		file := filepath.Join(t.TempDir(), "config")
		os.WriteFile(file, []byte(tc.config), 0o600)
		c, err := readSSHConfig("", file)
		if err == nil {
			_, err = c.resolve(tc.dest)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), file) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
