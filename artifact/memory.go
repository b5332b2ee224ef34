package artifact

import (
	"fmt"

	"github.com/bench-bridge/bench-bridge/stats"
)

// ProcessMemory is one process's memory record of a case (docs/protocol.md): what Ops ops allocated in the program's
// memory pass, counted after the timed samples, and the engine's heap after them. A count is nil when the program
// did not report it (a bridge of yours may report some of them or none).
type ProcessMemory struct {
	Ops          int64  `json:"ops"`
	EngineAllocs *int64 `json:"engine_allocs,omitempty"`
	EngineBytes  *int64 `json:"engine_bytes,omitempty"`
	HostAllocs   *int64 `json:"host_allocs,omitempty"`
	HostBytes    *int64 `json:"host_bytes,omitempty"`
	// HeapBytes and HeapAllocs are the engine's live heap after the pass (QuickJS's JS_ComputeMemoryUsage:
	// malloc_size and malloc_count).
	HeapBytes  *int64 `json:"heap_bytes,omitempty"`
	HeapAllocs *int64 `json:"heap_allocs,omitempty"`
}

// Memory is a case's allocations per op: for each count, the median over the processes that reported it of the
// count over the ops of their memory pass. AllocsPerOp and BytesPerOp add the engine's and the host's, of what was
// reported; a field is nil when no process reported what it derives from.
type Memory struct {
	AllocsPerOp       *float64 `json:"allocs_per_op,omitempty"`
	BytesPerOp        *float64 `json:"bytes_per_op,omitempty"`
	EngineAllocsPerOp *float64 `json:"engine_allocs_per_op,omitempty"`
	EngineBytesPerOp  *float64 `json:"engine_bytes_per_op,omitempty"`
	HostAllocsPerOp   *float64 `json:"host_allocs_per_op,omitempty"`
	HostBytesPerOp    *float64 `json:"host_bytes_per_op,omitempty"`
	// HeapBytes is the median over processes of the engine's heap after the case.
	HeapBytes *float64 `json:"heap_bytes,omitempty"`
}

// memoryField is one derived field of Memory: its JSON name, where it lives, and what it is per process.
type memoryField struct {
	name string
	of   func(*Memory) **float64
	per  func(ProcessMemory) (float64, bool)
}

// perOp divides the counts that are present by the pass's ops; ok is false when none is.
func perOp(m ProcessMemory, counts ...*int64) (float64, bool) {
	var sum int64
	ok := false
	for _, c := range counts {
		if c != nil {
			sum, ok = sum+*c, true
		}
	}
	return float64(sum) / float64(m.Ops), ok
}

var memoryFields = []memoryField{
	{"allocs_per_op", func(m *Memory) **float64 { return &m.AllocsPerOp }, func(p ProcessMemory) (float64, bool) { return perOp(p, p.EngineAllocs, p.HostAllocs) }},
	{"bytes_per_op", func(m *Memory) **float64 { return &m.BytesPerOp }, func(p ProcessMemory) (float64, bool) { return perOp(p, p.EngineBytes, p.HostBytes) }},
	{"engine_allocs_per_op", func(m *Memory) **float64 { return &m.EngineAllocsPerOp }, func(p ProcessMemory) (float64, bool) { return perOp(p, p.EngineAllocs) }},
	{"engine_bytes_per_op", func(m *Memory) **float64 { return &m.EngineBytesPerOp }, func(p ProcessMemory) (float64, bool) { return perOp(p, p.EngineBytes) }},
	{"host_allocs_per_op", func(m *Memory) **float64 { return &m.HostAllocsPerOp }, func(p ProcessMemory) (float64, bool) { return perOp(p, p.HostAllocs) }},
	{"host_bytes_per_op", func(m *Memory) **float64 { return &m.HostBytesPerOp }, func(p ProcessMemory) (float64, bool) { return perOp(p, p.HostBytes) }},
	{"heap_bytes", func(m *Memory) **float64 { return &m.HeapBytes }, func(p ProcessMemory) (float64, bool) {
		if p.HeapBytes == nil {
			return 0, false
		}
		return float64(*p.HeapBytes), true
	}},
}

// MemoryFromProcesses derives the case's Memory from its processes' memory records; nil when none has one.
func (c *Case) MemoryFromProcesses() *Memory {
	var m Memory
	found := false
	for _, f := range memoryFields {
		var vs []float64
		for _, p := range c.Processes {
			if p.Memory == nil {
				continue
			}
			if v, ok := f.per(*p.Memory); ok {
				vs = append(vs, v)
			}
		}
		if len(vs) > 0 {
			v := stats.Median(vs)
			*f.of(&m) = &v
			found = true
		}
	}
	if !found {
		return nil
	}
	return &m
}

// checkMemory checks c's memory records (positive ops, no negative count) and its per-op figures against them.
func checkMemory(c Case) error {
	for j, p := range c.Processes {
		m := p.Memory
		if m == nil {
			continue
		}
		if m.Ops <= 0 {
			return fmt.Errorf("processes[%d].memory: field \"ops\" is %d, want a positive count", j, m.Ops)
		}
		for _, f := range []struct {
			name string
			v    *int64
		}{{"engine_allocs", m.EngineAllocs}, {"engine_bytes", m.EngineBytes}, {"host_allocs", m.HostAllocs},
			{"host_bytes", m.HostBytes}, {"heap_bytes", m.HeapBytes}, {"heap_allocs", m.HeapAllocs}} {
			if f.v != nil && *f.v < 0 {
				return fmt.Errorf("processes[%d].memory: field %q is %d, want a non-negative count", j, f.name, *f.v)
			}
		}
	}
	want := c.MemoryFromProcesses()
	for _, f := range memoryFields {
		var got, w *float64
		if c.Memory != nil {
			got = *f.of(c.Memory)
		}
		if want != nil {
			w = *f.of(want)
		}
		switch {
		case got == nil && w == nil:
		case got == nil:
			return fmt.Errorf("field \"memory.%s\" is missing, but processes[].memory give %v", f.name, *w)
		case w == nil:
			return fmt.Errorf("field \"memory.%s\" is %v, but no processes[].memory has what it derives from", f.name, *got)
		case !near(*got, *w):
			return fmt.Errorf("field \"memory.%s\" is %v, but processes[].memory give %v", f.name, *got, *w)
		}
	}
	return nil
}
