package session

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/runner"
	"github.com/bench-bridge/bench-bridge/targets"
)

// FloorProgram reads a program of a session named floor or floor:ENGINE: the floor of QuickJS, or of another engine
// of engines.All. ok is false for a program that is not a floor; err refuses an engine bench-bridge does not know or
// has no floor for, naming it.
func FloorProgram(program string) (engine string, ok bool, err error) {
	name, engine, _ := strings.Cut(program, ":")
	if name != artifact.ProgramFloor {
		return "", false, nil
	}
	if engine == "" {
		return engines.Default, true, nil
	}
	if _, err := engines.WithFloor(engine); err != nil {
		return "", true, fmt.Errorf("program %q: %w", program, err)
	}
	return engine, true, nil
}

// FloorEngines are the engines of engines.All that have a floor, in its order: QuickJS first.
func FloorEngines() []string {
	var names []string
	for _, e := range engines.All {
		if e.Floor != nil {
			names = append(names, e.Name)
		}
	}
	return names
}

// Skipped is an engine whose floor a session of several engines leaves out, with why.
type Skipped struct {
	Engine string
	Why    error
}

// EngineFloors are the jobs of one session of the floors of these engines on t, one per engine, each writing its
// usual artifact (floor-ENGINE-TARGET.json) in dir, so that Run alternates their processes round by round and
// whatever the machine does falls on every engine alike. plan gives the options (its Kind, Engine and Out are
// each job's own). An engine whose floor cannot be built for t (a library of this machine on a phone, a missing
// part) is left out with why, built programs coming from the cache when Run builds them again.
func EngineFloors(ctx context.Context, plan Plan, t targets.Target, names []string, dir string, log io.Writer) ([]*runner.Job, []Skipped) {
	var jobs []*runner.Job
	var skipped []Skipped
	for _, name := range names {
		p := plan
		p.Kind, p.Engine = artifact.ProgramFloor, name
		p.Out = filepath.Join(dir, DefaultName(t.Name(), artifact.ProgramFloor, "", name))
		job := p.Job(t, log)
		if _, err := job.Binary(ctx); err != nil {
			skipped = append(skipped, Skipped{Engine: name, Why: err})
			continue
		}
		jobs = append(jobs, job)
	}
	return jobs, skipped
}
