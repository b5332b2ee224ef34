package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/history"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
	"github.com/bench-bridge/bench-bridge/session"
)

// bridgeRepo is a git repository of a user's bridge that a test makes: docs/bridge.md's mine.c, whose host_add runs
// a busy loop of WORK turns (work.h) beside the call, and a config that builds it.
type bridgeRepo struct {
	dir     string
	commits []string // in order, oldest first
}

// newBridgeRepo makes the repository with n commits: the first has WORK 0, commit culprit (0-based) sets WORK to
// work, broken (when >= 0) breaks the build and the commit after it mends it; every other commit changes a note
// and nothing measured. The bridges' cache entries it leaves are removed at the end.
func newBridgeRepo(t *testing.T, n, culprit, work, broken int) *bridgeRepo {
	t.Helper()
	doc, err := os.ReadFile(bridgeDoc)
	if err != nil {
		t.Fatal(err)
	}
	src := checkedBlock(t, string(doc), "mine.c")
	src = strings.Replace(src, "#include \"harness.h\"\n", "#include \"harness.h\"\n#include \"work.h\"\n", 1)
	src = strings.Replace(src, "\treturn JS_NewFloat64(ctx, bb_add(a, b));",
		"\tfor (volatile int k = 0; k < WORK; k++)\n\t\t;\n\treturn JS_NewFloat64(ctx, bb_add(a, b));", 1)
	if !strings.Contains(src, "k < WORK") {
		t.Fatal("docs/bridge.md's mine.c has no host_add returning bb_add(a, b) to slow down")
	}
	r := &bridgeRepo{dir: t.TempDir()}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(r.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r.git(t, "init", "-q", "-b", "main")
	write("mine.c", src)
	write("bench-bridge.toml", checkedBlock(t, string(doc), "bench-bridge.toml"))
	write(".gitignore", "bench\nout/\n")
	wk := 0
	for i := range n {
		switch {
		case i == culprit:
			wk = work
		case i == broken:
			write("mine.c", src+"\nthis does not compile\n")
		case i == broken+1 && broken >= 0:
			write("mine.c", src)
		}
		write("work.h", fmt.Sprintf("#define WORK %d\n", wk))
		write("notes.txt", fmt.Sprintf("change %d\n", i))
		r.git(t, "add", "-A")
		r.git(t, "commit", "-q", "-m", fmt.Sprintf("change %d", i))
		r.commits = append(r.commits, r.git(t, "rev-parse", "HEAD"))
	}
	t.Cleanup(func() {
		cache, err := build.CacheDir()
		if err != nil {
			return
		}
		for _, c := range r.commits {
			slots, _ := filepath.Glob(filepath.Join(cache, "bridges", "mine-"+build.ShortCommit(c)+"-*"))
			for _, s := range slots {
				os.RemoveAll(s)
			}
		}
	})
	return r
}

func (r *bridgeRepo) git(t *testing.T, args ...string) string {
	t.Helper()
	args = append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)
	out, err := build.Git(context.Background(), r.dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (r *bridgeRepo) config() string { return filepath.Join(r.dir, "bench-bridge.toml") }

// TestBridgeAtARevision measures a user's bridge as built at a commit, a tag and a branch of its repository: built
// in a worktree of its own (the checkout is not touched), once per commit and build settings, with the commit in the
// artifact, where history add finds it.
func TestBridgeAtARevision(t *testing.T) {
	requireCC(t)
	r := newBridgeRepo(t, 3, 2, 50, -1)
	r.git(t, "tag", "v1", r.commits[1])
	r.git(t, "branch", "old", r.commits[0])
	head, outs := r.git(t, "rev-parse", "HEAD"), t.TempDir()
	for i, rev := range []string{"v1", r.commits[1][:8], "old", "main~2"} {
		out := filepath.Join(outs, fmt.Sprintf("out%d.json", i))
		stdout, stderr, code := run(t, localName(), "--config", r.config(), "--bridge", "mine@"+rev, "--cases", "script_to_host_scalar",
			"--runs", "1", "--samples", "2", "--min-time", "1ms", "--out", out)
		if code != 0 {
			t.Fatalf("mine@%s: exit %d\n%s\n%s", rev, code, stdout, stderr)
		}
		want := r.commits[1]
		if i >= 2 {
			want = r.commits[0]
		}
		built := strings.Contains(stderr, "checking out commit "+build.ShortCommit(want))
		if first := i == 0 || i == 2; built != first {
			t.Errorf("mine@%s: built %v, want a build on the commit's first use only\n%s", rev, built, stderr)
		}
		a := readArtifact(t, out)
		if a.Settings.Commit != want || a.Codec != "mine" || !strings.HasPrefix(a.Label(), "mine@"+build.ShortCommit(want)) {
			t.Errorf("mine@%s: commit %q codec %q label %q, want commit %s", rev, a.Settings.Commit, a.Codec, a.Label(), want)
		}
		e, err := history.ReadEntry(out, history.EntryOptions{Environment: "0123456789abcdef0123"})
		if err != nil || e.Revision != want {
			t.Errorf("history add of mine@%s: revision %q (%v), want the bridge's commit %s", rev, e.Revision, err, want)
		}
	}
	// The config found in the folder bench-bridge runs in, which is "." to it.
	t.Chdir(r.dir)
	if _, stderr, code := run(t, localName(), "--bridge", "mine@v1", "--cases", "script_to_host_scalar", "--runs", "1", "--samples", "2",
		"--min-time", "1ms", "--out", filepath.Join(outs, "here.json")); code != 0 {
		t.Errorf("mine@v1 from the bridge's folder: exit %d\n%s", code, stderr)
	}
	// A pull request's base: the merge-base of HEAD and a branch.
	if rev, err := build.ResolveRevision(context.Background(), r.dir, "merge-base:old"); err != nil || rev.Commit != r.commits[0] || rev.Subject != "change 0" {
		t.Errorf("merge-base:old: %+v, %v; want %s", rev, err, r.commits[0])
	}
	if now := r.git(t, "rev-parse", "HEAD"); now != head || r.git(t, "status", "--porcelain") != "" {
		t.Errorf("the user's checkout changed: HEAD %s (was %s), status %q", now, head, r.git(t, "status", "--porcelain"))
	}
	if wt := r.git(t, "worktree", "list", "--porcelain"); strings.Count(wt, "worktree ") != 1 {
		t.Errorf("worktrees left behind:\n%s", wt)
	}
	for rev, want := range map[string]string{
		"nope":   "revision nope: not a commit of the repository at " + r.dir,
		"":       "--bridge mine@: no revision after @",
		"v1~999": "revision v1~999",
	} {
		_, stderr, code := run(t, localName(), "--config", r.config(), "--bridge", "mine@"+rev, "--cases", "script_to_host_scalar", "--runs", "1")
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("mine@%s: exit %d, %s; want %q", rev, code, stderr, want)
		}
	}
}

// TestBisectFindsTheCulprit: in 8 commits of a user's bridge of which one adds a busy loop to host_add and the
// others change nothing measured, bisect names that commit in at most 4 builds (GOOD's among them), by instructions
// and by time. Each commit built costs seconds under callgrind: 8 commits take the three steps of a search as 16
// take four, and prove as well that it halves and builds each commit once.
func TestBisectFindsTheCulprit(t *testing.T) {
	requireCC(t)
	testenv.Require(t, "valgrind", "apt-get install valgrind (scripts/setup does it)")
	const culprit = 5
	r := newBridgeRepo(t, 8, culprit, 1000, -1)
	for _, tc := range []struct {
		metric string
		args   []string
	}{
		{"instructions", nil},
		// A 1000-turn busy loop beside a call of about 100 ns: at least a cycle a turn, several times the cost on any
		// CPU, far above the threshold (a change counts from half of it, 50%). What is proven is that bisect names
		// the commit, not how small a change it finds (the proofs measure that): with a threshold of 20%, two
		// builds of the same source once measured +11.6% [+6.9%, +20.7%] beside the race lane.
		{"time", []string{"--budget", "2m", "--samples", "3", "--min-time", "2ms", "--threshold", "1"}},
	} {
		t.Run(tc.metric, func(t *testing.T) {
			args := append([]string{"bisect", r.commits[0], "main", "--config", r.config(), "--bridge", "mine",
				"--cases", "script_to_host_scalar", "--metric", tc.metric, "--out", t.TempDir()}, tc.args...)
			stdout, stderr, code := run(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			if !strings.Contains(stdout, "first slower commit: "+r.commits[culprit]+" change 5\n") {
				t.Errorf("want commit %s named\n%s", r.commits[culprit], stdout)
			}
			// A build checks its commit out; a second use of a commit (GOOD's in every step by time, and the
			// commits the instructions built before) is taken from the cache.
			builds := strings.Count(stderr, "checking out commit")
			if !strings.Contains(stdout, "\n4 commits built and measured (with GOOD), 3 steps\n") || builds > 4 {
				t.Errorf("%d builds, want 4 commits measured, in at most 4 builds\n%s", builds, stdout)
			}
			if !strings.Contains(stdout, "bench-bridge profile linux script_to_host_scalar --bridge mine@"+build.ShortCommit(r.commits[culprit])+
				" --diff mine@"+build.ShortCommit(r.commits[culprit-1])) {
				t.Errorf("the culprit's step says no profile command\n%s", stdout)
			}
		})
	}
}

// TestBisectSkipsWhatDoesNotBuild: a commit that breaks the build is skipped, and the search goes on around it. The
// skip is the build's, whatever the metric: by time, as TestBisectFindsTheCulprit's second search, which takes
// seconds where callgrind takes seconds a commit.
func TestBisectSkipsWhatDoesNotBuild(t *testing.T) {
	requireCC(t)
	r := newBridgeRepo(t, 8, 6, 1000, 4) // 1..7 after GOOD: the search probes 4 first
	stdout, stderr, code := run(t, "bisect", r.commits[0], r.commits[7], "--config", r.config(), "--bridge", "mine",
		"--cases", "script_to_host_scalar", "--metric", "time", "--out", t.TempDir(), "--budget", "2m", "--samples", "3",
		"--min-time", "2ms", "--threshold", "1")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, build.ShortCommit(r.commits[4])+" change 4: does not build: skipped") ||
		!strings.Contains(stdout, "first slower commit: "+r.commits[6]+" change 6\n") {
		t.Errorf("want commit 4 skipped and commit 6 named\n%s", stdout)
	}
}

// TestProgramAtARevisionParses: compare's programs NAME@REV[:OPTIONS], the merge-base form keeping its colon.
func TestProgramAtARevisionParses(t *testing.T) {
	for arg, want := range map[string][3]string{
		"mine":                          {"mine", "", ""},
		"json:slowdown=0.1":             {"json", "", "slowdown=0.1"},
		"mine@v1.2":                     {"mine", "v1.2", ""},
		"mine@origin/main:slowdown=0.1": {"mine", "origin/main", "slowdown=0.1"},
		"mine@merge-base:main":          {"mine", "merge-base:main", ""},
		"mine@merge-base:origin/main:slowdown=0.02": {"mine", "merge-base:origin/main", "slowdown=0.02"},
		"mine@": {"mine@", "", ""},
	} {
		if n, r, o := session.SplitProgramArg(arg); [3]string{n, r, o} != want {
			t.Errorf("%s: %q %q %q, want %q", arg, n, r, o, want)
		}
	}
}

// TestProfileDiffOfTwoRevisions profiles a bridge before and after the commit that adds a busy loop to host_add, with
// the program's own sampler and with the real perf: each profile writes its flame graph and pprof profile, and the
// differential graph shows host_add grown.
func TestProfileDiffOfTwoRevisions(t *testing.T) {
	requireCC(t)
	r := newBridgeRepo(t, 2, 1, 200, -1)
	for _, tool := range []string{"itimer", "perf"} {
		t.Run(tool, func(t *testing.T) {
			if tool == "perf" {
				testenv.Require(t, "perf", "apt-get install linux-perf (scripts/setup does it)")
			}
			out := t.TempDir()
			stdout, stderr, code := run(t, "profile", localName(), "script_to_host_scalar", "1", "--config", r.config(), "--bridge", "mine@"+r.commits[1],
				"--diff", "mine@"+r.commits[0], "--tool", tool, "--out-dir", out)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			stem := filepath.Join(out, "profile-"+localName()+"-script_to_host_scalar")
			for _, f := range []string{stem + ".svg", stem + ".pb.gz", stem + "-diff.svg", filepath.Join(out, "diff-base", filepath.Base(stem)+".svg")} {
				if st, err := os.Stat(f); err != nil || st.Size() == 0 {
					t.Errorf("%s: %v", f, err)
				}
			}
			svg, _ := os.ReadFile(stem + "-diff.svg")
			if !strings.Contains(string(svg), "("+tool+"): what the program added to mine@") {
				t.Errorf("the differential graph's title does not name %s", tool)
			}
			// host_add's box in its callers' context: the one with the most samples (a sample whose unwinding
			// broke off has a box of its own elsewhere).
			var grew string
			most := 0
			for _, m := range regexp.MustCompile(`<title>host_add: (\d+) samples, [0-9.]+%, \+([0-9.]+) points against the base</title>`).FindAllSubmatch(svg, -1) {
				if n, _ := strconv.Atoi(string(m[1])); n > most {
					most, grew = n, string(m[2])
				}
			}
			if grew == "" {
				t.Fatalf("the differential graph has no host_add that grew\n%.5000s", svg)
			}
			// 200 turns of a busy loop beside a call of about 100 ns: host_add's share grows by tens of points on any
			// CPU.
			if v, _ := strconv.ParseFloat(grew, 64); v < 10 {
				t.Errorf("host_add grew by %v points, want more than 10", v)
			}
		})
	}
}
