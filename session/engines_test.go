package session

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/runner"
	"github.com/bench-bridge/bench-bridge/targets"
)

func TestFloorProgram(t *testing.T) {
	for program, want := range map[string]string{"floor": engines.Default, "floor:mujs": engines.MuJS, "floor:goja": engines.Goja} {
		if engine, ok, err := FloorProgram(program); err != nil || !ok || engine != want {
			t.Errorf("FloorProgram(%q) = %q, %v, %v; want %q", program, engine, ok, err, want)
		}
	}
	if _, ok, err := FloorProgram("json:slowdown=0.1"); ok || err != nil {
		t.Errorf("json is not a floor: %v, %v", ok, err)
	}
	if _, _, err := FloorProgram("floor:rquickjs"); err == nil || !strings.Contains(err.Error(), `"floor:rquickjs"`) {
		t.Errorf("an engine bench-bridge does not know: %v, want an error naming the program", err)
	}
}

// FloorEngines is engines.All's engines with a floor, in its order: an engine added there joins the sessions.
func TestFloorEngines(t *testing.T) {
	names := FloorEngines()
	if len(names) == 0 || names[0] != engines.Default {
		t.Fatalf("FloorEngines() = %v, want QuickJS first", names)
	}
	for _, e := range engines.All {
		if slices.Contains(names, e.Name) != (e.Floor != nil) {
			t.Errorf("%s: in the list %v, with a floor %v", e.Name, slices.Contains(names, e.Name), e.Floor != nil)
		}
	}
}

// EngineFloors makes one job per engine whose floor builds, each with its usual artifact in the folder and the plan's
// options, and leaves out with why an engine whose floor does not build.
func TestEngineFloors(t *testing.T) {
	tgt, err := targets.Open(context.Background(), "linux", nil, targets.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	refused := errors.New("no library for this target")
	plan := Plan{Options: runner.Options{Cases: []string{"script_to_host_scalar"}, Runs: 2, Samples: 1},
		Builder: func(_ context.Context, j *runner.Job) (*build.Binary, error) {
			if j.Engine == engines.JSC {
				return nil, refused
			}
			return &build.Binary{}, nil
		}}
	dir := t.TempDir()
	jobs, skipped := EngineFloors(context.Background(), plan, tgt, []string{engines.QuickJS, engines.JSC, engines.MuJS}, dir, nil)
	if len(skipped) != 1 || skipped[0].Engine != engines.JSC || !errors.Is(skipped[0].Why, refused) {
		t.Errorf("skipped %v, want jsc with its reason", skipped)
	}
	want := []string{filepath.Join(dir, "floor-linux.json"), filepath.Join(dir, "floor-mujs-linux.json")}
	var got []string
	for _, j := range jobs {
		got = append(got, j.Out)
		if j.Options.Runs != 2 || j.Kind != artifact.ProgramFloor {
			t.Errorf("job %s: runs %d, kind %q; want the plan's options and a floor", j.Out, j.Options.Runs, j.Kind)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("artifacts %v, want %v", got, want)
	}
	if _, err := runner.NewSession(jobs, nil); err != nil {
		t.Errorf("the jobs do not make one session: %v", err)
	}
}

// compare's floor:ENGINE is that engine's floor, its artifact named for it, with options after a comma; an engine
// without a floor is refused, named.
func TestCompareTakesEngineFloors(t *testing.T) {
	cfg := &config.Config{}
	p, err := ParseProgramArg("floor:mujs,slowdown=0.1", cfg)
	if err != nil || p.Kind != artifact.ProgramFloor || p.Engine != engines.MuJS || p.Slowdown != 0.1 {
		t.Fatalf("floor:mujs,slowdown=0.1: %+v, %v", p, err)
	}
	if got := p.FileName(1, "linux"); got != "b-floor-mujs-linux-slowdown0.1.json" {
		t.Errorf("file %s", got)
	}
	if p, err := ParseProgramArg("floor", cfg); err != nil || p.Engine != "" || p.FileName(0, "linux") != "a-floor-linux.json" {
		t.Errorf("floor: %+v, %v", p, err)
	}
	if _, err := ParseProgramArg("floor:nope", cfg); err == nil || !strings.Contains(err.Error(), `"floor:nope"`) {
		t.Errorf("floor:nope: %v, want an error naming it", err)
	}
	_, plans, err := ComparePlans([]string{"floor", "floor:duktape"}, Choice{}, Settings{Runs: 2, Samples: 1, MinTime: time.Millisecond, Record: RecordTimes}, t.TempDir(), cfg, nil)
	if err != nil || plans[0].Engine != "" || plans[1].Engine != engines.Duktape {
		t.Errorf("plans of floor and floor:duktape: %v, %v", plans, err)
	}
}
