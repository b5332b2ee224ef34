package artifact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bench-bridge/bench-bridge/stats"
)

// Read loads and validates the artifact at path. Every error names the file and, where it can, the line, column or
// field where the input broke.
func Read(path string) (*Artifact, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// Parse decodes and validates an artifact.
func Parse(data []byte) (*Artifact, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty file, not a bench-bridge artifact")
	}
	// Look at the schema first, so that foreign JSON gets a plain answer rather than a type error deep inside.
	var head struct {
		Schema *int `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, describe(data, err)
	}
	switch {
	case head.Schema == nil:
		return nil, errors.New("no \"schema\" key: not a bench-bridge artifact")
	case *head.Schema < SchemaV1 || *head.Schema > Schema:
		return nil, fmt.Errorf("schema %d is not supported (this bench-bridge reads schemas %d to %d)", *head.Schema, SchemaV1, Schema)
	}
	var a Artifact
	if err := json.Unmarshal(data, &a); err != nil {
		return nil, describe(data, err)
	}
	schema := a.Schema
	if schema <= SchemaV4 {
		if err := fromV4(&a, data); err != nil {
			return nil, describe(data, err)
		}
	}
	if schema == SchemaV1 {
		fromV1(&a)
	}
	if schema < SchemaV4 {
		if err := fromEarlier(&a, schema); err != nil {
			return nil, err
		}
	}
	if schema < Schema {
		fromV5(&a)
	}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if schema < SchemaV5 {
		a.recomputeIntervals()
	}
	a.dropJudgedWarnings()
	return &a, nil
}

// earlierUnstable opens the "unstable" warning that writers before 0.10.0 recorded in an artifact.
const earlierUnstable = "unstable: "

// earlierOneProcess opens the "one process: no interval" warning that writers before 0.10.0 recorded in an artifact.
const earlierOneProcess = "one process: no interval"

// dropJudgedWarnings drops the warnings earlier writers recorded that judge the intervals: the run's "unstable" and
// "one process: no interval" lines, and stats.Summarize's "too few samples for the interval". An artifact keeps what
// was measured; package analysis judges those from its intervals whenever it shows one (intervals this reader may
// have recomputed), so that they are said once, by today's rule.
func (a *Artifact) dropJudgedWarnings() {
	a.Warnings = slices.DeleteFunc(a.Warnings, func(w string) bool {
		return strings.HasPrefix(w, earlierUnstable) || strings.HasPrefix(w, earlierOneProcess) ||
			stats.IsTooFewForInterval(w)
	})
}

// v4Intervals are a case's intervals as schemas 1 to 4 named them.
type v4Intervals struct {
	CILowNs     float64  `json:"ci_low_ns"`
	CIHighNs    float64  `json:"ci_high_ns"`
	CILevel     float64  `json:"ci_level"`
	RatioCILow  *float64 `json:"ratio_ci_low"`
	RatioCIHigh *float64 `json:"ratio_ci_high"`
}

// fromV4 converts an artifact of schemas 1 to 4 (data) to this schema's names: its intervals, named ci_* there, are
// prediction intervals (for schema 1, the median's confidence interval over its one process) and are named pi_*
// here.
func fromV4(a *Artifact, data []byte) error {
	var old struct {
		Cases []v4Intervals `json:"cases"`
	}
	if err := json.Unmarshal(data, &old); err != nil {
		return err
	}
	for i := range min(len(a.Cases), len(old.Cases)) {
		c, o := &a.Cases[i], old.Cases[i]
		c.PILowNs, c.PIHighNs, c.PILevel, c.RatioPILow, c.RatioPIHigh = o.CILowNs, o.CIHighNs, o.CILevel, o.RatioCILow, o.RatioCIHigh
	}
	return nil
}

// fromV5 gives an artifact of schemas 1 to 5 its engine: what its program said in a `meta engine` line (a user's
// program over another engine), else the QuickJS it was built with, which every reference program then was.
func fromV5(a *Artifact) {
	switch {
	case a.Meta["engine"] != "":
		a.Engine = ParseEngine(a.Meta["engine"])
	case a.Device.QuickJS != "":
		a.Engine = Engine{Name: "quickjs", Version: a.Device.QuickJS}
	}
	a.Schema = Schema
}

// recomputeIntervals recomputes every prediction interval of a converted artifact from its processes, by this
// version's rules (StateInterval, stats.LeastOverLeast): the intervals are derived numbers, and artifacts
// of older schemas may carry them by older rules (without the run-level term). A case of one process keeps what it
// has.
func (a *Artifact) recomputeIntervals() {
	for i := range a.Cases {
		c := &a.Cases[i]
		if len(c.Processes) < 2 || c.PILevel == 0 {
			continue
		}
		s := a.StateInterval(c, c.PILevel)
		c.PILowNs, c.PIHighNs = s.Low, s.High
		if c.RatioPILow != nil && c.RatioPIHigh != nil {
			if r := stats.LeastOverLeast(c.ProcessSamples(), c.PILevel); r.Level > 0 {
				c.RatioPILow, c.RatioPIHigh = &r.Low, &r.High
			}
		}
	}
}

// fromV1 converts a schema 1 artifact, one process whose ref_js_loop ran once, to schema 2's layout: every case gets
// that one process, with the ref's median as its ref. Its statistics stay as they were (over the samples of one
// process); fromEarlier does the rest.
func fromV1(a *Artifact) {
	a.Settings.Runs = 1
	a.Session = Session{Programs: []string{a.Label()}, Order: []int{0}}
	order := make([]string, 0, len(a.Cases))
	for _, c := range a.Cases {
		order = append(order, c.Name)
	}
	a.Processes = []Process{{CaseOrder: order, Protocol: 1, TimerOverheadNs: a.TimerOverheadNs}}
	var refMedian float64
	for _, c := range a.Cases {
		if c.Name == refCase {
			refMedian = c.MedianNs
		}
	}
	for i := range a.Cases {
		c := &a.Cases[i]
		p := CaseProcess{Iterations: c.Iterations, SamplesNs: c.SamplesNs, MedianNs: c.MedianNs, RefMedianNs: refMedian}
		if r := stats.Ratio(c.MedianNs, refMedian); !math.IsNaN(r) {
			p.RatioToRef = &r
		}
		c.Processes = []CaseProcess{p}
	}
}

// fromEarlier converts an artifact of schemas 1 to 3 (schema 1 after fromV1). Its cases' ratio_to_ref was, in
// schema 2, the median of the processes' ratios and, in schemas 1 and 3, the least process median over the least ref
// median (stats.LeastMedianRatio; in schema 1, of its one process): checked here against the processes as that
// schema promised, then recomputed by this schema's rule (stats.LeastOverLeast) from the same processes, so that old
// and new artifacts compare by one rule.
func fromEarlier(a *Artifact, schema int) error {
	fillProtocol1RefSamples(a)
	for i := range a.Cases {
		c := &a.Cases[i]
		if err := checkMedians(*c); err != nil {
			// Said first: a ratio that disagrees with an edited median is a consequence.
			return fmt.Errorf("cases[%d] (%s): %w", i, c.Name, err)
		}
		if c.RatioToRef == nil {
			continue
		}
		if schema == SchemaV2 {
			if ratios := c.ProcessRatios(); len(ratios) > 0 && !near(*c.RatioToRef, stats.Median(ratios)) {
				return fmt.Errorf("cases[%d] (%s): field \"ratio_to_ref\" is %v, but the median of processes[].ratio_to_ref is %v (schema 2)",
					i, c.Name, *c.RatioToRef, stats.Median(ratios))
			}
		} else if want := stats.LeastMedianRatio(c.ProcessMedians(), c.refMedians()); !math.IsNaN(want) && !near(*c.RatioToRef, want) {
			return fmt.Errorf("cases[%d] (%s): field \"ratio_to_ref\" is %v, but the least processes[].median_ns over the least processes[].ref_median_ns is %v (schema %d)",
				i, c.Name, *c.RatioToRef, want, schema)
		}
		if r := stats.LeastOverLeast(c.ProcessSamples(), c.PILevel); !math.IsNaN(r.Ratio) {
			c.RatioToRef = &r.Ratio
			c.RatioPILow, c.RatioPIHigh = nil, nil
			if r.Level > 0 {
				c.RatioPILow, c.RatioPIHigh = &r.Low, &r.High
			}
		}
	}
	return nil
}

// fillProtocol1RefSamples gives every process of a case that divided by the process's own ref_js_loop (a protocol
// 1 program, or a schema 1 artifact) that ref_js_loop's samples as its ref samples, as schemas 4 and later write them.
func fillProtocol1RefSamples(a *Artifact) {
	ref := a.Case(refCase)
	if ref == nil {
		return
	}
	for i := range a.Cases {
		if a.Cases[i].Name == refCase {
			continue
		}
		for j := range a.Cases[i].Processes {
			p := &a.Cases[i].Processes[j]
			if len(p.RefSamplesNs) > 0 || !(p.RefMedianNs > 0) {
				continue
			}
			for _, rp := range ref.Processes {
				if rp.Process == p.Process && rp.MedianNs == p.RefMedianNs {
					p.RefSamplesNs = slices.Clone(rp.SamplesNs)
				}
			}
		}
	}
}

// refCase is the reference case, cases.RefCase, written again here: the artifact package imports only stats, not
// the case list (and the C sources its package embeds).
const refCase = "ref_js_loop"

// describe turns a decoding error into one that says where the input broke.
func describe(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || (errors.As(err, &syn) && syn.Offset >= int64(len(bytes.TrimSpace(data)))):
		line, col := position(data, int64(len(data)))
		return fmt.Errorf("line %d, column %d: truncated JSON (the file ends inside a value)", line, col)
	case errors.As(err, &syn):
		line, col := position(data, syn.Offset)
		return fmt.Errorf("line %d, column %d: %v", line, col, syn)
	case errors.As(err, &typ):
		line, col := position(data, typ.Offset)
		return fmt.Errorf("line %d, column %d: field %q: JSON %s where %s was expected", line, col, typ.Field, typ.Value, typ.Type)
	}
	return err
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// Validate checks what the schema promises beyond JSON types, naming the field that breaks it.
func (a *Artifact) Validate() error {
	if err := a.checkNumbers(); err != nil {
		return err
	}
	if a.Target == "" {
		return errors.New("field \"target\" is empty")
	}
	if a.Kind != ProgramBridge && a.Kind != ProgramFloor {
		return fmt.Errorf("field \"program\" is %q, want %q or %q", a.Kind, ProgramBridge, ProgramFloor)
	}
	if a.Engine.Name == "" && a.Engine.Version != "" || strings.ContainsAny(a.Engine.Name, " \t\n") {
		return fmt.Errorf("field \"engine\" is {name %q, version %q}: want a name of one word, and a version only with a name", a.Engine.Name, a.Engine.Version)
	}
	seen := map[string]bool{}
	for i, c := range a.Cases {
		where := fmt.Sprintf("cases[%d]", i)
		if c.Name == "" {
			return fmt.Errorf("%s: field \"name\" is empty", where)
		}
		where = fmt.Sprintf("cases[%d] (%s)", i, c.Name)
		if seen[c.Name] {
			return fmt.Errorf("%s: case appears twice", where)
		}
		seen[c.Name] = true
		if len(c.SamplesNs) == 0 {
			return fmt.Errorf("%s: field \"samples_ns\" is empty", where)
		}
		for j, s := range c.SamplesNs {
			if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
				return fmt.Errorf("%s: samples_ns[%d] is %v, want a non-negative number", where, j, s)
			}
		}
		if !(c.MedianNs > 0) {
			return fmt.Errorf("%s: field \"median_ns\" is %v, want a positive number", where, c.MedianNs)
		}
		if c.PILowNs > c.MedianNs || c.PIHighNs < c.MedianNs {
			return fmt.Errorf("%s: interval pi_low_ns..pi_high_ns [%v, %v] does not contain median_ns %v", where, c.PILowNs, c.PIHighNs, c.MedianNs)
		}
		if err := validateProcesses(c, len(a.Processes)); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	return a.validateDerived()
}

// validateProcesses checks a case's per-process results against the artifact's nprocs processes.
func validateProcesses(c Case, nprocs int) error {
	if len(c.Processes) == 0 {
		return errors.New("field \"processes\" is empty")
	}
	for j, p := range c.Processes {
		if p.Process < 0 || p.Process >= nprocs {
			return fmt.Errorf("processes[%d]: field \"process\" is %d, want an index into the artifact's %d processes", j, p.Process, nprocs)
		}
		if len(p.SamplesNs) == 0 {
			return fmt.Errorf("processes[%d]: field \"samples_ns\" is empty", j)
		}
		for k, s := range append(slices.Clone(p.SamplesNs), p.RefSamplesNs...) {
			if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
				return fmt.Errorf("processes[%d]: sample %d is %v, want a non-negative number", j, k, s)
			}
		}
		if !(p.MedianNs > 0) || math.IsInf(p.MedianNs, 0) {
			return fmt.Errorf("processes[%d]: field \"median_ns\" is %v, want a positive number", j, p.MedianNs)
		}
	}
	return nil
}

// Write stores a as indented JSON at path atomically: a reader sees the old file or the new one, never a part. An
// artifact that Validate refuses is not written: Read could not load it back.
func Write(path string, a *Artifact) error {
	if err := a.Validate(); err != nil {
		return fmt.Errorf("%s: not written: %w", path, err)
	}
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding artifact for %s: %w", path, err)
	}
	data = append(data, '\n')
	return WriteFileAtomic(path, data)
}

// WriteFileAtomic writes data to a temporary file beside path, syncs it and renames it over path.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
