package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/targets"
)

// recordingTarget answers as a protocol 2 program would, whatever was pushed, and records what it was asked to
// push and run. After dieAfter runs of cases (0: never) it fails every run as a lost device does.
type recordingTarget struct {
	mu       sync.Mutex
	pushes   []string
	runs     []string // the program of every run of cases, in order
	dieAfter int
}

func (r *recordingTarget) Name() string                               { return "rec" }
func (r *recordingTarget) Platform() targets.Platform                 { return targets.Platform{} }
func (r *recordingTarget) Pull(context.Context, string, string) error { return nil }
func (r *recordingTarget) Device(context.Context) (artifact.Device, error) {
	return artifact.Device{}, nil
}
func (r *recordingTarget) Close() error                       { return nil }
func (r *recordingTarget) Capabilities() targets.Capabilities { return targets.Capabilities{} }

func (r *recordingTarget) Push(_ context.Context, local string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pushes = append(r.pushes, local)
	return "/rec/" + filepath.Base(local), nil
}

func (r *recordingTarget) Run(_ context.Context, program string, args []string, stdout, _ io.Writer) error {
	if args[0] == "list" {
		fmt.Fprintln(stdout, "ref_js_loop\na")
		return nil
	}
	r.mu.Lock()
	r.runs = append(r.runs, filepath.Base(program))
	lost := r.dieAfter > 0 && len(r.runs) > r.dieAfter
	r.mu.Unlock()
	if lost {
		return errors.New("connection lost")
	}
	fmt.Fprint(stdout, "bench-bridge-protocol 2\ntimer_overhead_ns 0\n")
	for i := 1; i < len(args); i++ {
		if strings.HasPrefix(args[i], "--") {
			i++ // every flag of run takes a value
			continue
		}
		switch args[i] {
		case "ref_js_loop":
			fmt.Fprint(stdout, "begin ref_js_loop\ncalibrated ref_js_loop 1000\nsample ref_js_loop 1000 20000\nend ref_js_loop\n")
		case "a":
			fmt.Fprint(stdout, "begin a\ncalibrated a 1000\nref a 1000 20000\nsample a 1000 50000\nend a\n")
		}
	}
	return nil
}

// prebuilt is a job of a prebuilt bench program at a path of its own (the target never runs it).
func prebuilt(t *testing.T, tgt targets.Target, name, out string, runs int) *Job {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := Options{Cases: []string{"ref_js_loop", "a"}, Samples: 1, MinTime: time.Millisecond, Runs: runs, Seed: 7,
		Stall: time.Minute}
	return &Job{Target: tgt, Kind: artifact.ProgramBridge, Codec: name, Options: o, Out: out, Log: io.Discard,
		User: &UserBridge{Name: name, Dir: dir, Binary: name}}
}

// runTwo runs a session of two programs of three rounds on tgt.
func runTwo(t *testing.T, tgt *recordingTarget) ([]*Job, []Result, error) {
	t.Helper()
	dir := t.TempDir()
	jobs := []*Job{prebuilt(t, tgt, "progA", filepath.Join(dir, "a.json"), 3), prebuilt(t, tgt, "progB", filepath.Join(dir, "b.json"), 3)}
	s, err := NewSession(jobs, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	results, err := s.Run(context.Background())
	return jobs, results, err
}

// TestSessionAlternatesItsPrograms: two programs run as rounds of one process each, A B then B A, every artifact
// records the session's order and its own index, and both programs share the session's id and seed.
func TestSessionAlternatesItsPrograms(t *testing.T) {
	tgt := &recordingTarget{}
	jobs, results, err := runTwo(t, tgt)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tgt.runs, " "); got != "progA progB progB progA progA progB" {
		t.Errorf("runs %s, want A B, B A, A B", got)
	}
	for i, r := range results {
		a := r.Artifact
		if a == nil || r.File != jobs[i].Out || !a.Complete {
			t.Fatalf("program %d: %+v", i, r)
		}
		if a.Session.Program != i || !slices.Equal(a.Session.Order, []int{0, 1, 1, 0, 0, 1}) || a.Session.Seed != 7 ||
			a.Session.ID != results[0].Artifact.Session.ID || len(a.Processes) != 3 {
			t.Errorf("program %d: session %+v with %d processes", i, a.Session, len(a.Processes))
		}
	}
}

// TestSessionPushesABinaryOnce: two programs of one binary (as json and json:slowdown=0.1 are) push it once.
func TestSessionPushesABinaryOnce(t *testing.T) {
	tgt := &recordingTarget{}
	dir := t.TempDir()
	a := prebuilt(t, tgt, "prog", filepath.Join(dir, "a.json"), 1)
	b := *a
	b.Out = filepath.Join(dir, "b.json")
	s, err := NewSession([]*Job{a, &b}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(tgt.pushes) != 1 || len(tgt.runs) != 2 {
		t.Errorf("pushed %q, ran %q: want one push and two runs", tgt.pushes, tgt.runs)
	}
}

// TestSessionKeepsWhatItMeasured: a device lost in the second round leaves both artifacts written with the first
// round, marked incomplete, and each program's error says its artifact is partial.
func TestSessionKeepsWhatItMeasured(t *testing.T) {
	tgt := &recordingTarget{dieAfter: 2}
	jobs, results, err := runTwo(t, tgt)
	if err == nil || !strings.Contains(err.Error(), "connection lost") {
		t.Fatalf("session error %v, want the lost connection", err)
	}
	for i, r := range results {
		read, rerr := artifact.Read(jobs[i].Out)
		if rerr != nil || read.Complete || r.Err == nil || !strings.Contains(r.Err.Error(), "partial artifact") {
			t.Errorf("program %d: read %v, error %v", i, rerr, r.Err)
			continue
		}
		if n := len(read.Case("a").Processes); n != 1 {
			t.Errorf("program %d kept %d processes of case a, want the first round's", i, n)
		}
	}
}

// TestSessionRefusesWhatCannotBeMeasuredTogether: programs on two targets, with different settings or one file,
// and settings that measure nothing are refused before anything builds.
func TestSessionRefusesWhatCannotBeMeasuredTogether(t *testing.T) {
	a, b := &recordingTarget{}, &recordingTarget{}
	dir := t.TempDir()
	job := func(tgt targets.Target, out string, runs int) *Job {
		return prebuilt(t, tgt, "p", filepath.Join(dir, out), runs)
	}
	for _, tc := range []struct {
		name string
		jobs []*Job
		want string
	}{
		{"none", nil, "at least one program"},
		{"two targets", []*Job{job(a, "a.json", 1), job(b, "b.json", 1)}, "one target"},
		{"settings", []*Job{job(a, "a.json", 1), job(a, "b.json", 2)}, "share cases, processes"},
		{"one file", []*Job{job(a, "a.json", 1), job(a, "a.json", 1)}, "two programs of one session write"},
		{"no processes", []*Job{job(a, "a.json", 0)}, "--runs"},
	} {
		if _, err := NewSession(tc.jobs, io.Discard); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if len(a.pushes)+len(b.pushes) > 0 {
		t.Errorf("pushed %d programs for sessions that cannot run", len(a.pushes)+len(b.pushes))
	}
}
