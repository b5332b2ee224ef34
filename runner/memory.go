package runner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// memoryKeys are the counts a memory record may carry (docs/protocol.md), each at most once; ops is required.
var memoryKeys = []string{"ops", "engine_allocs", "engine_bytes", "host_allocs", "host_bytes", "heap_bytes", "heap_allocs"}

// parseMemory reads the KEY=VALUE fields of a memory record: non-negative decimal integers that fit in 64 bits,
// each key known and given once, ops positive.
func parseMemory(fields []string) (*artifact.ProcessMemory, error) {
	m := &artifact.ProcessMemory{}
	seen := map[string]bool{}
	for _, f := range fields {
		key, val, ok := strings.Cut(f, "=")
		switch {
		case !ok:
			return nil, fmt.Errorf("field %q: want KEY=VALUE", f)
		case !slices.Contains(memoryKeys, key):
			return nil, fmt.Errorf("unknown key %q (want %s)", key, strings.Join(memoryKeys, ", "))
		case seen[key]:
			return nil, fmt.Errorf("key %s given twice", key)
		}
		seen[key] = true
		n, err := parseCount(val)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", key, err)
		}
		if key == "ops" {
			m.Ops = n
			continue
		}
		*memoryCount(m, key) = &n
	}
	if m.Ops <= 0 {
		return nil, fmt.Errorf("want ops=N with N positive")
	}
	return m, nil
}

// memoryCount is where the count of key lives in m.
func memoryCount(m *artifact.ProcessMemory, key string) **int64 {
	return map[string]**int64{"engine_allocs": &m.EngineAllocs, "engine_bytes": &m.EngineBytes, "host_allocs": &m.HostAllocs,
		"host_bytes": &m.HostBytes, "heap_bytes": &m.HeapBytes, "heap_allocs": &m.HeapAllocs}[key]
}

// parseCount reads a count: decimal digits only (no sign, no exponent), within int64.
func parseCount(s string) (int64, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a non-negative integer", s)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q does not fit in 64 bits", s)
	}
	return n, nil
}
