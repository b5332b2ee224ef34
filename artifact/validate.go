package artifact

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/bench-bridge/bench-bridge/stats"
)

// referenceCase is the case every ratio_to_ref divides by (cases.RefCase; this package imports nothing of the tool's).
const referenceCase = "ref_js_loop"

// tolerance is how far a stored median or ratio may sit from the one recomputed from what it derives from: the two
// are computed the same way, so only the last bits of a float may differ.
const tolerance = 1e-9

// near reports whether stored is want to within tolerance.
func near(stored, want float64) bool {
	return math.Abs(stored-want) <= tolerance*math.Abs(want)
}

// validateNumbers checks every number in a: each is finite (anywhere in the artifact), and the ones that must be
// positive or that derive from others are. It names the field that breaks it.
func (a *Artifact) validateNumbers() error {
	if err := checkFinite(reflect.ValueOf(a).Elem(), ""); err != nil {
		return err
	}
	if a.TimerOverheadNs < 0 {
		return fmt.Errorf("field \"timer_overhead_ns\" is %v, want a non-negative time", a.TimerOverheadNs)
	}
	ref := a.Case(referenceCase)
	for i, c := range a.Cases {
		where := fmt.Sprintf("cases[%d] (%s)", i, c.Name)
		if c.Iterations < 0 {
			return fmt.Errorf("%s: field \"iterations\" is %d, want a positive count", where, c.Iterations)
		}
		if c.CILevel < 0 || c.CILevel > 1 {
			return fmt.Errorf("%s: field \"ci_level\" is %v, want a level between 0 and 1", where, c.CILevel)
		}
		// An instruction count of 0 is a count that failed: as ref_js_loop's, it would make every ratio infinite
		// and every case "improved".
		if n := c.InstructionsPerOp; n != nil && !(*n > 0) {
			return fmt.Errorf("%s: field \"instructions_per_op\" is %v, want a positive count", where, *n)
		}
		if v := c.CrossingsPerMs; v != nil && !(*v > 0) {
			return fmt.Errorf("%s: field \"crossings_per_ms\" is %v, want a positive rate", where, *v)
		}
		if m := stats.Median(c.SamplesNs); !near(c.MedianNs, m) {
			return fmt.Errorf("%s: field \"median_ns\" is %v, but the median of samples_ns is %v", where, c.MedianNs, m)
		}
		if err := checkRatio(c, ref); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	return nil
}

// checkRatio checks c's stored ratio_to_ref against the one its medians give. A disagreement is an error, not a
// warning with the ratio recomputed: bench-bridge writes the ratio from the medians itself, so a file where they
// disagree was edited or damaged, and its other numbers cannot be trusted either; the gate's guards read this field,
// and a silent repair would let such a file pass them.
func checkRatio(c Case, ref *Case) error {
	if c.RatioToRef == nil {
		return nil
	}
	if ref == nil {
		return fmt.Errorf("field \"ratio_to_ref\" is %v, but the artifact has no %s to divide by", *c.RatioToRef, referenceCase)
	}
	want := c.MedianNs / ref.MedianNs
	if got := *c.RatioToRef; !near(got, want) {
		return fmt.Errorf("field \"ratio_to_ref\" is %v, but median_ns over %s's is %v",
			got, referenceCase, want)
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
