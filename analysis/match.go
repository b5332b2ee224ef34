package analysis

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// Loaded is an artifact and the file it came from.
type Loaded struct {
	File     string
	Artifact *artifact.Artifact
}

// Pair is a baseline and the current artifact gated against it.
type Pair struct {
	Baseline, Current Loaded
}

// Load reads path: one artifact, or every *.json artifact in a directory (each must be one; two artifacts of the
// same target, program and codec in one directory are an error, since the gate could not tell which to use).
func Load(path string) ([]Loaded, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		a, err := artifact.Read(path)
		if err != nil {
			return nil, err
		}
		return []Loaded{{path, a}}, nil
	}
	files, err := filepath.Glob(filepath.Join(path, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Loaded
	seen := map[string]string{}
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), ".") {
			continue // a temporary file of an atomic write
		}
		a, err := artifact.Read(f)
		if err != nil {
			return nil, err
		}
		if other, dup := seen[key(a)]; dup {
			return nil, fmt.Errorf("%s: two artifacts of %s: %s and %s", path, a.Label(), filepath.Base(other), filepath.Base(f))
		}
		seen[key(a)] = f
		out = append(out, Loaded{f, a})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no artifacts (*.json) in the directory", path)
	}
	return out, nil
}

// key is what matches a current artifact to its baseline: the target, the program and the codec.
func key(a *artifact.Artifact) string {
	return a.Target + "\x00" + a.Kind + "\x00" + a.Codec
}

// Match pairs current artifacts with baselines of the same target, program and codec. With one artifact on each side
// they are paired whatever they are (Judge notes the difference). notes says what could not be paired.
func Match(baselines, current []Loaded) (pairs []Pair, notes []Warning) {
	if len(baselines) == 1 && len(current) == 1 {
		return []Pair{{baselines[0], current[0]}}, nil
	}
	byKey := map[string]Loaded{}
	for _, b := range baselines {
		byKey[key(b.Artifact)] = b
	}
	used := map[string]bool{}
	for _, c := range current {
		b, ok := byKey[key(c.Artifact)]
		if !ok {
			notes = append(notes, Warning{Kind: Unmatched, Artifact: fmt.Sprintf("%s (%s)", c.File, c.Artifact.Label()),
				Text: "no baseline of the same target, program and codec: not gated"})
			continue
		}
		used[key(c.Artifact)] = true
		pairs = append(pairs, Pair{b, c})
	}
	for _, b := range baselines {
		if !used[key(b.Artifact)] {
			notes = append(notes, Warning{Kind: Unmatched, Artifact: fmt.Sprintf("%s (%s)", b.File, b.Artifact.Label()),
				Text: "baseline without a current artifact"})
		}
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].Current.File < pairs[j].Current.File })
	return pairs, notes
}

// LoadedFrom pairs artifacts with the files they came from (files[i] is arts[i]'s).
func LoadedFrom(arts []*artifact.Artifact, files []string) []Loaded {
	out := make([]Loaded, len(arts))
	for i, a := range arts {
		out[i] = Loaded{File: files[i], Artifact: a}
	}
	return out
}

// ReadFiles reads the artifact files as show takes them, in order, keeping only the cases named (OnlyCases) when
// some are.
func ReadFiles(files, cases []string) ([]Loaded, error) {
	arts := make([]*artifact.Artifact, len(files))
	for i, f := range files {
		a, err := artifact.Read(f)
		if err != nil {
			return nil, err
		}
		arts[i] = a
	}
	if len(cases) > 0 {
		if err := OnlyCases(arts, cases); err != nil {
			return nil, err
		}
	}
	return LoadedFrom(arts, files), nil
}
