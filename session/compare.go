package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/runner"
	"github.com/bench-bridge/bench-bridge/targets"
)

// Comparison is one `bench-bridge compare`: several programs measured on one target in one session, their processes
// alternating round by round, sequential within Budget when it is above 0.
type Comparison struct {
	Open    OpenFunc
	Target  string
	Specs   map[string]targets.Spec
	Device  targets.Overrides
	Args    []ProgramArg // the programs, as the command line named them
	Plans   []Plan       // each program's plan, its Out set by Run
	Out     string       // the artifacts' directory; "" for OutDir/compare-TARGET
	OutDir  string
	Options analysis.Options // the gate's, which the sequential rule looks with
	Budget  time.Duration
	Wait    time.Duration // for a device another run holds
	Log     io.Writer
	// Track, when set, gives a job the handler of its events, labelled "a json" and counting total cases.
	Track func(label string, total int) func(runner.Event)
}

// Compared is what a comparison measured: every artifact it wrote, the options its paired tests judge with (the
// sequential rule's last alpha), and its notes.
type Compared struct {
	Loaded   []analysis.Loaded
	Options  analysis.Options
	Notes    []analysis.Warning
	Complete bool // every program has its artifact
}

// Run opens the target, holds it, measures every program in rounds and returns what it measured; an error with
// what was measured before it.
func (c Comparison) Run(ctx context.Context) (Compared, error) {
	out := Compared{Options: c.Options}
	t, err := c.Open(ctx, c.Target, c.Specs, c.Device)
	if err != nil {
		return out, err
	}
	defer t.Close()
	var seq *Sequential
	if c.Budget > 0 {
		seq = NewSequential(c.Options, c.Budget)
	}
	jobs := c.jobs(t)
	held, release, err := Hold(c.Wait, c.Log)(ctx, t)
	if err != nil {
		return out, err
	}
	arts, files, runErr := Run(held, jobs, c.Log, seq)
	runErr = errors.Join(runErr, release())
	if len(arts) == 0 {
		return out, runErr
	}
	if seq != nil {
		out.Options = seq.Judged() // the last look's alpha, so that the error rates hold at every look
		out.Notes = append(out.Notes, seq.Note())
	}
	out.Loaded, out.Complete = analysis.LoadedFrom(arts, files), len(arts) == len(jobs)
	return out, runErr
}

// jobs are the plans' jobs on t, each artifact named for its program (a-..., b-...) in Out or its default.
func (c Comparison) jobs(t targets.Target) []*runner.Job {
	dir := c.Out
	if dir == "" {
		dir = filepath.Join(c.OutDir, "compare-"+t.Name())
	}
	jobs := make([]*runner.Job, len(c.Plans))
	for i, p := range c.Plans {
		p.Out = filepath.Join(dir, c.Args[i].FileName(i, t.Name()))
		jobs[i] = p.Job(t, c.Log)
		if c.Track != nil {
			label := fmt.Sprintf("%c %s", 'a'+i, strings.TrimSuffix(filepath.Base(p.Out)[2:], ".json"))
			jobs[i].Options.OnEvent = c.Track(label, jobs[i].Options.Runs*len(jobs[i].Options.Cases))
		}
	}
	return jobs
}
