// Package build turns the embedded C sources into bench programs for a toolchain: it fetches and verifies QuickJS's
// source, builds the library once per toolchain and flags, and links the floor and bridge programs, caching both.
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
	"strings"

	"github.com/bench-bridge/bench-bridge/hint"
)

// The pinned QuickJS release: Debian's source package, whose upstream tarball must have this sha256.
const (
	QuickJSVersion      = "2025-04-26"
	quickJSDebianSource = "quickjs"
	quickJSDebianVer    = "2025.04.26-1"
	quickJSOrigTarball  = "quickjs_2025.04.26.orig.tar.xz"
	quickJSOrigSHA256   = "ec81da5b3249ed648dbc7df4a1654988910e66a118d9b71cb63534216efcfbbe"
	quickJSDebianSuite  = "trixie"
	quickJSMirror       = "http://deb.debian.org/debian"
)

// QuickJSDebianVersion is the Debian source package's version the pinned release comes from.
const QuickJSDebianVersion = quickJSDebianVer

// EnvQuickJSSrc names the environment variable that points at a user's own QuickJS source tree.
const EnvQuickJSSrc = "BENCH_BRIDGE_QUICKJS_SRC"

// quickJSLibSources are the files that make the library (qjs.c and qjsc.c are programs, not library).
var quickJSLibSources = []string{"quickjs.c", "dtoa.c", "libregexp.c", "libunicode.c", "cutils.c", "quickjs-libc.c"}

// CacheDir is where bench-bridge keeps QuickJS's source, built libraries and programs.
func CacheDir() (string, error) {
	if d := os.Getenv("BENCH_BRIDGE_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (set BENCH_BRIDGE_CACHE): %w", err)
	}
	return filepath.Join(d, "bench-bridge"), nil
}

// QuickJSSource returns a QuickJS source tree: explicit (a flag or the config) first, then $BENCH_BRIDGE_QUICKJS_SRC,
// then the pinned release in the cache, fetched on first use. log receives one line per slow step.
func QuickJSSource(ctx context.Context, explicit string, log io.Writer) (string, error) {
	for _, dir := range []string{explicit, os.Getenv(EnvQuickJSSrc)} {
		if dir == "" {
			continue
		}
		if err := checkQuickJSTree(dir); err != nil {
			return "", err
		}
		return filepath.Abs(dir)
	}
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "quickjs-"+quickJSDebianVer)
	if checkQuickJSTree(dir) == nil {
		return dir, nil
	}
	unlock, err := lockFile(ctx, filepath.Join(cache, "quickjs.lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if checkQuickJSTree(dir) == nil { // another process fetched it while we waited
		return dir, nil
	}
	fmt.Fprintf(log, "fetching QuickJS %s (Debian source package %s %s) into %s\n", QuickJSVersion, quickJSDebianSource, quickJSDebianVer, dir)
	if err := fetchQuickJS(ctx, cache, dir); err != nil {
		return "", hint.With(fmt.Errorf("fetching QuickJS source: %w", err),
			fmt.Sprintf("install apt-get's Debian tools, or point --quickjs-src (or %s) at a QuickJS %s source tree", EnvQuickJSSrc, QuickJSVersion))
	}
	return dir, nil
}

// CachedQuickJS returns the pinned release's directory in the cache, if it has been fetched.
func CachedQuickJS() (string, bool) {
	cache, err := CacheDir()
	if err != nil {
		return "", false
	}
	dir := filepath.Join(cache, "quickjs-"+quickJSDebianVer)
	return dir, checkQuickJSTree(dir) == nil
}

// checkQuickJSTree says whether dir looks like a QuickJS source tree we can build.
func checkQuickJSTree(dir string) error {
	for _, f := range append([]string{"quickjs.h", "VERSION"}, quickJSLibSources...) {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return fmt.Errorf("QuickJS source %s: missing %s (want an unpacked QuickJS %s release)", dir, f, QuickJSVersion)
		}
	}
	return nil
}

// fetchQuickJS downloads Debian's source package with apt-get, using a private sources list, list directory and
// cache so the system's apt configuration is never touched, checks the tarball's sha256 and unpacks it into dir.
func fetchQuickJS(ctx context.Context, cache, dir string) error {
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
	line := fmt.Sprintf("deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n", quickJSMirror, quickJSDebianSuite)
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
	if err := runIn(ctx, src, "apt-get", append(opts, "source", "--download-only", quickJSDebianSource+"="+quickJSDebianVer)...); err != nil {
		return err
	}
	tarball := filepath.Join(src, quickJSOrigTarball)
	if err := checkSHA256(tarball, quickJSOrigSHA256); err != nil {
		return err
	}
	unpack := filepath.Join(work, "unpack")
	if err := os.MkdirAll(unpack, 0o755); err != nil {
		return err
	}
	if err := runIn(ctx, unpack, "tar", "-xJf", tarball); err != nil {
		return fmt.Errorf("%w (is xz-utils installed?)", err)
	}
	top := filepath.Join(unpack, "quickjs-2025.04.26")
	if err := checkQuickJSTree(top); err != nil {
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

// runIn runs a command in dir and returns an error that carries its output when it fails.
func runIn(ctx context.Context, dir, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, tail(out, 2000))
	}
	return nil
}

// tail returns the last n bytes of b as a string.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}
