package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/bench-bridge/bench-bridge/engines"
)

// debianMirror is where every pinned source package comes from.
const debianMirror = "http://deb.debian.org/debian"

// debianSource is an engine's release pinned as Debian's source package (its engines.Pinned): apt-get fetches it with
// a private sources list, the upstream (orig) tarball must have the sha256 written there, and it is unpacked once into
// the cache.
type debianSource struct {
	title string // how people write the engine: "QuickJS"
	*engines.Pinned
}

// sourceOf is where e's pinned release comes from.
func sourceOf(e engines.Engine) debianSource {
	return debianSource{title: e.Title, Pinned: e.Pinned}
}

// cacheDir is where the unpacked tree lives in the cache.
func (s debianSource) cacheDir(cache string) string {
	return filepath.Join(cache, s.Package+"-"+s.DebianVersion)
}

// check says whether dir looks like an unpacked tree of s that can be built.
func (s debianSource) check(dir string) error {
	for _, f := range s.Files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return fmt.Errorf("%s source %s: missing %s (want an unpacked %s %s release)", s.title, dir, f, s.title, s.Version)
		}
	}
	return nil
}

// cached returns the unpacked tree's directory in the cache, if it has been fetched.
func (s debianSource) cached() (string, bool) {
	cache, err := CacheDir()
	if err != nil {
		return "", false
	}
	dir := s.cacheDir(cache)
	return dir, s.check(dir) == nil
}

// get returns the unpacked tree in the cache, fetching it on first use, under a lock so that parallel processes
// fetch it once. log receives one line when it fetches.
func (s debianSource) get(ctx context.Context, log io.Writer) (string, error) {
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	dir := s.cacheDir(cache)
	if s.check(dir) == nil {
		return dir, nil
	}
	unlock, err := lockFile(ctx, filepath.Join(cache, s.Package+".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if s.check(dir) == nil { // another process fetched it while we waited
		return dir, nil
	}
	fmt.Fprintf(log, "fetching %s %s (Debian source package %s %s) into %s\n", s.title, s.Version, s.Package, s.DebianVersion, dir)
	if err := s.fetch(ctx, cache, dir); err != nil {
		return "", fmt.Errorf("fetching %s source: %w", s.title, err)
	}
	return dir, nil
}

// fetch downloads Debian's source package with apt-get, using a private sources list, list directory and cache so
// the system's apt configuration is never touched, checks the tarball's sha256 and unpacks it into dir.
func (s debianSource) fetch(ctx context.Context, cache, dir string) error {
	if _, err := exec.LookPath("apt-get"); err != nil {
		return errors.New("apt-get not found (this is not a Debian-like system)")
	}
	work, err := os.MkdirTemp(cache, "fetch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	apt := filepath.Join(work, "apt")
	for _, d := range []string{"lists/partial", "cache/archives/partial", "src"} {
		if err := os.MkdirAll(filepath.Join(apt, d), 0o755); err != nil {
			return err
		}
	}
	list := filepath.Join(apt, "sources.list")
	line := fmt.Sprintf("deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n", debianMirror, s.Suite)
	if err := os.WriteFile(list, []byte(line), 0o644); err != nil {
		return err
	}
	opts := []string{
		"-o", "Dir::Etc::sourcelist=" + list,
		"-o", "Dir::Etc::sourceparts=-",
		"-o", "Dir::State::Lists=" + filepath.Join(apt, "lists"),
		"-o", "Dir::Cache=" + filepath.Join(apt, "cache"),
		"-o", "APT::Get::List-Cleanup=0",
		"-o", "APT::Sandbox::User=root",
		"-q",
	}
	if err := runIn(ctx, "", "apt-get", append(opts, "update")...); err != nil {
		return err
	}
	src := filepath.Join(apt, "src")
	if err := runIn(ctx, src, "apt-get", append(opts, "source", "--download-only", s.Package+"="+s.DebianVersion)...); err != nil {
		return err
	}
	tarball := filepath.Join(src, s.Tarball)
	if err := checkSHA256(tarball, s.SHA256); err != nil {
		return err
	}
	unpack := filepath.Join(work, "unpack")
	if err := os.MkdirAll(unpack, 0o755); err != nil {
		return err
	}
	if err := runIn(ctx, unpack, "tar", "-xJf", tarball); err != nil {
		return fmt.Errorf("%w (is xz-utils installed?)", err)
	}
	top := filepath.Join(unpack, s.Top)
	if err := s.check(top); err != nil {
		return err
	}
	return os.Rename(top, dir)
}

// checkSHA256 fails unless the file's sha256 is want.
func checkSHA256(path, want string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%s: sha256 %s, want %s: refusing to build from it", path, got, want)
	}
	return nil
}
