package artifact

import (
	"os"
	"strings"
	"testing"
)

func count(n int64) *int64 { return &n }

// withMemory is two() with memory records in the callback case's two processes (a second process added) and the
// per-op figures derived from them.
func withMemory() *Artifact {
	a := two()
	c := &a.Cases[1]
	c.Processes = append(c.Processes, c.Processes[0])
	c.Processes[1].Process = 1
	a.Processes = append(a.Processes, Process{Seq: 1, Protocol: 2, PeakRSSBytes: 3 << 20})
	for j := range c.Processes {
		c.Processes[j].Memory = &ProcessMemory{Ops: 64, EngineAllocs: count(128), EngineBytes: count(4096),
			HostAllocs: count(64 + int64(j)*64), HostBytes: count(1024), HeapBytes: count(70000), HeapAllocs: count(900)}
	}
	c.Memory = c.MemoryFromProcesses()
	return a
}

func TestMemoryFromProcesses(t *testing.T) {
	m := withMemory().Cases[1].Memory
	// Per process: 3 and 4 allocations per op (2 engine, 1 or 2 host); the median of two is their mean.
	if m == nil || *m.AllocsPerOp != 3.5 || *m.BytesPerOp != 80 || *m.EngineAllocsPerOp != 2 || *m.HostAllocsPerOp != 1.5 ||
		*m.HostBytesPerOp != 16 || *m.HeapBytes != 70000 {
		t.Fatalf("memory %+v", m)
	}
	// A bridge that reports only the host's counts has allocations per op of them alone, and no engine figures.
	c := Case{Processes: []CaseProcess{{Memory: &ProcessMemory{Ops: 4, HostAllocs: count(8)}}}}
	m = c.MemoryFromProcesses()
	if m == nil || *m.AllocsPerOp != 2 || m.EngineAllocsPerOp != nil || m.BytesPerOp != nil {
		t.Fatalf("host-only memory %+v", m)
	}
	if (&Case{Processes: []CaseProcess{{}}}).MemoryFromProcesses() != nil {
		t.Error("memory from processes without records is not nil")
	}
}

func TestValidateMemory(t *testing.T) {
	checkValidate(t, withMemory, []validateCase{
		{"valid", func(*Artifact) {}, ""},
		{"no memory at all", func(a *Artifact) {
			a.Cases[1].Memory = nil
			for j := range a.Cases[1].Processes {
				a.Cases[1].Processes[j].Memory = nil
			}
		}, ""},
		{"zero ops", func(a *Artifact) { a.Cases[1].Processes[1].Memory.Ops = 0 },
			`cases[1] (callback): processes[1].memory: field "ops" is 0, want a positive count`},
		{"negative count", func(a *Artifact) { *a.Cases[1].Processes[0].Memory.HostBytes = -1 },
			`cases[1] (callback): processes[0].memory: field "host_bytes" is -1, want a non-negative count`},
		{"per op that disagrees", func(a *Artifact) { *a.Cases[1].Memory.AllocsPerOp = 3 },
			`cases[1] (callback): field "memory.allocs_per_op" is 3, but processes[].memory give 3.5`},
		{"per op without records", func(a *Artifact) { a.Cases[1].Processes[0].Memory, a.Cases[1].Processes[1].Memory = nil, nil },
			`field "memory.allocs_per_op" is 3.5, but no processes[].memory has what it derives from`},
		{"records without per op", func(a *Artifact) { a.Cases[1].Memory.HeapBytes = nil },
			`field "memory.heap_bytes" is missing, but processes[].memory give 70000`},
		{"negative peak rss", func(a *Artifact) { a.Processes[1].PeakRSSBytes = -4 },
			`processes[1]: field "peak_rss_bytes" is -4, want a non-negative size`},
	})
}

// Memory survives a write and a read; an artifact written before the fields loads without them.
func TestMemoryRoundTrip(t *testing.T) {
	got, err := Read(writeTemp(t, withMemory()))
	if err != nil {
		t.Fatal(err)
	}
	c := got.Case("callback")
	if c.Memory == nil || *c.Memory.AllocsPerOp != 3.5 || *c.Processes[1].Memory.HostAllocs != 128 || got.Processes[1].PeakRSSBytes != 3<<20 {
		t.Fatalf("round trip lost memory: %+v", c.Memory)
	}
	old, err := Read(writeTemp(t, two()))
	if err != nil || old.Case("callback").Memory != nil || old.Processes[0].PeakRSSBytes != 0 {
		t.Fatalf("artifact without memory: %v, %+v", err, old)
	}
	data, _ := os.ReadFile(writeTemp(t, two()))
	if strings.Contains(string(data), "memory") || strings.Contains(string(data), "peak_rss") {
		t.Error("an artifact without memory records writes memory fields")
	}
}
