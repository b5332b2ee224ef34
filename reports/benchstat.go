package reports

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/artifact"
)

// renderBenchstat writes every sample of the table's artifacts in the Go benchmark format, which
// golang.org/x/perf/cmd/benchstat reads: one block per artifact, opened by an "artifact: LABEL" configuration line, then one line per sample,
//
//	BenchmarkCase/script_to_host_scalar  11864  1250.3 ns/op  19041 instr/op  1050 B/op  24 allocs/op
//
// (instr/op where the artifact has callgrind counts; B/op and allocs/op, as Go's -benchmem names them, where it has
// memory counts: the same value on every sample line, since the memory pass counts once per process). `benchstat -col artifact FILE` puts the artifacts side by side;
// a file per artifact compares with plain `benchstat a.txt b.txt`.
//
// The table's warnings and notes follow as "# " lines, which benchstat skips.
func renderBenchstat(w io.Writer, t *analysis.Table) error {
	if len(t.Artifacts) == 0 {
		return nil
	}
	arts := make([]*artifact.Artifact, len(t.Artifacts))
	for i, l := range t.Artifacts {
		arts[i] = l.Artifact
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	device := func(a *artifact.Artifact) [][2]string {
		return [][2]string{{"goos", strings.ToLower(firstWord(a.Device.OS))}, {"goarch", a.Device.Arch}, {"cpu", a.Device.CPUModel}}
	}
	// benchstat makes a table per distinct configuration: name the device only when every artifact shares it, so
	// that artifacts of different devices still land in one table.
	var shared [][2]string
	for _, kv := range device(arts[0]) {
		same := kv[1] != ""
		for _, a := range arts[1:] {
			same = same && slices.Contains(device(a), kv)
		}
		if same {
			shared = append(shared, kv)
		}
	}
	for i, a := range arts {
		if i > 0 {
			fmt.Fprintln(w)
		}
		for _, kv := range append(shared, [2]string{"artifact", t.Columns[i].Label}) {
			fmt.Fprintf(w, "%s: %s\n", kv[0], kv[1])
		}
		for _, r := range t.Rows {
			name := r.Case
			c := a.Case(name)
			if c == nil {
				continue
			}
			for _, ns := range c.SamplesNs {
				line := fmt.Sprintf("BenchmarkCase/%s %d %s ns/op", name, max(c.Iterations, 1), num(ns))
				if c.InstructionsPerOp != nil {
					line += " " + num(*c.InstructionsPerOp) + " instr/op"
				}
				if m := c.Memory; m != nil && m.BytesPerOp != nil {
					line += " " + num(*m.BytesPerOp) + " B/op"
				}
				if m := c.Memory; m != nil && m.AllocsPerOp != nil {
					line += " " + num(*m.AllocsPerOp) + " allocs/op"
				}
				fmt.Fprintln(w, line)
			}
		}
	}
	if len(t.Warnings)+len(t.Notes) > 0 {
		fmt.Fprintln(w)
	}
	return commentLines(w, t)
}

// firstWord is "Linux" of "Linux (Debian GNU/Linux 12)": goos is one word.
func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}
