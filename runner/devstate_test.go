package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/targets"
)

// phoneTarget is a device whose state the test sets: each run of cases prints a protocol 2 process on core 2 whose
// ref_js_loop takes refNs(run) per 1000 ops, and each state reading gives core 2 the frequency freq(reading). It
// records what was asked of its CPUs.
type phoneTarget struct {
	recordingTarget
	refNs func(run int) int64
	freq  func(reading int) int64

	mu       sync.Mutex
	readings int
	pinned   []int
	locked   []int
	restored int
	cancel   func() // when set, called at the second run of cases (a Ctrl-C mid-run)
}

func (p *phoneTarget) Run(ctx context.Context, program string, args []string, stdout, stderr io.Writer) error {
	if args[0] == "list" {
		return p.recordingTarget.Run(ctx, program, args, stdout, stderr)
	}
	p.recordingTarget.mu.Lock()
	p.recordingTarget.runs = append(p.recordingTarget.runs, program)
	run := len(p.recordingTarget.runs) - 1
	p.recordingTarget.mu.Unlock()
	if run == 1 && p.cancel != nil {
		p.cancel()
		return ctx.Err()
	}
	ref := p.refNs(run)
	fmt.Fprintf(stdout, "bench-bridge-protocol 2\ntimer_overhead_ns 0\ncpu 2\n"+
		"begin ref_js_loop\ncalibrated ref_js_loop 1000\nsample ref_js_loop 1000 %d\nend ref_js_loop\n"+
		"begin a\ncalibrated a 1000\nref a 1000 %d\nsample a 1000 50000\nend a\n", ref, ref)
	return nil
}

func (p *phoneTarget) Cores(context.Context) ([]targets.Core, error) {
	return []targets.Core{{ID: 0, MaxKHz: 1800000, Related: []int{0, 1}}, {ID: 1, MaxKHz: 1800000, Related: []int{0, 1}},
		{ID: 2, MaxKHz: 2800000, Related: []int{2}}}, nil
}

func (p *phoneTarget) Pin(cores []int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pinned = cores
	return nil
}

func (p *phoneTarget) LockClocks(_ context.Context, cores []int) ([]artifact.LockedCluster, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.locked = cores
	return []artifact.LockedCluster{{Cores: []int{2}, KHz: 1400000, MaxKHz: 2800000, Governor: "userspace"}}, nil
}

func (p *phoneTarget) RestoreClocks(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.restored++
	return nil
}

func (p *phoneTarget) State(context.Context) (targets.State, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.readings++
	c := 31.5
	return targets.State{FreqKHz: map[int]int64{0: 900000, 2: p.freq(p.readings - 1)},
		Thermal: []artifact.Thermal{{Zone: "cpu", Celsius: 41}}, LoadAvg: []float64{0.5, 0.4, 0.3},
		Battery: &artifact.Battery{LevelPercent: 80, Celsius: &c, Status: "Charging", Charging: true}}, nil
}

// runPhone runs one program of runs processes on p with o's device settings, and reads its artifact.
func runPhone(t *testing.T, p *phoneTarget, runs int, set func(*Options)) (*artifact.Artifact, string, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "a.json")
	job := prebuilt(t, p, "prog", out, runs)
	if set != nil {
		set(&job.Options)
	}
	var log bytes.Buffer
	job.Log = &log
	s, err := NewSession([]*Job{job}, &log)
	if err != nil {
		t.Fatal(err)
	}
	results, err := s.Run(context.Background())
	if len(results) == 0 || results[0].Artifact == nil {
		t.Fatalf("no artifact: %v\n%s", err, log.String())
	}
	a, rerr := artifact.Read(out)
	if rerr != nil {
		t.Fatal(rerr)
	}
	return a, log.String(), err
}

func steady(int) int64 { return 1800000 }

// Capabilities declares the phone's CPUs, which recordingTarget has none of.
func (p *phoneTarget) Capabilities() targets.Capabilities { return targets.Capabilities{CPUs: p} }

// TestProcessesRecordTheDeviceState: every process records the core its program reported, that core's frequency
// just before and after it, the thermal zones, the battery and the load; a process whose ref_js_loop ran more than
// 10% slower than the fastest one's is marked, and so is one whose core changed frequency.
func TestProcessesRecordTheDeviceState(t *testing.T) {
	p := &phoneTarget{refNs: func(run int) int64 { return []int64{20000, 23000, 20500}[run] },
		freq: func(reading int) int64 { return []int64{1800000, 1800000, 1800000, 1800000, 1800000, 1200000}[reading] }}
	a, _, err := runPhone(t, p, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Processes) != 3 {
		t.Fatalf("%d processes", len(a.Processes))
	}
	for i, proc := range a.Processes {
		if proc.CPU == nil || *proc.CPU != 2 || proc.Start == nil || proc.End == nil || len(proc.Start.Thermal) != 1 ||
			proc.Start.Battery == nil || !proc.Start.Battery.Charging || len(proc.End.LoadAvg) != 3 {
			t.Errorf("process %d: %+v", i, proc)
		}
	}
	if s, e := a.Processes[2].Start.FreqKHz, a.Processes[2].End.FreqKHz; s != 1800000 || e != 1200000 {
		t.Errorf("process 2's core at %d and %d kHz", s, e)
	}
	marks := [][]string{a.Processes[0].Marks, a.Processes[1].Marks, a.Processes[2].Marks}
	if len(marks[0]) != 0 || len(marks[1]) != 1 || !strings.Contains(marks[1][0], "ref_js_loop's least sample 23.0ns, 15.0% above the fastest process's (more than 10%)") ||
		len(marks[2]) != 1 || marks[2][0] != "cpu 2's clock went from 1800 MHz at its start to 1200 MHz at its end" {
		t.Errorf("marks %q", marks)
	}
	note := a.MarkedNote()
	if !strings.Contains(note, "2 of 3 processes did not run in the state the others ran in") || !strings.Contains(note, "process 1 (cpu 2): ref_js_loop") {
		t.Errorf("note %q", note)
	}
}

// TestCooldownMeasuresMarkedProcessesAgain: with --cooldown a marked process is measured again after the rest, in
// its place, so that the run keeps the processes asked for; a device that stays slow keeps it marked after
// cooldownRetries tries.
func TestCooldownMeasuresMarkedProcessesAgain(t *testing.T) {
	cooled := &phoneTarget{refNs: func(run int) int64 { return map[int]int64{1: 30000}[run] + 20000 }, freq: steady}
	a, log, err := runPhone(t, cooled, 3, func(o *Options) { o.Cooldown = time.Millisecond })
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Processes) != 3 || a.Processes[1].Retries != 1 || len(a.Processes[1].Marks) != 0 || a.Settings.CooldownNs != 1e6 {
		t.Errorf("processes %+v, cooldown %d ns", a.Processes, a.Settings.CooldownNs)
	}
	if len(cooled.runs) != 4 || !strings.Contains(log, "rec: process 1 of prog rec is marked (ref_js_loop's least sample 50.0ns, 150.0% above") ||
		!strings.Contains(log, "resting 1ms, then measuring it again") {
		t.Errorf("%d runs, log:\n%s", len(cooled.runs), log)
	}
	if ref := a.Case("ref_js_loop"); len(ref.Processes) != 3 || ref.Processes[1].MedianNs != 20 {
		t.Errorf("ref_js_loop's processes %+v: want the retry's 20 ns in place of process 1", ref.Processes)
	}

	hot := &phoneTarget{refNs: func(run int) int64 { return min(int64(run), 1)*30000 + 20000 }, freq: steady}
	a, _, err = runPhone(t, hot, 2, func(o *Options) { o.Cooldown = time.Millisecond })
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Processes) != 2 || a.Processes[1].Retries != cooldownRetries || len(a.Processes[1].Marks) != 1 || len(hot.runs) != 2+cooldownRetries {
		t.Errorf("a device that stays hot: %d runs, processes %+v", len(hot.runs), a.Processes)
	}
}

// TestPinAndLockForTheSession: --cpu pins the programs before anything runs, records the one core as every
// process's, --lock-clocks locks the clusters of the pinned cores and records them, and the clocks are given back
// after the last process, also when the run is cancelled part-way.
func TestPinAndLockForTheSession(t *testing.T) {
	p := &phoneTarget{refNs: func(int) int64 { return 20000 }, freq: steady}
	a, _, err := runPhone(t, p, 2, func(o *Options) { o.CPU, o.LockClocks = "2", true })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.pinned, []int{2}) || !slices.Equal(p.locked, []int{2}) || p.restored != 1 {
		t.Errorf("pinned %v, locked %v, restored %d times", p.pinned, p.locked, p.restored)
	}
	c := a.Settings.Clocks
	if c == nil || c.CPU != "2" || !slices.Equal(c.Cores, []int{2}) || len(c.Locked) != 1 || c.Locked[0].KHz != 1400000 {
		t.Errorf("clocks %+v", c)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancelled := &phoneTarget{refNs: func(int) int64 { return 20000 }, freq: steady, cancel: cancel}
	job := prebuilt(t, cancelled, "prog", filepath.Join(t.TempDir(), "c.json"), 3)
	job.Options.LockClocks = true
	s, _ := NewSession([]*Job{job}, io.Discard)
	if _, err := s.Run(ctx); err == nil || cancelled.restored != 1 || !slices.Equal(cancelled.locked, []int{0, 1, 2}) {
		t.Errorf("cancelled run: %v, locked %v, restored %d times", err, cancelled.locked, cancelled.restored)
	}
}

// TestPinNeedsCPUs: a target that cannot pin says so before anything is built.
func TestPinNeedsCPUs(t *testing.T) {
	job := prebuilt(t, &recordingTarget{}, "prog", filepath.Join(t.TempDir(), "a.json"), 1)
	job.Options.CPU = "big"
	s, _ := NewSession([]*Job{job}, io.Discard)
	if _, err := s.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "target rec: --cpu and --lock-clocks need") {
		t.Errorf("err %v", err)
	}
}
