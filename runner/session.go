package runner

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/targets"
)

// Session measures one or more programs on one target together: it builds and pushes each program once, then runs
// rounds of one process per program, every program of a round in the round's case order, alternating the programs'
// order from round to round (A B, B A, ...) so that what the machine does at any moment falls on all of them alike.
// It keeps every process and writes one artifact per program. A run of one program is a session of one.
type Session struct {
	target targets.Target
	jobs   []*Job
	log    io.Writer
	seed   uint64
	// Stop, when set, is asked after each round whether the session has measured enough: a sequential test stops
	// the rounds (at most Options.Runs) as soon as its answer is clear. interim assembles the programs' artifacts of
	// the rounds so far, in the jobs' order. It is first asked with 0 rounds as the rounds begin, the programs built.
	Stop func(rounds int, interim func() []*artifact.Artifact) bool
}

// Result is what a session made of one job: the artifact when one was written (also when the session broke
// part-way; nil when it could not be written), its file, and what went wrong for it.
type Result struct {
	Artifact *artifact.Artifact
	File     string
	Err      error
}

// NewSession checks that jobs can be measured together, on their one target, and returns their session. Every job
// shares the measuring settings (cases, processes, samples, times); only what builds the program, its busy work and
// its artifact's path differ.
func NewSession(jobs []*Job, log io.Writer) (*Session, error) {
	if len(jobs) == 0 {
		return nil, errors.New("a session needs at least one program")
	}
	first := jobs[0]
	if err := first.Options.check(); err != nil {
		return nil, err
	}
	outs := map[string]bool{}
	for _, j := range jobs {
		switch {
		case j.Target != first.Target:
			return nil, fmt.Errorf("a session runs on one target: %s and %s", first.Target.Name(), j.Target.Name())
		case !sameSettings(j.Options, first.Options):
			return nil, fmt.Errorf("the programs of a session share cases, processes, samples and times (%s)", j.Out)
		case outs[j.Out]:
			return nil, fmt.Errorf("two programs of one session write %s", j.Out)
		}
		outs[j.Out] = true
	}
	return &Session{target: first.Target, jobs: jobs, log: log, seed: first.Options.Seed}, nil
}

// check refuses settings that cannot measure anything.
func (o Options) check() error {
	switch {
	case o.Runs < 1:
		return fmt.Errorf("processes (--runs) must be at least 1, not %d", o.Runs)
	case o.Samples < 1:
		return fmt.Errorf("samples (--samples) must be at least 1, not %d", o.Samples)
	case len(o.Cases) == 0:
		return errors.New("no cases to measure")
	}
	return nil
}

// sameSettings reports whether two jobs' options measure alike: everything but the busy work and the listeners.
func sameSettings(a, b Options) bool {
	return slices.Equal(a.Cases, b.Cases) && a.Runs == b.Runs && a.Samples == b.Samples && a.MinTime == b.MinTime &&
		a.Warmup == b.Warmup && a.Seed == b.Seed && a.Stall == b.Stall && a.CaseTimeout == b.CaseTimeout &&
		a.Instructions == b.Instructions && a.CPU == b.CPU && a.LockClocks == b.LockClocks && a.Cooldown == b.Cooldown
}

// Run builds and pushes every program (a binary that two programs share is pushed once), then runs the rounds. It
// returns one result per job, in the jobs' order, and their errors joined. When the session breaks part-way (a lost
// device, Ctrl-C), each artifact is still written with what was measured, marked incomplete, and its job's error
// says so; a job whose artifact lists failed cases has an error too. Results are nil when a program cannot be built
// or pushed. The target's CPUs are pinned and their clocks locked first when the options ask (tune), the clocks given
// back on the way out, with --cooldown the marked processes are measured again after the rounds, and a run of one
// program measures more processes until its cases have enough in the device's fastest state (fill).
func (s *Session) Run(ctx context.Context) ([]Result, error) {
	start := time.Now()
	pushed := map[string]string{}
	push := func(ctx context.Context, local string) (string, error) {
		if r, ok := pushed[local]; ok {
			return r, nil
		}
		r, err := s.target.Push(ctx, local)
		if err == nil {
			pushed[local] = r
		}
		return r, err
	}
	defer s.done()
	tuned, err := s.tune(ctx)
	if err != nil {
		return nil, err
	}
	defer tuned.restore(ctx)
	var preps []*prepared
	var labels []string
	for _, j := range s.jobs {
		p, err := j.prepare(ctx, push)
		if err != nil {
			return nil, err
		}
		tuned.apply(p)
		preps, labels = append(preps, p), append(labels, p.art.Label())
	}
	if s.seed == 0 {
		s.seed = NewSeed()
	}
	session := artifact.Session{ID: newSessionID(), Programs: labels, Seed: s.seed}
	for i, p := range preps {
		p.art.Session, p.art.Session.Program = session, i
		p.art.StartedAt = time.Now().UTC()
	}
	s.announce(preps, labels)
	order, runErr := s.rounds(ctx, preps)
	if runErr == nil {
		runErr = s.cooldown(ctx, preps)
	}
	if runErr == nil {
		var added int
		added, runErr = s.fill(ctx, preps)
		preps[0].m.Raw.Added = added
		for range added {
			order = append(order, 0)
		}
	}
	results := make([]Result, len(preps))
	var errs []error
	for i, p := range preps {
		p.art.Session.Order = order
		a, err := p.finish(ctx, runErr)
		if a != nil {
			fmt.Fprintf(s.log, "wrote %s in %s\n", p.job.Out, time.Since(start).Round(100*time.Millisecond))
			if err == nil && !a.Complete {
				err = fmt.Errorf("%d of %d cases failed (see %s)", len(a.Failures), len(p.job.Options.Cases), p.job.Out)
			}
		}
		results[i] = Result{Artifact: a, File: p.job.Out, Err: err}
		errs = append(errs, err)
	}
	return results, errors.Join(errs...)
}

// done tells each job's listener that its program is done.
func (s *Session) done() {
	for _, j := range s.jobs {
		if j.Options.OnEvent != nil {
			j.Options.OnEvent(Event{Kind: ProgramDone, Target: s.target.Name()})
		}
	}
}

// announce says what the session is about to measure.
func (s *Session) announce(preps []*prepared, labels []string) {
	o := preps[0].job.Options
	if len(preps) == 1 {
		fmt.Fprintf(s.log, "running %s on %s: %d cases, %d processes of %d samples of at least %s each\n", labels[0],
			s.target.Name(), len(o.Cases), o.Runs, o.Samples, o.MinTime)
		return
	}
	rounds := fmt.Sprintf("%d rounds", o.Runs)
	if s.Stop != nil {
		rounds = fmt.Sprintf("rounds until the answer is clear (at most %d)", o.Runs)
	}
	fmt.Fprintf(s.log, "comparing %s on %s: %s of %d processes, %d cases, %d samples of at least %s each\n",
		strings.Join(labels, ", "), s.target.Name(), rounds, len(preps), len(o.Cases), o.Samples, o.MinTime)
}

// rounds runs the session's processes: round r runs the programs forward when r is even and backward when it is odd,
// all in round r's case order. It returns the program index of every process begun, in order, and the first error.
func (s *Session) rounds(ctx context.Context, preps []*prepared) ([]int, error) {
	o := preps[0].job.Options
	var order []int
	if s.Stop != nil && s.Stop(0, func() []*artifact.Artifact { return interim(preps) }) {
		return order, nil
	}
	for r := range o.Runs {
		caseOrder := CaseOrder(s.seed, r, o.Cases)
		for k := range preps {
			i := k
			if r%2 == 1 {
				i = len(preps) - 1 - k
			}
			order = append(order, i)
			if err := preps[i].m.Process(ctx, r, caseOrder); err != nil {
				return order, err
			}
		}
		if s.Stop != nil && s.Stop(r+1, func() []*artifact.Artifact { return interim(preps) }) {
			break
		}
	}
	return order, nil
}

// interim assembles each program's artifact of what was measured so far, leaving the session's own untouched.
func interim(preps []*prepared) []*artifact.Artifact {
	var out []*artifact.Artifact
	for _, p := range preps {
		a := *p.art
		a.Failures, a.Warnings, a.Processes, a.Cases = slices.Clone(a.Failures), slices.Clone(a.Warnings), nil, nil
		Assemble(&a, p.m.Raw, p.job.Options.Cases)
		out = append(out, &a)
	}
	return out
}

// newSessionID is unique per session: the start time and random bits.
func newSessionID() string {
	var id [4]byte
	crand.Read(id[:])
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(id[:])
}

// Hold takes a machine for its sessions before the first of them begins, and returns the context they run in (it
// ends when the machine is taken from the run) and what gives the machine back, with its error.
type Hold func(ctx context.Context, t targets.Target) (held context.Context, release func() error, err error)

// RunAll runs sessions on several targets: sessions on different machines at the same time, sessions sharing a
// machine (the local one) one after another, so that they do not disturb each other's numbers. hold, when not nil,
// takes each machine for its sessions; a machine it cannot take fails its sessions alone. It returns each session's
// results and error, in the sessions' order.
func RunAll(ctx context.Context, sessions []*Session, hold Hold) ([][]Result, []error) {
	results, errs := make([][]Result, len(sessions)), make([]error, len(sessions))
	groups := map[string][]int{}
	for i, s := range sessions {
		m := targets.Machine(s.target)
		groups[m] = append(groups[m], i)
	}
	var wg sync.WaitGroup
	for _, idx := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			held, release := ctx, func() error { return nil }
			if hold != nil {
				var err error
				if held, release, err = hold(ctx, sessions[idx[0]].target); err != nil {
					for _, i := range idx {
						errs[i] = err
					}
					return
				}
			}
			for _, i := range idx {
				results[i], errs[i] = sessions[i].Run(held)
			}
			last := idx[len(idx)-1]
			errs[last] = errors.Join(errs[last], release())
		}()
	}
	wg.Wait()
	return results, errs
}
