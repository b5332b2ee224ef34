package runner

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
)

// TestMeasureBoundsWhatAProgramPrints runs a real program that floods the runner in each way it can: every case
// that does fails with the bound it broke named, and the well-behaved case after it is still measured.
func TestMeasureBoundsWhatAProgramPrints(t *testing.T) {
	prog := mustAbs(t, "testdata/faulty.sh")
	o := faultyOptions("flood", "longline", "chatter", "metaflood", "a")
	o.Samples, o.Stall, o.CaseTimeout = 3, 5*time.Second, 2*time.Second
	raw, err := measure(context.Background(), localTarget(t), prog, o)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"flood":     "more than 12 sample records in case flood (the sample cap, 4 times --samples)",
		"longline":  "longer than the line cap of 1 MiB",
		"chatter":   "ran longer than the case deadline of 2s",
		"metaflood": "more than 100 meta keys (the cap on meta keys)",
	} {
		if f := failure(raw, name); f == nil || !strings.Contains(f.Reason, want) {
			t.Errorf("%s: failure %+v, want %q", name, f, want)
		}
	}
	if cs := raw.cases(); len(cs) == 0 || cs[len(cs)-1].Name != "a" || cs[len(cs)-1].Partial {
		t.Errorf("cases %+v, want a measured after the floods", cs)
	}
	if len(raw.Meta) > maxMetaKeys {
		t.Errorf("%d meta keys kept, the cap is %d", len(raw.Meta), maxMetaKeys)
	}
}

// TestProgressStripsControlCharacters: a program's error message with escape sequences (a terminal title) reaches
// the progress lines and the events without them.
func TestProgressStripsControlCharacters(t *testing.T) {
	var progress strings.Builder
	var reasons []string
	o := faultyOptions("evil", "a")
	o.Progress = &progress
	if _, err := measure(context.Background(), localTarget(t), mustAbs(t, "testdata/faulty.sh"), o); err != nil {
		t.Fatal(err)
	}
	o.Progress, o.OnEvent = nil, func(e Event) { reasons = append(reasons, e.Reason) }
	if _, err := measure(context.Background(), localTarget(t), mustAbs(t, "testdata/faulty.sh"), o); err != nil {
		t.Fatal(err)
	}
	for _, text := range append(reasons, progress.String()) {
		if strings.ContainsAny(text, "\x1b\x07") {
			t.Errorf("a control character reached the display: %q", text)
		}
	}
	if !strings.Contains(progress.String(), "evil") || !strings.Contains(progress.String(), "owned-title") {
		t.Errorf("progress %q, want the failure with its text", progress.String())
	}
}

// TestFinishWritesOnlyValidArtifacts: an artifact that Validate refuses is not written, and finish returns no
// artifact for it, so that no one prints "wrote" of a file that is not there; a valid one is written and returned.
func TestFinishWritesOnlyValidArtifacts(t *testing.T) {
	out := processOutputs()[0]
	for _, target := range []string{"", "fuzz"} {
		o := Options{Cases: []string{"ref_js_loop", "a"}, Samples: 2, MinTime: time.Millisecond, Runs: 1, Stall: time.Minute}
		tgt := scriptTarget{out: []byte(out)}
		file := filepath.Join(t.TempDir(), "x.json")
		p := &prepared{job: &Job{Target: tgt, Options: o, Out: file, Log: io.Discard}, prog: &build.Binary{},
			art: &artifact.Artifact{Schema: artifact.Schema, Target: target, Kind: artifact.ProgramBridge},
			m:   newMeasurement(tgt, "prog", o)}
		if err := p.m.Process(context.Background(), 0, o.Cases); err != nil {
			t.Fatal(err)
		}
		a, err := p.finish(context.Background(), nil)
		_, statErr := os.Stat(file)
		switch {
		case target == "" && (a != nil || err == nil || !strings.Contains(err.Error(), "not written") || statErr == nil):
			t.Errorf("invalid artifact: returned %v, %v; file: %v", a != nil, err, statErr)
		case target != "" && (a == nil || err != nil || statErr != nil):
			t.Errorf("valid artifact: returned %v, %v; file: %v", a != nil, err, statErr)
		}
	}
}
