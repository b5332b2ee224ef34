package targets

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kevinburke/ssh_config"
)

// systemSSHConfig is read after the user's ~/.ssh/config, as ssh does; tests point it elsewhere.
var systemSSHConfig = "/etc/ssh/ssh_config"

// maxJumpHops bounds ProxyJump chains.
const maxJumpHops = 8

// sshConfig is ssh's client configuration: the user's file, then the system's. For each keyword the first value
// that a matching Host entry gives wins, as in ssh.
type sshConfig struct {
	files []*ssh_config.Config
	paths []string
	home  string
}

// loadSSHConfig reads ~/.ssh/config and the system file; a file that does not exist is no error.
func loadSSHConfig(home string) (*sshConfig, error) {
	paths := []string{systemSSHConfig}
	if home != "" {
		paths = append([]string{filepath.Join(home, ".ssh", "config")}, paths...)
	}
	return readSSHConfig(home, paths...)
}

// readSSHConfig reads the files in order. A file that cannot be read is an error naming it, except the system's:
// the user did not write it, and some systems put there what the parser does not know (Match final).
func readSSHConfig(home string, paths ...string) (*sshConfig, error) {
	c := &sshConfig{home: home}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err == nil {
			var cfg *ssh_config.Config
			if cfg, err = ssh_config.DecodeBytes(data); err == nil {
				c.files, c.paths = append(c.files, cfg), append(c.paths, p)
				continue
			}
		}
		if p == systemSSHConfig {
			continue
		}
		return nil, fmt.Errorf("ssh config %s: %w", p, err)
	}
	return c, nil
}

// get is the first value for key among the entries that match alias, and the file it came from.
func (c *sshConfig) get(alias, key string) (value, file string) {
	for i, f := range c.files {
		if v, err := f.Get(alias, key); err == nil && v != "" {
			return v, c.paths[i]
		}
	}
	return "", ""
}

// getAll collects every value of key, for keywords that add up (IdentityFile).
func (c *sshConfig) getAll(alias, key string) []string {
	var all []string
	for _, f := range c.files {
		if v, err := f.GetAll(alias, key); err == nil {
			all = append(all, v...)
		}
	}
	return all
}

// splitSSHHost reads [user@]host[:port]; an IPv6 host with a port is written [::1]:22. What is not written is empty.
func splitSSHHost(s string) (sshAddr, error) {
	var a sshAddr
	rest := s
	if u, h, ok := strings.Cut(rest, "@"); ok {
		a.User, rest = u, h
	}
	switch {
	case strings.HasPrefix(rest, "["):
		h, p, err := net.SplitHostPort(rest)
		if err != nil {
			h = strings.Trim(rest, "[]")
		}
		a.Host, a.Port = h, p
	case strings.Count(rest, ":") == 1:
		a.Host, a.Port, _ = strings.Cut(rest, ":")
		if a.Port == "" {
			return sshAddr{}, fmt.Errorf("host %q is not [user@]host[:port]", s)
		}
	default:
		a.Host = rest
	}
	if a.Host == "" || strings.ContainsAny(a.Host+a.User, " /") {
		return sshAddr{}, fmt.Errorf("host %q is not [user@]host[:port]", s)
	}
	return a, nil
}

// resolve turns a destination into where to connect, as ssh does: the user and port written in it win, then the
// first value the config gives for the host (HostName, User, Port, IdentityFile, ProxyJump, HostKeyAlias), then port
// 22 and the local user. The jump hosts come first in Jumps, in the order they are dialled.
func (c *sshConfig) resolve(dest string) (sshAddr, error) { return c.resolveHop(dest, true, nil) }

// resolveHop resolves one destination; jumps says whether its own ProxyJump counts, path is the chain of hosts whose
// ProxyJump led here.
func (c *sshConfig) resolveHop(dest string, jumps bool, path []string) (sshAddr, error) {
	a, err := splitSSHHost(strings.TrimPrefix(dest, "ssh://"))
	if err != nil {
		return sshAddr{}, err
	}
	alias := a.Host
	if slices.Contains(path, alias) || len(path) > maxJumpHops {
		return sshAddr{}, fmt.Errorf("ssh config %s: the jump hosts of %s lead in a loop or too far (%s -> %s)",
			strings.Join(c.paths, ", "), path[0], strings.Join(path, " -> "), alias)
	}
	if v, _ := c.get(alias, "HostName"); v != "" {
		a.Host = strings.NewReplacer("%h", alias, "%%", "%").Replace(v)
	}
	if a.User == "" {
		a.User, _ = c.get(alias, "User")
	}
	if a.User == "" {
		if u, err := user.Current(); err == nil {
			a.User = u.Username
		}
	}
	if a.Port == "" {
		var file string
		if a.Port, file = c.get(alias, "Port"); a.Port != "" {
			if n, err := strconv.Atoi(a.Port); err != nil || n < 1 || n > 65535 {
				return sshAddr{}, fmt.Errorf("ssh config %s: Port %q of host %s is not a port number", file, a.Port, alias)
			}
		}
	}
	if a.Port == "" {
		a.Port = "22"
	}
	a.KeyAlias, _ = c.get(alias, "HostKeyAlias")
	for _, id := range c.getAll(alias, "IdentityFile") {
		if !strings.EqualFold(id, "none") {
			a.Identities = append(a.Identities, c.expand(id, alias, a))
		}
	}
	if !jumps {
		return a, nil
	}
	if v, file := c.get(alias, "ProxyCommand"); v != "" && !strings.EqualFold(v, "none") {
		if pj, _ := c.get(alias, "ProxyJump"); pj == "" {
			return sshAddr{}, fmt.Errorf("ssh config %s: host %s uses ProxyCommand, which bench-bridge does not run: "+
				"write the jump hosts as ProxyJump", file, alias)
		}
	}
	if a.Jumps, err = c.jumpHosts(alias, append(slices.Clip(path), alias)); err != nil {
		return sshAddr{}, err
	}
	return a, nil
}

// jumpHosts reads alias's ProxyJump: hops separated by commas, each [user@]host[:port] or ssh://..., each with its
// own Host entry. As in ssh, the first hop's own ProxyJump is followed too; the later hops' are not.
func (c *sshConfig) jumpHosts(alias string, path []string) ([]sshAddr, error) {
	v, file := c.get(alias, "ProxyJump")
	if v == "" || strings.EqualFold(v, "none") {
		return nil, nil
	}
	var chain []sshAddr
	for i, hop := range strings.Split(v, ",") {
		hop = strings.TrimSpace(hop)
		if _, err := splitSSHHost(strings.TrimPrefix(hop, "ssh://")); err != nil {
			return nil, fmt.Errorf("ssh config %s: ProxyJump of host %s: %w", file, alias, err)
		}
		h, err := c.resolveHop(hop, i == 0, path)
		if err != nil {
			return nil, err
		}
		chain = append(chain, h.Jumps...)
		h.Jumps = nil
		chain = append(chain, h)
	}
	if len(chain) > maxJumpHops {
		return nil, fmt.Errorf("ssh config %s: ProxyJump of host %s: more than %d jump hosts", file, alias, maxJumpHops)
	}
	return chain, nil
}

// expand replaces the tokens ssh allows in IdentityFile: ~ and %d (home), %u (local user), %h (host), %n (the name
// as given), %p (port), %r (remote user), %%.
func (c *sshConfig) expand(path, alias string, a sshAddr) string {
	local := ""
	if u, err := user.Current(); err == nil {
		local = u.Username
	}
	path = strings.NewReplacer("%d", c.home, "%u", local, "%h", a.Host, "%n", alias, "%p", a.Port, "%r", a.User, "%%", "%").Replace(path)
	return expandHome(path, c.home)
}
