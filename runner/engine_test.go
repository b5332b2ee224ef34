package runner

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestAnEngineIsItsEntryAndItsFloor: an engine that exists only in this test, "nulljs" (one entry added to
// engines.All, and its floor in testdata/engine: a C file that links nothing but the harness), is all it takes for
// build to have and build its floor, and for the runner to list the floor's cases and measure one: the artifact
// names the engine.
func TestAnEngineIsItsEntryAndItsFloor(t *testing.T) {
	testenv.Require(t, "cc", "apt-get install gcc (scripts/setup does it)")
	all := engines.All
	engines.All = append(slices.Clone(all), engines.Engine{Name: "nulljs", Title: "NullJS", Kind: engines.Interpreter,
		Floor: &engines.Floor{File: "floor_nulljs.c", Files: os.DirFS("testdata/engine"), Define: "BB_ENGINE_NONE"}})
	t.Cleanup(func() { engines.All = all })
	if !slices.Contains(build.EngineFloors(), "nulljs") {
		t.Fatalf("build's engine floors %v lack the engine of the list", build.EngineFloors())
	}

	opts := DefaultOptions()
	opts.Cases, opts.Runs, opts.Samples, opts.MinTime, opts.Warmup = []string{"ref_js_loop"}, 1, 1, time.Millisecond, time.Millisecond
	var log strings.Builder
	job := &Job{Target: localTarget(t), Kind: artifact.ProgramFloor, Engine: "nulljs", Options: opts,
		Out: filepath.Join(t.TempDir(), "floor-nulljs.json"), Log: &log}
	prog, err := job.Binary(context.Background())
	if err != nil {
		t.Fatalf("building the nulljs floor: %v\n%s", err, log.String())
	}
	if listed, err := ListCases(context.Background(), job.Target, prog.Path); err != nil || !slices.Equal(listed, opts.Cases) {
		t.Fatalf("the nulljs floor lists %v, %v; want %v", listed, err, opts.Cases)
	}
	s, err := NewSession([]*Job{job}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	results, err := s.Run(context.Background())
	if err != nil {
		t.Fatalf("measuring the nulljs floor: %v\n%s", err, log.String())
	}
	a := results[0].Artifact
	if a.Engine.Name != "nulljs" || a.Engine.Version != "0.1" || a.Kind != artifact.ProgramFloor || len(a.Cases) != 1 ||
		a.Cases[0].Name != "ref_js_loop" || len(a.NotImplemented) != 0 {
		t.Errorf("artifact: engine %+v, program %s, cases %+v, not implemented %v", a.Engine, a.Kind, a.Cases, a.NotImplemented)
	}
}
