package runner

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// ProtocolVersion is the newest bench program protocol this runner speaks (docs/protocol.md); it still runs
// programs that speak protocol 1.
const ProtocolVersion = 2

// record is one parsed line of a bench program's output.
type record struct {
	kind string  // the first word
	name string  // the case, where the record has one
	a, b int64   // numbers: calibrated N; sample or loop OPS and NS; rss BYTES
	text string  // meta value, error message
	key  string  // meta key
	f, g float64 // timer_overhead_ns X; slowdown ADDED BASE

	mem *artifact.ProcessMemory // memory CASE KEY=VALUE...
}

// parseLine parses one line of `run` or `loop` output.
func parseLine(line string) (record, error) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return record{}, fmt.Errorf("empty line")
	}
	r := record{kind: fields[0]}
	want := map[string]int{"bench-bridge-protocol": 2, "meta": 3, "timer_overhead_ns": 2, "begin": 2, "calibrated": 3,
		"sample": 4, "error": 3, "end": 2, "loop": 4, "ref": 4, "slowdown": 4, "memory": 3, "rss": 2}
	n, known := want[r.kind]
	if !known {
		return r, fmt.Errorf("unknown record %q", r.kind)
	}
	if len(fields) < n || (len(fields) > n && r.kind != "meta" && r.kind != "error" && r.kind != "memory") {
		return r, fmt.Errorf("%s record wants %d fields, has %d", r.kind, n, len(fields))
	}
	var err error
	switch r.kind {
	case "bench-bridge-protocol":
		r.a, err = strconv.ParseInt(fields[1], 10, 64)
	case "meta":
		r.key = fields[1]
		r.text = restAfter(line, 2)
	case "timer_overhead_ns":
		r.f, err = strconv.ParseFloat(fields[1], 64)
	case "begin", "end":
		r.name = fields[1]
	case "calibrated":
		r.name = fields[1]
		r.a, err = strconv.ParseInt(fields[2], 10, 64)
	case "error":
		r.name = fields[1]
		r.text = restAfter(line, 2)
	case "slowdown":
		r.name = fields[1]
		if r.f, err = strconv.ParseFloat(fields[2], 64); err == nil {
			r.g, err = strconv.ParseFloat(fields[3], 64)
		}
		if err == nil && !(r.f >= 0 && r.g >= 0 && !math.IsInf(r.f, 0) && !math.IsInf(r.g, 0)) {
			err = fmt.Errorf("costs must be finite and non-negative")
		}
	case "memory":
		r.name = fields[1]
		r.mem, err = parseMemory(fields[2:])
	case "rss":
		r.a, err = parseCount(fields[1])
	case "sample", "loop", "ref":
		r.name = fields[1]
		if r.a, err = strconv.ParseInt(fields[2], 10, 64); err == nil {
			r.b, err = strconv.ParseInt(fields[3], 10, 64)
		}
		if err == nil && (r.a <= 0 || r.b < 0) {
			err = fmt.Errorf("ops must be positive and ns non-negative")
		}
	}
	if err != nil {
		return r, fmt.Errorf("%s record: %v", r.kind, err)
	}
	return r, nil
}

// restAfter returns the text of line after its first n space-separated fields.
func restAfter(line string, n int) string {
	s := strings.TrimLeft(line, " ")
	for i := 0; i < n; i++ {
		j := strings.IndexByte(s, ' ')
		if j < 0 {
			return ""
		}
		s = strings.TrimLeft(s[j:], " ")
	}
	return strings.TrimRight(s, " \r")
}
