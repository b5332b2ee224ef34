package config

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/stats"
)

// check refuses gate settings that would make the gate meaningless, naming the key: every threshold finite and in
// range (alpha = nan, or min_effect = inf, would otherwise switch the gate off). Zero means the default.
func (g *Gate) check() error {
	if g.Alpha != 0 {
		if err := stats.CheckAlpha(g.Alpha); err != nil {
			return fmt.Errorf("gate.alpha is %v: %w", g.Alpha, err)
		}
	}
	if err := checkEffects("gate", g.MinEffect, g.InstructionsThreshold, g.AllocationsThreshold); err != nil {
		return err
	}
	if g.Metric != "" && !slices.Contains(analysis.Metrics, g.Metric) {
		return fmt.Errorf("gate.metric is %q, want time, instructions or allocations", g.Metric)
	}
	for _, name := range slices.Sorted(maps.Keys(g.Cases)) {
		if _, ok := cases.Lookup(name); !ok {
			return fmt.Errorf("gate.cases.%s: unknown case (see bench-bridge cases)", name)
		}
		o := g.Cases[name]
		if err := checkEffects("gate.cases."+name, o.MinEffect, o.InstructionsThreshold, o.AllocationsThreshold); err != nil {
			return err
		}
	}
	for i, gd := range g.Guards {
		if _, ok := cases.Lookup(gd.Case); !ok {
			return fmt.Errorf("gate.guards[%d]: case %q is unknown (see bench-bridge cases)", i, gd.Case)
		}
		if !(gd.MaxRatioToRef > 0) || math.IsInf(gd.MaxRatioToRef, 0) {
			return fmt.Errorf("gate.guards[%d] (%s): max_ratio_to_ref is %v, want a finite positive bound", i, gd.Case, gd.MaxRatioToRef)
		}
	}
	return nil
}

// checkEffects checks the relative thresholds of one section, naming the key.
func checkEffects(section string, minEffect, instructionsThreshold, allocationsThreshold float64) error {
	if err := stats.CheckEffect(minEffect); err != nil {
		return fmt.Errorf("%s.min_effect is %v: %w", section, minEffect, err)
	}
	if err := stats.CheckEffect(instructionsThreshold); err != nil {
		return fmt.Errorf("%s.instructions_threshold is %v: %w", section, instructionsThreshold, err)
	}
	if err := stats.CheckEffect(allocationsThreshold); err != nil {
		return fmt.Errorf("%s.allocations_threshold is %v: %w", section, allocationsThreshold, err)
	}
	return nil
}

// Options converts the section into the gate's options, with the gate's defaults where it leaves a setting out.
func (g Gate) Options() analysis.Options {
	o := analysis.Options{Metric: g.Metric, Alpha: g.Alpha, MinEffect: g.MinEffect, InstructionsThreshold: g.InstructionsThreshold,
		AllocationsThreshold: g.AllocationsThreshold}
	if len(g.Cases) > 0 {
		o.Cases = map[string]analysis.CaseOptions{}
		for name, c := range g.Cases {
			o.Cases[name] = analysis.CaseOptions{MinEffect: c.MinEffect, InstructionsThreshold: c.InstructionsThreshold,
				AllocationsThreshold: c.AllocationsThreshold, Skip: c.Skip}
		}
	}
	for _, gd := range g.Guards {
		o.Guards = append(o.Guards, analysis.Guard{Case: gd.Case, MaxRatioToRef: gd.MaxRatioToRef, Target: gd.Target, Codec: gd.Codec})
	}
	return o.WithDefaults()
}
