package gate

import (
	"fmt"

	"github.com/bench-bridge/bench-bridge/analysis"
)

// Judge compares every current artifact (a file, or a directory of them) with the baseline that matches it by target,
// program and codec, by opts; noise, when not nil, gives each pair the history's night-to-night noise of its device,
// and confirm, when not nil, reruns a pair's flagged cases (gate --confirm) before its result is kept.
func Judge(basePath, curPath string, opts analysis.Options, allowUnjudged bool, noise *analysis.History,
	confirm func(*analysis.Result, analysis.Pair, analysis.Options) error) (*Report, error) {
	baselines, err := analysis.Load(basePath)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	current, err := analysis.Load(curPath)
	if err != nil {
		return nil, fmt.Errorf("current: %w", err)
	}
	pairs, notes := analysis.Match(baselines, current)
	if len(pairs) == 0 {
		return nil, fmt.Errorf("nothing to gate: no current artifact in %s matches a baseline in %s by target, program and codec", curPath, basePath)
	}
	report := &Report{Notes: notes, AllowUnjudged: allowUnjudged}
	if report.Notes == nil {
		report.Notes = []analysis.Warning{}
	}
	for _, p := range pairs {
		opts.Noise = noise.NoiseOf(p.Current.Artifact)
		res, err := analysis.Compare(p.Baseline, p.Current, opts)
		if err != nil {
			return nil, err
		}
		if confirm != nil && len(res.Flagged()) > 0 {
			if err := confirm(res, p, opts); err != nil {
				return nil, fmt.Errorf("--confirm: %w", err)
			}
		}
		report.Results = append(report.Results, res)
	}
	return report, nil
}
