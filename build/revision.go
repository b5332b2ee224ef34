package build

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	benchbridge "github.com/bench-bridge/bench-bridge"
)

// gitTimeout bounds each git command: resolving a revision or adding a worktree takes well under a second; a git
// that waits on a lock or a prompt must not hang a bisection. A variable for tests.
var gitTimeout = 2 * time.Minute

// MergeBasePrefix is the short form of a revision that is the merge-base of HEAD and a branch: merge-base:main.
const MergeBasePrefix = "merge-base:"

// Revision is a revision of a user's bridge's git repository, resolved to its commit.
type Revision struct {
	Rev     string // as the user wrote it: a commit, tag, branch, origin/main or merge-base:BRANCH
	Commit  string // the full commit
	Subject string // its subject line
}

// Short is the commit's first 12 hex digits.
func (r Revision) Short() string { return ShortCommit(r.Commit) }

// ShortCommit is a commit's first 12 hex digits.
func ShortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// Git runs git in dir with a deadline of its own and returns its standard output without the final newline; an
// error names the command, the folder and what git said.
func Git(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	// No prompt for credentials or an editor: nobody is there to answer.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("no answer in %s", gitTimeout)
		}
		return "", fmt.Errorf("git %s (in %s): %w: %s", strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSuffix(stdout.String(), "\n"), nil
}

// ResolveRevision resolves rev in the git repository that holds dir: a commit, tag or branch, or merge-base:BRANCH
// for the merge-base of HEAD and BRANCH (what a pull request is compared against).
func ResolveRevision(ctx context.Context, dir, rev string) (Revision, error) {
	r := Revision{Rev: rev}
	if rev == "" {
		return r, errors.New("an empty revision")
	}
	commit := rev
	if branch, ok := strings.CutPrefix(rev, MergeBasePrefix); ok {
		base, err := Git(ctx, dir, "merge-base", "HEAD", branch)
		if err != nil {
			return r, fmt.Errorf("revision %s: %w", rev, err)
		}
		commit = base
	}
	full, err := Git(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", commit+"^{commit}")
	if err != nil {
		return r, fmt.Errorf("revision %s: not a commit of the repository at %s", rev, dir)
	}
	r.Commit = full
	if r.Subject, err = Git(ctx, dir, "log", "-1", "--format=%s", full); err != nil {
		return r, err
	}
	return r, nil
}

// UserBridgeAt builds a user's bridge as it was at rev of the git repository that holds dir: rev is checked out into a
// worktree of its own (the user's checkout is not touched), the build command runs there, and the binary is kept in
// the cache under the commit and the build settings, so that a second use builds nothing. The program records the
// commit.
func UserBridgeAt(ctx context.Context, tc Toolchain, lib *Library, name, dir, command, binary string, rev Revision, log io.Writer) (*Binary, error) {
	at := name + "@" + rev.Rev
	if command == "" {
		return nil, fmt.Errorf("bridge %s: the bridge has no build command, so there is nothing to build at a revision (add build = \"...\")", at)
	}
	dir, err := filepath.Abs(dir) // "." when the config is the one in the folder bench-bridge runs in
	if err != nil {
		return nil, err
	}
	if filepath.IsAbs(binary) { // the config resolves it against its folder: where the build runs
		rel, err := filepath.Rel(dir, binary)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("bridge %s: binary %s is outside the bridge's folder %s: at a revision it must be built inside it", at, binary, dir)
		}
		binary = rel
	}
	top, err := Git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("bridge %s: %w", at, err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(top, real) // the config's folder inside the repository, where the build runs
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("bridge %s: %s is not inside its repository %s", at, dir, top)
	}
	cache, err := CacheDir()
	if err != nil {
		return nil, err
	}
	key := []string{rev.Commit, rel, command, binary, tc.Name, tc.CC, strings.Join(tc.CFlags, " "), strings.Join(tc.LDFlags, " ")}
	if lib != nil {
		key = append(key, lib.Compiler, strings.Join(lib.Objects, " "))
	}
	for _, f := range benchbridge.CommonSources { // the harness the build is handed
		b, err := benchbridge.CSources.ReadFile(f)
		if err != nil {
			return nil, err
		}
		key = append(key, f, string(b))
	}
	slot := filepath.Join(cache, "bridges", name+"-"+rev.Short()+"-"+hashOf(key...))
	cached := filepath.Join(slot, filepath.Base(binary))
	found := func() (*Binary, error) {
		prog, err := UserBridge(ctx, tc, lib, name, slot, "", filepath.Base(binary), log)
		if err != nil {
			return nil, err
		}
		prog.Commit = rev.Commit
		if lib != nil { // what the build was handed, as UserBridge records it for a build it runs
			ub := prog.User
			prog.Compiler = fmt.Sprintf("CC=%s CXX=%s (%s)", ub.CC, ub.CXX, lib.Compiler)
			prog.CFlags = fmt.Sprintf("CFLAGS=%s CXXFLAGS=%s LDFLAGS=%s", ub.CFlags, ub.CXXFlags, ub.LDFlags)
		}
		return prog, nil
	}
	if _, err := os.Stat(cached); err == nil {
		fmt.Fprintf(log, "bridge %s: commit %s, built before (%s)\n", at, rev.Short(), cached)
		return found()
	}
	unlock, err := lockFile(ctx, slot+".lock")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := os.Stat(cached); err == nil {
		return found()
	}
	if err := os.MkdirAll(filepath.Dir(slot), 0o755); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp(filepath.Dir(slot), "worktree-")
	if err != nil {
		return nil, err
	}
	defer func() {
		// With a deadline of its own: the build may have ended because ctx did.
		rmCtx, cancel := context.WithTimeout(context.Background(), gitTimeout)
		defer cancel()
		// Only this worktree: a prune would touch the user's other worktrees' records.
		Git(rmCtx, top, "worktree", "remove", "--force", work)
		os.RemoveAll(work)
	}()
	fmt.Fprintf(log, "bridge %s: checking out commit %s (%s) into %s\n", at, rev.Short(), rev.Subject, work)
	if _, err := Git(ctx, top, "worktree", "add", "--detach", "--force", work, rev.Commit); err != nil {
		return nil, fmt.Errorf("bridge %s: %w", at, err)
	}
	prog, err := UserBridge(ctx, tc, lib, at, filepath.Join(work, rel), command, binary, log)
	if err != nil {
		return nil, &RevisionBuildError{Bridge: name, Rev: rev, Err: err}
	}
	if err := os.MkdirAll(slot, 0o755); err != nil {
		return nil, err
	}
	// Copy to a temporary name first: a binary at the cached path is always a complete one.
	if err := copyFile(prog.Path, cached+".tmp", 0o755); err != nil {
		return nil, err
	}
	if err := os.Rename(cached+".tmp", cached); err != nil {
		return nil, err
	}
	prog.Path, prog.Codec, prog.Commit = cached, name, rev.Commit
	return prog, nil
}

// RevisionBuildError is a bridge whose build failed at a revision: bisect skips such a revision.
type RevisionBuildError struct {
	Bridge string
	Rev    Revision
	Err    error
}

func (e *RevisionBuildError) Error() string {
	return fmt.Sprintf("bridge %s does not build at %s (commit %s): %v", e.Bridge, e.Rev.Rev, e.Rev.Short(), e.Err)
}

func (e *RevisionBuildError) Unwrap() error { return e.Err }

// copyFile copies src to dst with mode.
func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
