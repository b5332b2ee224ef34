package artifact

import (
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/stats"
)

// Several artifacts get one line, each named with its wide cases; an artifact without any is left out of it, and
// the advice is said once.
func TestUnstableWarningNamesEachArtifactOnce(t *testing.T) {
	interval := func(name string, low, high float64) Case {
		return Case{Name: name, MedianNs: 100, PILowNs: low, PIHighNs: high, PILevel: 0.95}
	}
	floor := &Artifact{Cases: []Case{interval("a", 95, 105), interval("b", 70, 105)}}
	steady := &Artifact{Cases: []Case{interval("a", 95, 105)}}
	bridge := &Artifact{Cases: []Case{interval("a", 80, 100), interval("b", 100, 150), interval("c", 99, 101)}}
	got := UnstableWarning([]*Artifact{floor, steady, bridge}, []string{"floor linux", "fast linux", "json linux"}, stats.DefaultStability)
	want := "unstable: another run may measure ns/op more than ±10% away for 1 of 2 cases of floor linux (b ±30%) and " +
		"2 of 3 cases of json linux (b ±50%, a ±20%): " + unstableAdvice
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if strings.Count(got, "--runs") != 1 || strings.Contains(got, "raise --runs") {
		t.Errorf("the advice must say once that more --runs do not help: %q", got)
	}
	if w := UnstableWarning([]*Artifact{steady}, []string{""}, stats.DefaultStability); w != "" {
		t.Errorf("a steady artifact warned %q", w)
	}
}
