package runner

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// ProtocolVersion is the newest bench program protocol this runner speaks (docs/protocol.md); it still runs
// programs that speak protocol 1.
const ProtocolVersion = 2

// maxCore is the highest core number a cpu record may name.
const maxCore = 1 << 16

// MaxLine is the longest line of a bench program's output the runner reads (the line cap): no record needs more.
const MaxLine = 1 << 20

// record is one parsed line of `run` or `loop` output.
type record struct {
	kind string  // the first word
	name string  // the case, where the record has one
	a, b int64   // numbers: calibrated N; sample or loop OPS and NS; rss BYTES; cpu CORE
	text string  // meta value, error message
	key  string  // meta key
	f, g float64 // timer_overhead_ns X; slowdown ADDED BASE

	mem *artifact.ProcessMemory // memory CASE KEY=VALUE...
}

// fieldCount is how many fields each record has; meta and error end with text that runs to the end of the line,
// and memory has as many KEY=VALUE fields as it counts.
var fieldCount = map[string]int{"bench-bridge-protocol": 2, "meta": 3, "timer_overhead_ns": 2, "begin": 2,
	"calibrated": 3, "sample": 4, "error": 3, "end": 2, "loop": 4, "ref": 4, "slowdown": 4, "memory": 3, "rss": 2,
	"cpu": 2}

// CheckLine reports what is wrong with one line of a bench program's output taken on its own (its fields and
// numbers, by the rules of parseLine), or nil: check uses it so that a program it passes is one the runner reads.
func CheckLine(line string) error {
	_, err := parseLine(line)
	return err
}

// namesCase are the records of one case, whose second field is the case's name; the others (the protocol line, meta,
// timer_overhead_ns, rss, cpu) belong to no case.
var namesCase = map[string]bool{"begin": true, "calibrated": true, "sample": true, "error": true, "end": true,
	"loop": true, "ref": true, "slowdown": true, "memory": true}

// NamesCase reports whether a record of kind is one case's, named by its second field: the runner and check read the
// case of a record by it.
func NamesCase(kind string) bool { return namesCase[kind] }

// IsRecord reports whether kind is a record of the protocol.
func IsRecord(kind string) bool {
	_, ok := fieldCount[kind]
	return ok
}

// parseLine parses one line of `run` or `loop` output. Fields are separated by spaces, tabs or CRs (a device's pty
// ends lines with CR LF); any other character, NBSP included, belongs to a field. Every number must
// be a plain decimal that is finite and in its range: NaN, Inf, hex floats and overflowing values are refused.
func parseLine(line string) (record, error) {
	fields := splitFields(line)
	if len(fields) == 0 {
		return record{}, fmt.Errorf("empty line")
	}
	r := record{kind: fields[0]}
	n, known := fieldCount[r.kind]
	if !known {
		return r, fmt.Errorf("unknown record %q", r.kind)
	}
	if len(fields) < n || (len(fields) > n && r.kind != "meta" && r.kind != "error" && r.kind != "memory") {
		return r, fmt.Errorf("%s record wants %d fields, has %d", r.kind, n, len(fields))
	}
	if NamesCase(r.kind) {
		r.name = fields[1]
	}
	var err error
	switch r.kind {
	case "bench-bridge-protocol":
		r.a, err = parseInteger("version", fields[1], 1)
	case "meta":
		r.key = fields[1]
		r.text = restAfter(line, 2)
	case "timer_overhead_ns":
		r.f, err = parseDecimal("X", fields[1])
	case "calibrated":
		r.a, err = parseInteger("N", fields[2], 1)
	case "error":
		r.text = restAfter(line, 2)
	case "slowdown":
		if r.f, err = parseDecimal("ADDED", fields[2]); err == nil {
			r.g, err = parseDecimal("BASE", fields[3])
		}
	case "memory":
		r.mem, err = parseMemory(fields[2:])
	case "rss":
		r.a, err = parseCount(fields[1])
	case "cpu":
		r.a, err = parseInteger("CORE", fields[1], 0)
		if err == nil && r.a > maxCore {
			err = fmt.Errorf("CORE is %d, more than a device has (at most %d)", r.a, maxCore)
		}
	case "sample", "loop", "ref":
		// A timed run of no time at all is a broken clock, and would make a median of 0.
		if r.a, err = parseInteger("OPS", fields[2], 1); err == nil {
			r.b, err = parseInteger("NS", fields[3], 1)
		}
	}
	if err != nil {
		return r, fmt.Errorf("%s record: %v", r.kind, err)
	}
	return r, nil
}

// separators are the characters between fields.
const separators = " \t\r"

// splitFields splits line at runs of separators.
func splitFields(line string) []string {
	return strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune(separators, r) })
}

// restAfter returns the text of line after its first n fields, its own inner separators kept.
func restAfter(line string, n int) string {
	s := strings.TrimLeft(line, separators)
	for i := 0; i < n; i++ {
		j := strings.IndexAny(s, separators)
		if j < 0 {
			return ""
		}
		s = strings.TrimLeft(s[j:], separators)
	}
	return strings.TrimRight(s, separators)
}

// decimal is a plain decimal number: what strconv accepts beyond it (NaN, Inf, hex floats, underscores) no bench
// program prints by accident.
var decimal = regexp.MustCompile(`^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

// errNotNumber is the message for a field that is not a plain number.
var errNotNumber = errors.New("want a finite non-negative decimal number (no NaN, Inf or hex)")

// parseDecimal parses a non-negative, finite decimal field.
func parseDecimal(field, s string) (float64, error) {
	if !decimal.MatchString(s) {
		return 0, fmt.Errorf("%s %q: %w", field, s, errNotNumber)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s %q is out of range, want a finite non-negative number", field, s)
	}
	return v, nil
}

// parseInteger parses an integer field of at least least, which fits an int64.
func parseInteger(field, s string, least int64) (int64, error) {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("%s %q: want an integer of at least %d", field, s, least)
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q is out of range, want an integer of at least %d that fits 64 bits", field, s, least)
	}
	if v < least {
		return 0, fmt.Errorf("%s is %d, want at least %d", field, v, least)
	}
	return v, nil
}
