package main

// Tests of the command layer alone: flags, exit statuses and the terminal display, against fake targets that speak
// the bench program protocol themselves, so that no C compiler and no device is needed. The real paths (building,
// running on this machine, adb, ssh) are the e2e tests'.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
	"github.com/bench-bridge/bench-bridge/runner"
	"github.com/bench-bridge/bench-bridge/session"
	"github.com/bench-bridge/bench-bridge/stats"
	"github.com/bench-bridge/bench-bridge/targets"
)

// fakeCases are the cases a fake target's program lists.
var fakeCases = []string{cases.RefCase, "script_to_host_scalar"}

// fakeTarget is a machine of its own whose "program" is this code: it answers list and run as a protocol 2 program
// would, whatever binary was pushed, with exact numbers: every case costs 2 µs per op, ref_js_loop 1 µs, and
// --slowdown SHARE adds that share to a crossing case. It is safe for concurrent use, as a real target is.
type fakeTarget struct {
	name   string
	fail   string        // a case that reports an error
	meet   *rendezvous   // when set, every run waits there for the other targets' runs: proof they overlap
	hold   chan struct{} // when set, a run that has measured its first case tells it here and waits to be cancelled
	lost   bool          // every run fails as a lost connection does
	closed atomic.Int32
}

func (f *fakeTarget) Name() string { return f.name }
func (f *fakeTarget) Capabilities() targets.Capabilities {
	return targets.Capabilities{Machine: "fake machine " + f.name}
}
func (f *fakeTarget) Platform() targets.Platform { return targets.Platform{} }
func (f *fakeTarget) Close() error               { f.closed.Add(1); return nil }
func (f *fakeTarget) Pull(context.Context, string, string) error {
	return errors.New("fake: no files to pull")
}

func (f *fakeTarget) Push(_ context.Context, local string) (string, error) {
	return "/fake/" + filepath.Base(local), nil
}

func (f *fakeTarget) Device(context.Context) (artifact.Device, error) {
	return artifact.Device{OS: "FakeOS", Arch: runtime.GOARCH, CPUModel: "fake cpu", Cores: 1}, nil
}

func (f *fakeTarget) Run(ctx context.Context, _ string, args []string, stdout, _ io.Writer) error {
	if len(args) > 0 && args[0] == "list" {
		fmt.Fprintln(stdout, strings.Join(fakeCases, "\n"))
		return nil
	}
	if f.lost {
		return errors.New("fake: connection lost")
	}
	if f.meet != nil {
		if err := f.meet.wait(ctx); err != nil {
			return err
		}
	}
	samples, ref, slowdown, want := 1, "", 0.0, []string{}
	for i := 1; i < len(args); i++ {
		switch {
		case args[i] == "--samples":
			samples, _ = strconv.Atoi(args[i+1])
		case args[i] == "--ref":
			ref = args[i+1]
		case args[i] == "--slowdown":
			slowdown, _ = strconv.ParseFloat(args[i+1], 64)
		case !strings.HasPrefix(args[i], "--"):
			want = append(want, args[i])
			continue
		}
		i++ // every flag of run takes a value
	}
	fmt.Fprintln(stdout, "bench-bridge-protocol 2\nmeta program bridge\ntimer_overhead_ns 20")
	for n, c := range want {
		if n == 1 && f.hold != nil {
			f.hold <- struct{}{}
			<-ctx.Done()
			return ctx.Err()
		}
		fmt.Fprintf(stdout, "begin %s\n", c)
		if c == f.fail {
			fmt.Fprintf(stdout, "error %s TypeError: boom\nend %s\n", c, c)
			continue
		}
		ns := 2_000_000.0 // over --min-time 1ms
		if c == cases.RefCase {
			ns = 1_000_000
		} else if slowdown > 0 {
			fmt.Fprintf(stdout, "slowdown %s %g 2000\n", c, 2000*slowdown)
			ns *= 1 + slowdown
		}
		fmt.Fprintf(stdout, "calibrated %s 1000\n", c)
		for i := range samples {
			if ref != "" && c != ref {
				fmt.Fprintf(stdout, "ref %s 1000 1000020\n", c)
			}
			fmt.Fprintf(stdout, "sample %s 1000 %d\n", c, int64(ns)+int64(10*i))
		}
		fmt.Fprintf(stdout, "end %s\n", c)
	}
	return nil
}

// fakeBuild gives every job a program of its own kind without a compiler: the fake targets never run it.
func fakeBuild(t *testing.T) session.BuildFunc {
	path := filepath.Join(t.TempDir(), "fake-program")
	if err := os.WriteFile(path, []byte("fake"), 0o755); err != nil {
		t.Fatal(err)
	}
	return func(_ context.Context, j *runner.Job) (*build.Binary, error) {
		codec := j.Codec
		if j.User != nil {
			codec = j.User.Name
		}
		return &build.Binary{Kind: j.Kind, Codec: codec, Path: path, Compiler: "fake cc"}, nil
	}
}

// rendezvous lets n runs through only once all n have arrived, or fails them after a deadline: targets that ran one
// after another never meet.
type rendezvous struct {
	n       int
	mu      sync.Mutex
	arrived int
	all     chan struct{}
}

func newRendezvous(n int) *rendezvous { return &rendezvous{n: n, all: make(chan struct{})} }

func (r *rendezvous) wait(ctx context.Context) error {
	r.mu.Lock()
	if r.arrived++; r.arrived == r.n {
		close(r.all)
	}
	r.mu.Unlock()
	select {
	case <-r.all:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(30 * time.Second):
		return errors.New("fake: the other targets' runs never started beside this one")
	}
}

// fakes is a set of fake targets by name, and a Factory whose streams are buffers and whose targets are these.
type fakes struct {
	targets        map[string]*fakeTarget
	opened         atomic.Int32
	stdout, stderr testenv.Buffer
	factory        *Factory
}

func newFakes(stdoutTTY, stderrTTY bool, ts ...*fakeTarget) *fakes {
	fs := &fakes{targets: map[string]*fakeTarget{}}
	for _, t := range ts {
		fs.targets[t.name] = t
	}
	io := &IOStreams{In: strings.NewReader(""), Out: &fs.stdout, ErrOut: &fs.stderr}
	io.SetStdoutTTY(stdoutTTY, 0)
	io.SetStderrTTY(stderrTTY)
	open := func(_ context.Context, name string, _ map[string]targets.Spec, _ targets.Overrides) (targets.Target, error) {
		t, ok := fs.targets[name]
		if !ok {
			return nil, fmt.Errorf("unknown target %q", name)
		}
		fs.opened.Add(1)
		return t, nil
	}
	fs.factory = &Factory{IO: io, OpenTarget: open}
	return fs
}

func (fs *fakes) run(args ...string) int { return executeWith(fs.factory, args) }

// fakeBridge writes a config declaring bridge "fake", a prebuilt binary (the fake targets never run it), and returns
// the config's path.
func fakeBridge(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fake-bench"), []byte("#!/bin/sh\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "bench-bridge.toml")
	if err := os.WriteFile(cfg, []byte("[bridges.fake]\nbinary = \"fake-bench\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// fakeArgs are a short measuring run of the fake bridge.
func fakeArgs(cfg string, more ...string) []string {
	return append([]string{"--config", cfg, "--bridge", "fake", "--cases", "script_to_host_scalar", "--runs", "2",
		"--samples", "3", "--min-time", "1ms"}, more...)
}

// TestTwoTargetsAtOnce measures two targets of different machines in parallel (each run waits until the other's has
// started), with --out templated by target name: one artifact each, one table of both, each target closed once by
// the command that opened it. Under -race this is the test that the runs share nothing they write.
func TestTwoTargetsAtOnce(t *testing.T) {
	meet := newRendezvous(2)
	a, b := &fakeTarget{name: "fake-a", meet: meet}, &fakeTarget{name: "fake-b", meet: meet}
	fs := newFakes(false, false, a, b)
	out := filepath.Join(t.TempDir(), "{target}.json")
	code := fs.run(append([]string{"fake-a", "fake-b"}, fakeArgs(fakeBridge(t), "--out", out)...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, fs.stderr.String())
	}
	for _, ft := range []*fakeTarget{a, b} {
		file := strings.ReplaceAll(out, "{target}", ft.name)
		art, err := artifact.Read(file)
		if err != nil {
			t.Errorf("%s: %v", ft.name, err)
		} else if art.Target != ft.name || art.Codec != "fake" || art.Case("script_to_host_scalar") == nil {
			t.Errorf("%s: artifact of target %q, codec %q, cases %+v", file, art.Target, art.Codec, art.Cases)
		}
		if n := ft.closed.Load(); n != 1 {
			t.Errorf("%s closed %d times, want once", ft.name, n)
		}
		if !strings.Contains(fs.stdout.String(), "fake "+ft.name) {
			t.Errorf("the table has no column of %s:\n%s", ft.name, fs.stdout.String())
		}
	}
}

// TestOutWithSeveralTargets: one --out for several targets is refused before any target opens.
func TestOutWithSeveralTargets(t *testing.T) {
	fs := newFakes(false, false, &fakeTarget{name: "fake-a"}, &fakeTarget{name: "fake-b"})
	code := fs.run(append([]string{"fake-a", "fake-b"}, fakeArgs(fakeBridge(t), "--out", filepath.Join(t.TempDir(), "x.json"))...)...)
	if code != 1 || !strings.Contains(fs.stderr.String(), "put {target} in it") {
		t.Errorf("exit %d, want 1 and the fix:\n%s", code, fs.stderr.String())
	}
	if n := fs.opened.Load(); n != 0 {
		t.Errorf("%d targets opened for a command line that cannot run", n)
	}
}

// TestExitStatuses: a failed case exits 1 with the artifact written; bad flags exit 1 before any target opens.
func TestExitStatuses(t *testing.T) {
	cfg := fakeBridge(t)
	for _, tc := range []struct {
		name   string
		args   []string
		fail   string
		code   int
		stderr string
		opened int32
	}{
		{"ok", nil, "", 0, "wrote ", 1},
		{"a case fails", nil, "script_to_host_scalar", 1, "1 of 2 cases failed", 1},
		{"samples", []string{"--samples", "0"}, "", 1, "--samples must be at least 1", 0},
		{"metric", []string{"--metric", "cycles"}, "", 1, `--metric "cycles": want time or instructions`, 0},
		{"codec and bridge", []string{"--codec", "fast"}, "", 1, "--codec fast and --bridge fake", 0},
		{"unknown bridge", []string{"--bridge", "nope"}, "", 1, "nope", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ft := &fakeTarget{name: "fake-a", fail: tc.fail}
			fs := newFakes(false, false, ft)
			out := filepath.Join(t.TempDir(), "a.json")
			code := fs.run(append(append([]string{"fake-a"}, fakeArgs(cfg, "--out", out)...), tc.args...)...)
			if code != tc.code || !strings.Contains(fs.stderr.String(), tc.stderr) {
				t.Errorf("exit %d, want %d and %q in\n%s", code, tc.code, tc.stderr, fs.stderr.String())
			}
			if n := fs.opened.Load(); n != tc.opened || ft.closed.Load() != n {
				t.Errorf("opened %d (want %d), closed %d", n, tc.opened, ft.closed.Load())
			}
			if _, err := os.Stat(out); (err == nil) != (tc.opened > 0) {
				t.Errorf("artifact written: %v, want %v", err == nil, tc.opened > 0)
			}
		})
	}
}

// TestTerminalChangesTheFormOnly: on a terminal progress is a status line redrawn in place; elsewhere a plain line
// per case, with no control characters. The table on stdout is the same either way.
func TestTerminalChangesTheFormOnly(t *testing.T) {
	cfg := fakeBridge(t)
	var tables []string
	for _, tty := range []bool{false, true} {
		fs := newFakes(false, tty, &fakeTarget{name: "fake-a"})
		if code := fs.run(append([]string{"fake-a"}, fakeArgs(cfg, "--out", filepath.Join(t.TempDir(), "a.json"))...)...); code != 0 {
			t.Fatalf("tty %v: exit %d\n%s", tty, code, fs.stderr.String())
		}
		stderr := fs.stderr.String()
		plain := "2.00µs/op (" // a case's line: its median and count
		switch {
		case !tty && (strings.ContainsAny(stderr, "\r\033") || !strings.Contains(stderr, "fake-a-fake: script_to_host_scalar ") || !strings.Contains(stderr, plain)):
			t.Errorf("not a terminal: want plain lines per case, no control characters:\n%q", stderr)
		case tty && (!strings.Contains(stderr, "\r\033[K") || !strings.Contains(stderr, "fake-a-fake: building") || strings.Contains(stderr, plain)):
			t.Errorf("a terminal: want a status line instead of a line per case:\n%q", stderr)
		}
		tables = append(tables, fs.stdout.String())
	}
	if tables[0] != tables[1] {
		t.Errorf("the table differs on a terminal:\n%s\n%s", tables[0], tables[1])
	}
}

// TestOnlyMeasuringCommandsTakeMeasuringFlags: doctor, targets and profile refuse --samples, --metric and --define
// where they would ignore them; the measuring commands take them.
func TestOnlyMeasuringCommandsTakeMeasuringFlags(t *testing.T) {
	for _, args := range [][]string{
		{"doctor", "--samples", "3"},
		{"doctor", "--metric", "instructions"},
		{"doctor", "--define", "X"},
		{"targets", "--samples", "3"},
		{"targets", "--metric", "instructions"},
		{"profile", "linux", "callback", "--samples", "3"},
		{"profile", "linux", "callback", "--runs", "3"},
	} {
		fs := newFakes(false, false)
		if code := fs.run(args...); code != 1 || !strings.Contains(fs.stderr.String(), "unknown flag: "+args[len(args)-2]) {
			t.Errorf("%q: exit %d, want 1 and an unknown flag:\n%s", args, code, fs.stderr.String())
		}
	}
	f := newFakes(false, false).factory
	var got *measureOptions
	capture := func(o *measureOptions) error { got = o; return nil }
	cmd := newCmdFloor(f, capture)
	cmd.SetArgs([]string{"linux", "webos", "--samples", "7", "--metric", "instructions", "--define", "X=1", "--host", "root@board"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Kind != artifact.ProgramFloor || strings.Join(got.Targets, ",") != "linux,webos" || got.Measure.Samples != 7 ||
		!got.Measure.SamplesSet || got.Measure.Record != session.RecordInstructions || got.Build.Defines[0] != "X=1" || got.Device.Host != "root@board" {
		t.Errorf("floor's options: %+v", got)
	}
	var doc *doctorOptions
	cmd = newCmdDoctor(f, func(o *doctorOptions) error { doc = o; return nil })
	cmd.SetArgs([]string{"webos", "--run-prefix", "nice -n 5", "--json"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(doc.Targets, ",") != "webos" || doc.Device.RunPrefix != "nice -n 5" || !doc.JSON {
		t.Errorf("doctor's options: %+v", doc)
	}
}

// TestGateConfirmCleansUpWhenTheBuildFails: --confirm's rerun of a bridge that does not build fails the gate, and
// still closes the target it opened and removes its temporary directory.
func TestGateConfirmCleansUpWhenTheBuildFails(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bench-bridge.toml")
	if err := os.WriteFile(cfg, []byte("[bridges.gone]\nbinary = \"no-such-binary\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ft := &fakeTarget{name: "fake-a"}
	fs := newFakes(false, false, ft)
	c, err := config.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := &artifact.Artifact{Target: "fake-a", Kind: artifact.ProgramBridge, Codec: "gone"}
	pair := analysis.Pair{Baseline: analysis.Loaded{File: "base.json", Artifact: a}, Current: analysis.Loaded{File: "cur.json", Artifact: a}}
	rerun := session.Rerun{Open: fs.factory.OpenTarget, Config: c, Log: fs.factory.IO.ErrOut}
	err = rerun.Confirm(context.Background(), &analysis.Result{}, pair, analysis.Options{Metric: analysis.Time})
	if err == nil || !strings.Contains(err.Error(), "no binary at") {
		t.Errorf("confirm of a bridge without its binary: %v", err)
	}
	if n := ft.closed.Load(); n != 1 || fs.opened.Load() != 1 {
		t.Errorf("target opened %d, closed %d times; want once each", fs.opened.Load(), n)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("--confirm left %d entries in the temporary directory (%s)", len(left), left[0].Name())
	}
}

// fakeConfig writes a config declaring bridge "fake" (as fakeBridge) whose artifacts go to a directory of their
// own, and returns the config's path and that directory.
func fakeConfig(t *testing.T) (cfg, outDir string) {
	t.Helper()
	cfg = fakeBridge(t)
	outDir = filepath.Join(t.TempDir(), "out")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "\n[defaults]\nout_dir = %q\n", outDir); err != nil {
		t.Fatal(err)
	}
	return cfg, outDir
}

// TestEveryProgramKindOnTheFakeTarget: floor, the reference bridge's codecs and a config bridge each write their
// artifact under its own name, with the program and codec it measured.
func TestEveryProgramKindOnTheFakeTarget(t *testing.T) {
	cfg, outDir := fakeConfig(t)
	short := []string{"--config", cfg, "--runs", "1", "--samples", "1", "--min-time", "1ms"}
	for _, tc := range []struct {
		args          []string
		file          string
		program, code string
	}{
		{[]string{"floor", "fake-a"}, "floor-fake-a", artifact.ProgramFloor, ""},
		{[]string{"fake-a", "--codec", "fast"}, "fake-a-fast", artifact.ProgramBridge, "fast"},
		{[]string{"fake-a", "--bridge", "fake"}, "fake-a-fake", artifact.ProgramBridge, "fake"},
	} {
		fs := newFakes(false, false, &fakeTarget{name: "fake-a"})
		fs.factory.Builder = fakeBuild(t)
		if code := fs.run(append(tc.args, short...)...); code != 0 {
			t.Fatalf("%q: exit %d\n%s", tc.args, code, fs.stderr.String())
		}
		found, _ := filepath.Glob(filepath.Join(outDir, "*.json"))
		if len(found) != 1 || filepath.Base(found[0]) != tc.file+".json" {
			t.Fatalf("%q: want %s.json alone in %s, found %q\n%s", tc.args, tc.file, outDir, found, fs.stderr.String())
		}
		a, err := artifact.Read(found[0])
		if err != nil || a.Kind != tc.program || a.Codec != tc.code || !a.Complete {
			t.Errorf("%q: %s: %v, program %q codec %q", tc.args, found[0], err, a.Kind, a.Codec)
		}
		if !strings.Contains(fs.stdout.String(), "script_to_host_scalar") {
			t.Errorf("%q: no table on stdout:\n%s", tc.args, fs.stdout.String())
		}
		os.Remove(found[0])
	}
}

// TestOneTargetFailsTheOtherFinishes: of two targets measured at once, a lost one fails the command, naming it,
// and the other's artifact is written and shown.
func TestOneTargetFailsTheOtherFinishes(t *testing.T) {
	fs := newFakes(false, false, &fakeTarget{name: "fake-a"}, &fakeTarget{name: "fake-b", lost: true})
	out := filepath.Join(t.TempDir(), "{target}.json")
	code := fs.run(append([]string{"fake-a", "fake-b"}, fakeArgs(fakeBridge(t), "--out", out)...)...)
	stderr := fs.stderr.String()
	if code != 1 || !strings.Contains(stderr, "fake-b: ") || !strings.Contains(stderr, "connection lost") || strings.Contains(stderr, "error: fake-a") {
		t.Errorf("exit %d, want 1 naming fake-b alone:\n%s", code, stderr)
	}
	if a, err := artifact.Read(strings.ReplaceAll(out, "{target}", "fake-a")); err != nil || !a.Complete {
		t.Errorf("fake-a's artifact: %v", err)
	}
	if !strings.Contains(fs.stdout.String(), "fake fake-a") {
		t.Errorf("the table lacks fake-a:\n%s", fs.stdout.String())
	}
}

// TestInterruptOnTheFakeTarget: SIGINT during a run stops it with exit status 130 and a partial artifact that
// keeps the case already measured.
func TestInterruptOnTheFakeTarget(t *testing.T) {
	ft := &fakeTarget{name: "fake-a", hold: make(chan struct{})}
	fs := newFakes(false, false, ft)
	out := filepath.Join(t.TempDir(), "a.json")
	args := []string{"fake-a", "--config", fakeBridge(t), "--bridge", "fake", "--runs", "2", "--samples", "1",
		"--min-time", "1ms", "--out", out}
	go func() {
		<-ft.hold // the first case is measured and the program waits in the second
		syscall.Kill(os.Getpid(), syscall.SIGINT)
	}()
	if code := fs.run(args...); code != 130 {
		t.Fatalf("exit %d, want 130\n%s", code, fs.stderr.String())
	}
	a, err := artifact.Read(out)
	if err != nil || a.Complete || a.Case(cases.RefCase) == nil {
		t.Fatalf("partial artifact: %v, complete %v", err, a != nil && a.Complete)
	}
	if !strings.Contains(fs.stderr.String(), "partial artifact") || ft.closed.Load() != 1 {
		t.Errorf("want the partial artifact named and the target closed once:\n%s", fs.stderr.String())
	}
}

// TestCompareOnTheFakeTarget: compare alternates two programs in one session, writes an artifact per program into
// --out, prints the table and the paired comparison, and with --gate exits 3 on the 50% slowdown (exact on the
// fake target) and 0 between a program and itself.
func TestCompareOnTheFakeTarget(t *testing.T) {
	cfg := fakeBridge(t)
	for _, tc := range []struct {
		b    string
		code int
		want string
	}{
		{"fake:slowdown=0.5", 3, "regression: "},
		{"fake", 0, ""},
	} {
		fs := newFakes(false, false, &fakeTarget{name: "fake-a"})
		dir := t.TempDir()
		code := fs.run("compare", "fake-a", "fake", tc.b, "--config", cfg, "--cases", "script_to_host_scalar", "--runs", "6",
			"--samples", "1", "--min-time", "1ms", "--out", dir, "--gate")
		if code != tc.code || !strings.Contains(fs.stderr.String(), tc.want) {
			t.Errorf("compare fake %s: exit %d, want %d and %q\n%s", tc.b, code, tc.code, tc.want, fs.stderr.String())
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		if len(files) != 2 {
			t.Fatalf("compare wrote %q, want two artifacts", files)
		}
		a, err := artifact.Read(files[0])
		if err != nil || len(a.Session.Programs) != 2 || !slices.Equal(a.Session.Order[:4], []int{0, 1, 1, 0}) {
			t.Errorf("%s: %v, session %+v", files[0], err, a.Session)
		}
		if !strings.Contains(fs.stdout.String(), "script_to_host_scalar") || !strings.Contains(fs.stdout.String(), "paired") {
			t.Errorf("want the table and the paired comparison:\n%s", fs.stdout.String())
		}
	}
}

// TestCompareGateJudgingNothing: with 4 rounds a sign test cannot reach alpha 0.05, so compare --gate judges nothing
// even of a 50% slowdown: exit 4, not a pass, and 0 with --allow-unjudged.
func TestCompareGateJudgingNothing(t *testing.T) {
	cfg := fakeBridge(t)
	for _, tc := range []struct {
		more []string
		code int
	}{{nil, exitUnjudged}, {[]string{"--allow-unjudged"}, 0}} {
		fs := newFakes(false, false, &fakeTarget{name: "fake-a"})
		args := append([]string{"compare", "fake-a", "fake", "fake:slowdown=0.5", "--config", cfg, "--cases", "script_to_host_scalar",
			"--runs", "4", "--samples", "1", "--min-time", "1ms", "--out", t.TempDir(), "--gate"}, tc.more...)
		if code := fs.run(args...); code != tc.code || !strings.Contains(fs.stdout.String(), "raise --runs") {
			t.Errorf("%q: exit %d, want %d and what would judge it\n%s%s", tc.more, code, tc.code, fs.stdout.String(), fs.stderr.String())
		}
	}
}

// TestCompareSequentialStopsWhenClear: the rounds are sequential by default (and with --budget): they stop at the
// first look where every case is clear, a slowdown of half as regressed and no change as the same, and say how they
// ended; the verdict is the paired test's at that look's alpha. --runs alone fixes the rounds.
func TestCompareSequentialStopsWhenClear(t *testing.T) {
	cfg := fakeBridge(t)
	for _, tc := range []struct {
		b      string
		rounds []string
		code   int
	}{
		{"fake:slowdown=0.5", []string{"--budget", "10m"}, 3},
		{"fake", nil, 0}, // the default budget
	} {
		fs := newFakes(false, false, &fakeTarget{name: "fake-a"})
		dir := t.TempDir()
		args := append([]string{"compare", "fake-a", "fake", tc.b, "--config", cfg, "--cases", "script_to_host_scalar",
			"--samples", "1", "--min-time", "1ms", "--out", dir, "--gate"}, tc.rounds...)
		code := fs.run(args...)
		out := fs.stdout.String()
		if code != tc.code || !strings.Contains(out, "stopped because every case was clear; look ") {
			t.Errorf("compare fake %s %q: exit %d, want %d and the rounds stopped when clear\n%s%s", tc.b, tc.rounds, code, tc.code, out, fs.stderr.String())
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		if a, err := artifact.Read(files[0]); err != nil || len(a.Processes) >= 100 || len(a.Processes) < stats.SequentialFirstLook {
			t.Errorf("%s: %v, %d rounds; want a look's few", files[0], err, len(a.Processes))
		}
	}
	fs := newFakes(false, false, &fakeTarget{name: "fake-a"})
	dir := t.TempDir()
	code := fs.run("compare", "fake-a", "fake", "fake", "--config", cfg, "--cases", "script_to_host_scalar", "--runs", "3",
		"--samples", "1", "--min-time", "1ms", "--out", dir)
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if a, err := artifact.Read(files[0]); code != 0 || err != nil || len(a.Processes) != 3 || strings.Contains(fs.stdout.String(), "sequential:") {
		t.Errorf("compare --runs 3: exit %d, %v, want 3 fixed rounds\n%s%s", code, err, fs.stdout.String(), fs.stderr.String())
	}
	fs = newFakes(false, false)
	if code := fs.run("compare", "fake-a", "fake", "fake", "--config", cfg, "--budget", "-1s"); code != 1 || !strings.Contains(fs.stderr.String(), "--budget -1s: want a positive duration") {
		t.Errorf("--budget -1s: exit %d, %s", code, fs.stderr.String())
	}
}

// TestCompareRefusesBeforeMeasuring: compare's bad programs and flags exit 1 with the fix, before a target opens.
func TestCompareRefusesBeforeMeasuring(t *testing.T) {
	cfg := fakeBridge(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fake", "nope"}, `program "nope": want one of floor, json, fast, binary, fake`},
		{[]string{"fake", "fake:fast=1"}, `unknown option "fast"`},
		{[]string{"fake", "fake:slowdown=x"}, "want a share between 0 and 10"},
		{[]string{"fake", "fake", "--slowdown", "0.1"}, "--slowdown does not apply to compare"},
		{[]string{"fake", "fake", "--format", "yaml"}, `--format "yaml"`},
		{[]string{"fake", "fake", "--alpha", "2"}, "--alpha 2"},
	} {
		fs := newFakes(false, false, &fakeTarget{name: "fake-a"})
		code := fs.run(append([]string{"compare", "fake-a", "--config", cfg}, tc.args...)...)
		if code != 1 || !strings.Contains(fs.stderr.String(), tc.want) || fs.opened.Load() != 0 {
			t.Errorf("%q: exit %d, opened %d, want 1 and %q:\n%s", tc.args, code, fs.opened.Load(), tc.want, fs.stderr.String())
		}
	}
}

// TestGateOnTheFakeTarget: gate exits 0 between a run and itself, 3 on a 50% slowdown, still 3 when --confirm reruns
// both programs side by side on the fake target, and 1 on a missing side.
func TestGateOnTheFakeTarget(t *testing.T) {
	cfg := fakeBridge(t)
	dir := t.TempDir()
	base, slow := measureFake(t, cfg, dir, "base.json"), measureFake(t, cfg, dir, "slow.json", "--slowdown", "0.5")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{base, base}, 0, ""},
		{[]string{base, slow}, 3, "regression: "},
		{[]string{base, slow, "--confirm"}, 3, "regression: "},
		{[]string{base, filepath.Join(dir, "none.json")}, 1, "none.json"},
		{[]string{base, slow, "--metric", "cycles"}, 1, `--metric "cycles"`},
	} {
		fs := newFakes(false, false, &fakeTarget{name: "fake-a"})
		fs.factory.Builder = fakeBuild(t)
		code := fs.run(append([]string{"gate", "--config", cfg}, tc.args...)...)
		if code != tc.code || !strings.Contains(fs.stderr.String(), tc.want) {
			t.Errorf("gate %q: exit %d, want %d and %q\n%s%s", tc.args, code, tc.code, tc.want, fs.stdout.String(), fs.stderr.String())
		}
		if slices.Contains(tc.args, "--confirm") && (fs.opened.Load() != 1 || !strings.Contains(fs.stdout.String(), "--confirm")) {
			t.Errorf("--confirm opened %d targets; want one rerun reported:\n%s", fs.opened.Load(), fs.stdout.String())
		}
	}
}

// measureFake measures the fake bridge of config cfg on target fake-a (script_to_host_scalar, 6 processes of 2
// samples), with more flags, into dir/name, and returns that path.
func measureFake(t *testing.T, cfg, dir, name string, more ...string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	fs := newFakes(false, false, &fakeTarget{name: "fake-a"})
	args := append([]string{"fake-a", "--config", cfg, "--bridge", "fake", "--cases", "script_to_host_scalar",
		"--runs", "6", "--samples", "2", "--min-time", "1ms", "--out", out}, more...)
	if code := fs.run(args...); code != 0 {
		t.Fatalf("%s: exit %d\n%s", name, code, fs.stderr.String())
	}
	return out
}

// TestShowOnFakeArtifacts: show renders fake runs in every format, and names a file it cannot read.
func TestShowOnFakeArtifacts(t *testing.T) {
	out := filepath.Join(t.TempDir(), "a.json")
	fs := newFakes(false, false, &fakeTarget{name: "fake-a"})
	if code := fs.run(append([]string{"fake-a"}, fakeArgs(fakeBridge(t), "--out", out)...)...); code != 0 {
		t.Fatalf("exit %d\n%s", code, fs.stderr.String())
	}
	for _, format := range []string{"text", "markdown", "csv", "json", "benchstat"} {
		fs := newFakes(false, false)
		if code := fs.run("show", "--format", format, out, out); code != 0 || !strings.Contains(fs.stdout.String(), "script_to_host_scalar") {
			t.Errorf("show --format %s: exit %d\n%s%s", format, code, fs.stdout.String(), fs.stderr.String())
		}
	}
	fs = newFakes(false, false)
	if code := fs.run("show", out, out+".missing"); code != 1 || !strings.Contains(fs.stderr.String(), out+".missing") {
		t.Errorf("show of a missing file: exit %d\n%s", code, fs.stderr.String())
	}
}

// compare --format json prints one JSON object: the programs' table and the paired report.
func TestCompareJSONIsOneObject(t *testing.T) {
	fs := newFakes(false, false, &fakeTarget{name: "fake-a"})
	code := fs.run("compare", "fake-a", "fake", "fake:slowdown=0.5", "--config", fakeBridge(t), "--cases", "script_to_host_scalar",
		"--runs", "6", "--samples", "1", "--min-time", "1ms", "--out", t.TempDir(), "--format", "json")
	var out struct {
		Table  *struct{ Rows []any } `json:"table"`
		Paired *struct {
			Regressions []string `json:"regressions"`
		} `json:"paired"`
	}
	if err := json.Unmarshal([]byte(fs.stdout.String()), &out); err != nil || out.Table == nil || out.Paired == nil {
		t.Fatalf("exit %d, not one object (%v):\n%s", code, err, fs.stdout.String())
	}
	if len(out.Table.Rows) != 2 || len(out.Paired.Regressions) != 1 {
		t.Errorf("rows %d, regressions %q", len(out.Table.Rows), out.Paired.Regressions)
	}
}
