package artifact

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/bench-bridge/bench-bridge/stats"
)

// tolerance is how far a stored median or ratio may sit from the one recomputed from what it derives from: the two
// are computed the same way, so only the last bits of a float may differ.
const tolerance = 1e-9

// near reports whether stored is want to within tolerance.
func near(stored, want float64) bool {
	return math.Abs(stored-want) <= tolerance*math.Abs(want)
}

// checkNumbers checks that every number in a, anywhere, is finite, naming its JSON path. Validate calls it first.
func (a *Artifact) checkNumbers() error {
	return checkFinite(reflect.ValueOf(a).Elem(), "")
}

// validateDerived checks the numbers that must be positive, and those that derive from others against what they
// derive from: each median from its samples, each ratio to ref_js_loop from its medians. It names the field that
// breaks it. Validate calls it after the checks of shape.
func (a *Artifact) validateDerived() error {
	if a.TimerOverheadNs < 0 {
		return fmt.Errorf("field \"timer_overhead_ns\" is %v, want a non-negative time", a.TimerOverheadNs)
	}
	for i, p := range a.Processes {
		if p.TimerOverheadNs < 0 {
			return fmt.Errorf("processes[%d]: field \"timer_overhead_ns\" is %v, want a non-negative time", i, p.TimerOverheadNs)
		}
		if p.PeakRSSBytes < 0 {
			return fmt.Errorf("processes[%d]: field \"peak_rss_bytes\" is %d, want a non-negative size", i, p.PeakRSSBytes)
		}
		if err := p.checkState(); err != nil {
			return fmt.Errorf("processes[%d]: %w", i, err)
		}
	}
	ref := a.Case(refCase)
	for i, c := range a.Cases {
		where := fmt.Sprintf("cases[%d] (%s)", i, c.Name)
		if c.Iterations < 0 {
			return fmt.Errorf("%s: field \"iterations\" is %d, want a positive count", where, c.Iterations)
		}
		if c.PILevel < 0 || c.PILevel > 1 {
			return fmt.Errorf("%s: field \"pi_level\" is %v, want a level between 0 and 1", where, c.PILevel)
		}
		// An instruction count of 0 is a count that failed: as ref_js_loop's, it would make every ratio infinite
		// and every case "improved".
		if n := c.InstructionsPerOp; n != nil && !(*n > 0) {
			return fmt.Errorf("%s: field \"instructions_per_op\" is %v, want a positive count", where, *n)
		}
		if v := c.CrossingsPerMs; v != nil && !(*v > 0) {
			return fmt.Errorf("%s: field \"crossings_per_ms\" is %v, want a positive rate", where, *v)
		}
		if err := checkMedians(c); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if err := checkRatios(c, ref); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if err := checkMemory(c); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	return nil
}

// checkMedians checks each process's median against its samples and the case's against the processes'.
func checkMedians(c Case) error {
	for j, p := range c.Processes {
		if m := stats.Median(p.SamplesNs); !near(p.MedianNs, m) {
			return fmt.Errorf("processes[%d]: field \"median_ns\" is %v, but the median of its samples_ns is %v", j, p.MedianNs, m)
		}
		if p.Slower != 0 && !(p.Slower > 1) {
			return fmt.Errorf("processes[%d]: field \"slower\" is %v, want more than 1 (how much slower than the fastest state) or none", j, p.Slower)
		}
		if len(p.RefSamplesNs) > 0 {
			if m := stats.Median(p.RefSamplesNs); !near(p.RefMedianNs, m) {
				return fmt.Errorf("processes[%d]: field \"ref_median_ns\" is %v, but the median of its ref_samples_ns is %v", j, p.RefMedianNs, m)
			}
		}
	}
	if m := stats.Median(c.StateMedians()); !near(c.MedianNs, m) {
		return fmt.Errorf("field \"median_ns\" is %v, but the median of processes[].median_ns in the fastest state is %v", c.MedianNs, m)
	}
	return nil
}

// checkRatios checks c's ratios to ref_js_loop against the numbers they come from: each process's against its
// median over its ref's, the case's against the least of its samples over the least of the ref samples beside them.
// A disagreement is an error, not a warning with the ratio recomputed: bench-bridge writes every ratio itself, so a
// file where they disagree was edited or damaged and its other numbers cannot be trusted either; the gate's guards
// read ratio_to_ref, and a silent repair would let such a file pass them.
func checkRatios(c Case, ref *Case) error {
	for j, p := range c.Processes {
		if p.RatioToRef == nil {
			continue
		}
		if !(p.RefMedianNs > 0) {
			return fmt.Errorf("processes[%d]: field \"ratio_to_ref\" is %v, but ref_median_ns is %v", j, *p.RatioToRef, p.RefMedianNs)
		}
		if want := stats.Ratio(p.MedianNs, p.RefMedianNs); !near(*p.RatioToRef, want) {
			return fmt.Errorf("processes[%d]: field \"ratio_to_ref\" is %v, but median_ns over ref_median_ns is %v", j, *p.RatioToRef, want)
		}
	}
	if c.RatioToRef == nil {
		return nil
	}
	got := *c.RatioToRef
	if ref == nil {
		return fmt.Errorf("field \"ratio_to_ref\" is %v, but the artifact has no %s to divide by", got, refCase)
	}
	if len(c.ProcessRatios()) == 0 {
		return fmt.Errorf("field \"ratio_to_ref\" is %v, but no process has a ratio_to_ref", got)
	}
	if want := stats.LeastOverLeast(c.ProcessSamples(), 0).Ratio; !near(got, want) {
		return fmt.Errorf("field \"ratio_to_ref\" is %v, but the least processes[].samples_ns over the least processes[].ref_samples_ns is %v", got, want)
	}
	if lo, hi := c.RatioPILow, c.RatioPIHigh; (lo != nil && *lo > got) || (hi != nil && *hi < got) {
		return fmt.Errorf("field \"ratio_to_ref\" is %v, outside its interval ratio_pi_low..ratio_pi_high", got)
	}
	return nil
}

// checkFinite walks v and returns an error naming the first float that is NaN or infinite, by its JSON path
// ("cases[3].samples_ns[2]"). encoding/json cannot write such a value and never reads one, so this catches them
// before a write, with a name, rather than as "json: unsupported value".
func checkFinite(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("field %q is %v, want a finite number", path, f)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return checkFinite(v.Elem(), path)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := checkFinite(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			if err := checkFinite(iter.Value(), fmt.Sprintf("%s[%v]", path, iter.Key())); err != nil {
				return err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if path != "" {
				name = path + "." + name
			}
			if err := checkFinite(v.Field(i), name); err != nil {
				return err
			}
		}
	}
	return nil
}
