package runner

import (
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
)

func TestWarnUnstable(t *testing.T) {
	interval := func(name string, low, high float64) artifact.Case {
		return artifact.Case{Name: name, MedianNs: 100, PILowNs: low, PIHighNs: high, PILevel: 0.95}
	}
	tests := []struct {
		name  string
		cases []artifact.Case
		want  string // "" for no warning
	}{
		{"all within ±10%", []artifact.Case{interval("a", 95, 105), interval("b", 90, 110)}, ""},
		{"the widest first", []artifact.Case{interval("a", 95, 105), interval("b", 80, 105), interval("c", 100, 130)},
			"unstable: another run may measure ns/op more than ±10% away for 2 of 3 cases (c ±30%, b ±20%): read ×ref, which moves far less, or use compare or --metric instructions; a quieter machine narrows it, more --runs do not (docs/results.md)"},
		{"five by name", []artifact.Case{interval("a", 89, 100), interval("b", 88, 100), interval("c", 87, 100),
			interval("d", 86, 100), interval("e", 85, 100), interval("f", 84, 100), interval("g", 83, 100)},
			"unstable: another run may measure ns/op more than ±10% away for 7 of 7 cases (g ±17%, f ±16%, e ±15%, d ±14%, c ±13%, 2 more): " +
				"read ×ref, which moves far less, or use compare or --metric instructions; a quieter machine narrows it, more --runs do not (docs/results.md)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &artifact.Artifact{Cases: tt.cases}
			warnUnstable(a)
			switch {
			case tt.want == "" && len(a.Warnings) != 0:
				t.Errorf("warnings %q, want none", a.Warnings)
			case tt.want != "" && (len(a.Warnings) != 1 || a.Warnings[0] != tt.want):
				t.Errorf("warnings %q, want [%q]", a.Warnings, tt.want)
			}
		})
	}
}
