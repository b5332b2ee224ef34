package analysis

import (
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/stats"
)

// Several artifacts get one line, each named with its wide cases; an artifact without any is left out of it, and
// the advice is said once.
func TestUnstableWarningNamesEachArtifactOnce(t *testing.T) {
	interval := func(name string, low, high float64) artifact.Case {
		return artifact.Case{Name: name, MedianNs: 100, PILowNs: low, PIHighNs: high, PILevel: 0.95}
	}
	floor := &artifact.Artifact{Cases: []artifact.Case{interval("a", 95, 105), interval("b", 70, 105)}}
	steady := &artifact.Artifact{Cases: []artifact.Case{interval("a", 95, 105)}}
	bridge := &artifact.Artifact{Cases: []artifact.Case{interval("a", 80, 100), interval("b", 100, 150), interval("c", 99, 101)}}
	got := unstableWarning([]*artifact.Artifact{floor, steady, bridge}, []string{"floor linux", "fast linux", "json linux"}, stats.DefaultStability)
	want := "unstable: another run may measure ns/op more than ±10% away for 1 of 2 cases of floor linux (b ±30%) and " +
		"2 of 3 cases of json linux (b ±50%, a ±20%): " + unstableAdvice
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if strings.Count(got, "--runs") != 1 || strings.Contains(got, "raise --runs") {
		t.Errorf("the advice must say once that more --runs do not help: %q", got)
	}
	if w := unstableWarning([]*artifact.Artifact{steady}, []string{"fast linux"}, stats.DefaultStability); w != "" {
		t.Errorf("a steady artifact warned %q", w)
	}
}

// Five cases by name, the widest first, and a count of the rest.
func TestUnstableWarningNamesFive(t *testing.T) {
	var cs []artifact.Case
	for i, name := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		cs = append(cs, artifact.Case{Name: name, MedianNs: 100, PILowNs: float64(89 - i), PIHighNs: 100, PILevel: 0.95})
	}
	got := unstableWarning([]*artifact.Artifact{{Cases: cs}}, []string{"floor linux"}, stats.DefaultStability)
	want := "unstable: another run may measure ns/op more than ±10% away for 7 of 7 cases of floor linux (g ±17%, f ±16%, " +
		"e ±15%, d ±14%, c ±13%, 2 more): " + unstableAdvice
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
