package runner

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/stats"
	"github.com/bench-bridge/bench-bridge/targets"
)

// The device's state in every process: the runner reads it just before each process starts and just after it ends
// (never while one measures), marks the processes that ran in another state than the run's fastest
// (stats.MarkProcesses), and with --cooldown measures them again after a rest. --cpu and --lock-clocks set the CPUs
// up before the session's first process and give the clocks back after its last.

// cooldownRetries is how many times a marked process is measured again at most: a device that stays hot keeps it
// marked rather than the run going on for ever.
const cooldownRetries = 2

// tuning is what a session did to its target's CPUs.
type tuning struct {
	cpus   targets.CPUs // nil when nothing was done
	clocks *artifact.Clocks
	pinned *int // the one core the programs are pinned to, if one
	locked bool
	log    io.Writer
}

// tune pins the session's programs (--cpu) and locks the clocks (--lock-clocks) before anything runs on the target.
func (s *Session) tune(ctx context.Context) (*tuning, error) {
	o := s.jobs[0].Options
	t := &tuning{log: s.log}
	if o.CPU == "" && !o.LockClocks {
		return t, nil
	}
	cpus := s.target.Capabilities().CPUs
	if cpus == nil {
		return nil, fmt.Errorf("target %s: --cpu and --lock-clocks need a target that can run taskset and read sysfs", s.target.Name())
	}
	all, err := cpus.Cores(ctx)
	if err != nil {
		return nil, err
	}
	t.cpus, t.clocks = cpus, &artifact.Clocks{CPU: o.CPU}
	chosen := make([]int, len(all))
	for i, c := range all {
		chosen[i] = c.ID
	}
	if o.CPU != "" {
		if chosen, err = targets.ChooseCores(all, o.CPU); err != nil {
			return nil, fmt.Errorf("target %s: %w", s.target.Name(), err)
		}
		if err := cpus.Pin(chosen); err != nil {
			return nil, err
		}
		t.clocks.Cores = chosen
		if len(chosen) == 1 {
			t.pinned = &chosen[0]
		}
	}
	if o.LockClocks {
		if t.clocks.Locked, err = cpus.LockClocks(ctx, chosen); err != nil {
			return nil, err
		}
		t.locked = true
		for _, l := range t.clocks.Locked {
			fmt.Fprintf(t.log, "%s: cores %s held at %d MHz (%s governor) until the end of the run\n", s.target.Name(),
				targets.CoreList(l.Cores), l.KHz/1000, l.Governor)
		}
	}
	return t, nil
}

// apply gives a prepared program what the tuning set up: the artifact's clocks and the core it is pinned to.
func (t *tuning) apply(p *prepared) {
	p.art.Settings.Clocks = t.clocks
	p.art.Settings.CooldownNs = p.job.Options.Cooldown.Nanoseconds()
	p.m.pinned = t.pinned
	if p.job.Log != nil {
		p.m.log = p.job.Log
	}
}

// restore gives the device's clocks back, within the target's own bound even when ctx was cancelled (Ctrl-C): the
// settings must not outlive the run. What cannot be given back stays saved on the device for the next connection.
func (t *tuning) restore(ctx context.Context) {
	if !t.locked {
		return
	}
	if err := t.cpus.RestoreClocks(context.WithoutCancel(ctx)); err != nil {
		fmt.Fprintf(t.log, "warning: %v\n", err)
	}
}

// Process runs one process of the program (runProcess) between two readings of the device's state; a process that
// broke the run (a lost device, Ctrl-C) gets no reading after it.
func (m *measurement) Process(ctx context.Context, seq int, order []string) error {
	start := m.readState(ctx)
	err := m.runProcess(ctx, seq, order)
	proc := &m.Raw.Processes[len(m.Raw.Processes)-1]
	proc.Start = start
	if err == nil {
		proc.End = m.readState(ctx)
	}
	if proc.CPU == nil && m.pinned != nil {
		core := *m.pinned
		proc.CPU = &core
	}
	return err
}

// readState reads the device's state, or nil when the target cannot; a failure is told once.
func (m *measurement) readState(ctx context.Context) *targets.State {
	cpus := m.target.Capabilities().CPUs
	if cpus == nil {
		return nil
	}
	st, err := cpus.State(ctx)
	if err != nil {
		if !m.stateWarned && ctx.Err() == nil {
			fmt.Fprintf(m.log, "warning: the processes record no device state: %v\n", err)
			m.stateWarned = true
		}
		return nil
	}
	return &st
}

// speeds reads what the marking rule needs of every process: its least ref_js_loop sample (its own samples and
// those beside every other case, per op) and its core's frequency at its start and end.
func speeds(raw *Raw) []stats.ProcessSpeed {
	out := make([]stats.ProcessSpeed, len(raw.Processes))
	for i, p := range raw.Processes {
		least := math.Inf(1)
		for _, c := range p.Cases {
			ops, ns := c.RefOps, c.RefNs
			if c.Name == cases.RefCase {
				ops, ns = c.Ops, c.Ns
			}
			for _, v := range perOp(ops, ns, p.TimerOverheadNs) {
				if v > 0 {
					least = min(least, v)
				}
			}
		}
		if !math.IsInf(least, 1) {
			out[i].RefLeastNs = least
		}
		if p.CPU != nil && p.Start != nil && p.End != nil {
			out[i].FreqStartKHz = float64(p.Start.FreqKHz[*p.CPU])
			out[i].FreqEndKHz = float64(p.End.FreqKHz[*p.CPU])
		}
	}
	return out
}

// markReasons says why each process is marked, by stats.MarkProcesses at stats.DefaultMarks; an empty list for a
// process that is not.
func markReasons(raw *Raw) [][]string {
	sp := speeds(raw)
	th := stats.DefaultMarks
	out := make([][]string, len(sp))
	for i, m := range stats.MarkProcesses(sp, th) {
		if m.Slow {
			out[i] = append(out[i], fmt.Sprintf("%s's least sample %s, %.1f%% above the fastest process's (more than %.0f%%)",
				cases.RefCase, artifact.FormatNs(sp[i].RefLeastNs), 100*(m.RefRatio-1), 100*th.MaxRefSlowdown))
		}
		if m.FreqChanged {
			out[i] = append(out[i], fmt.Sprintf("cpu %d's clock went from %.0f MHz at its start to %.0f MHz at its end",
				*raw.Processes[i].CPU, sp[i].FreqStartKHz/1000, sp[i].FreqEndKHz/1000))
		}
	}
	return out
}

// recordStates fills a's processes with the core, the device's state and the marks of raw's.
func recordStates(a *artifact.Artifact, raw *Raw) {
	reasons := markReasons(raw)
	for i, rp := range raw.Processes {
		p := &a.Processes[i]
		p.CPU, p.Retries, p.Marks = rp.CPU, rp.Retries, reasons[i]
		if rp.Start != nil {
			p.Start = rp.Start.For(rp.CPU)
		}
		if rp.End != nil {
			p.End = rp.End.For(rp.CPU)
		}
	}
}

// cooldown measures the marked processes of every program again, each after the device rested o.Cooldown, as long
// as some are marked and at most cooldownRetries times each; a retry takes its process's place.
func (s *Session) cooldown(ctx context.Context, preps []*prepared) error {
	o := s.jobs[0].Options
	if o.Cooldown <= 0 {
		return nil
	}
	for range cooldownRetries {
		retried := false
		for _, p := range preps {
			for k, why := range markReasons(p.m.Raw) {
				if len(why) == 0 || p.m.Raw.Processes[k].Retries >= cooldownRetries {
					continue
				}
				fmt.Fprintf(s.log, "%s: process %d of %s is marked (%s): resting %s, then measuring it again\n",
					s.target.Name(), k, p.art.Label(), strings.Join(why, "; "), o.Cooldown)
				if err := rest(ctx, o.Cooldown); err != nil {
					return fmt.Errorf("%s: %w", s.target.Name(), err)
				}
				if err := p.m.retry(ctx, k); err != nil {
					return err
				}
				retried = true
			}
		}
		if !retried {
			return nil
		}
	}
	return nil
}

// rest waits d, or until ctx ends.
func rest(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retry measures process k again, in its round and case order, and puts the new process in its place; a retry that
// breaks leaves the old one.
func (m *measurement) retry(ctx context.Context, k int) error {
	old := m.Raw.Processes[k]
	m.total += len(old.Order)
	err := m.Process(ctx, old.Seq, slices.Clone(old.Order))
	last := len(m.Raw.Processes) - 1
	if err == nil {
		m.Raw.Processes[last].Retries = old.Retries + 1
		m.Raw.Processes[k] = m.Raw.Processes[last]
	}
	m.Raw.Processes = m.Raw.Processes[:last]
	return err
}
