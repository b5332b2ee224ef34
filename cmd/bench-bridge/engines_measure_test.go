package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/runner"
	"github.com/bench-bridge/bench-bridge/session"
	"github.com/bench-bridge/bench-bridge/targets"
)

// enginesDir is where the artifacts of docs/engines.md's cross-boundary table are committed, a folder per target.
const enginesDir = "docs/reports/bench/engines"

// TestMeasureEngines measures docs/engines.md's cross-boundary table (scripts/measure-engines): on this machine and
// on Debian's adbd phone (arm64 under qemu), one session each of the floors of every engine of engines.All that has
// one, their processes alternating round by round, written to docs/reports/bench/engines/TARGET/; an engine whose
// floor cannot be built for a target is left out, and said. It then points the page's table markers of each target
// at the artifacts written, in engines.All's order; scripts/doc-tables renders them.
func TestMeasureEngines(t *testing.T) {
	if os.Getenv("BB_MEASURE_ENGINES") != "1" {
		t.Skip("a measurement of about 12 minutes: run scripts/measure-engines (BB_MEASURE_ENGINES=1)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	opts := runner.DefaultOptions()
	opts.Cases = cases.Names()
	if runs := os.Getenv("BB_MEASURE_ENGINES_RUNS"); runs != "" {
		if opts.Runs, err = strconv.Atoi(runs); err != nil || opts.Runs < 2 {
			t.Fatalf("BB_MEASURE_ENGINES_RUNS=%q: want a count of rounds of 2 or more", runs)
		}
	}
	if only := os.Getenv("BB_MEASURE_ENGINES_CASES"); only != "" { // a trial of the script
		if opts.Cases, err = cases.Select(only); err != nil {
			t.Fatal(err)
		}
	}
	targetNames := strings.Fields(os.Getenv("BB_MEASURE_ENGINES_TARGETS"))
	if len(targetNames) == 0 {
		targetNames = []string{"linux", "android"}
	}
	for _, name := range targetNames {
		if name == "android" {
			android(t)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour)
		tgt, err := targets.Open(ctx, name, nil, targets.Overrides{})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		dir := filepath.Join(root, enginesDir, name)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		jobs, skipped := session.EngineFloors(ctx, session.Plan{Options: opts}, tgt, session.FloorEngines(), dir, os.Stderr)
		for _, s := range skipped {
			t.Logf("%s: %s left out: %v", name, s.Engine, s.Why)
		}
		start, loadBefore := time.Now().UTC(), loadAverage(t)
		_, files, err := session.Run(ctx, jobs, os.Stderr, nil)
		tgt.Close()
		cancel()
		if err != nil { // an engine's failed case, or a session cut short: its artifact says which
			t.Errorf("%s: %v", name, err)
		}
		if len(files) == 0 {
			continue
		}
		t.Logf("%s: %d engines in one session of %d rounds, %s", name, len(files), opts.Runs, time.Since(start).Round(time.Second))
		for i, f := range files {
			if files[i], err = filepath.Rel(root, f); err != nil {
				t.Fatal(err)
			}
		}
		line := fmt.Sprintf("Measured by `scripts/measure-engines` on %s from %s to %s UTC: %d rounds of %d floors, "+
			"load average %s at the start and %s at the end.", start.Format("2006-01-02"), start.Format("15:04"),
			time.Now().UTC().Format("15:04"), opts.Runs, len(files), loadBefore, loadAverage(t))
		for _, s := range skipped {
			line += fmt.Sprintf(" Left out: %s, %s.", s.Engine, firstLine(s.Why))
		}
		if err := pointTables(filepath.Join(root, "docs/engines.md"), name, files, line); err != nil {
			t.Fatal(err)
		}
	}
}

// loadAverage is this machine's load average over the last minute, as uptime says it.
func loadAverage(t *testing.T) string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))[0]
}

// firstLine is an error's first line, what a sentence of the page can hold.
func firstLine(err error) string {
	line, _, _ := strings.Cut(err.Error(), "\n")
	return line
}

// pointTables makes every table marker of the page whose artifacts are target's (under enginesDir/TARGET/) list files
// instead, its flags kept, and puts line, what the session was, between <!-- session: TARGET --> and
// <!-- end session -->.
func pointTables(page, target string, files []string, line string) error {
	b, err := os.ReadFile(page)
	if err != nil {
		return err
	}
	marker := regexp.MustCompile(`(<!-- table: bench-bridge show [^\n]*?) (` + regexp.QuoteMeta(enginesDir+"/"+target+"/") + `\S+(?: \S+\.json)*) -->`)
	n := 0
	out := marker.ReplaceAllStringFunc(string(b), func(m string) string {
		n++
		return marker.ReplaceAllString(m, "$1 "+strings.Join(files, " ")+" -->")
	})
	if n == 0 {
		return fmt.Errorf("%s: no table marker of %s's artifacts under %s/%s/", page, target, enginesDir, target)
	}
	facts := regexp.MustCompile(`(?s)(<!-- session: ` + regexp.QuoteMeta(target) + ` -->\n).*?(<!-- end session -->)`)
	if !facts.MatchString(out) {
		return fmt.Errorf("%s: no <!-- session: %s --> marker", page, target)
	}
	out = facts.ReplaceAllLiteralString(out, "<!-- session: "+target+" -->\n"+line+"\n<!-- end session -->")
	return os.WriteFile(page, []byte(out), 0o644)
}

// compare floor floor:ENGINE alternates the floors of two engines in one session, each artifact named for its engine
// and marked as the session's: what scripts/measure-engines does for every engine, from the command line.
func TestCompareEngineFloors(t *testing.T) {
	requireCC(t)
	dir, target := t.TempDir(), localName()
	stdout, stderr, code := run(t, "compare", target, "floor", "floor:mujs", "--cases", "script_to_host_scalar",
		"--runs", "2", "--budget", "0", "--samples", "1", "--min-time", "1ms", "--warmup", "1ms", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var sessions []string
	for file, engine := range map[string]string{"a-floor-" + target + ".json": "quickjs", "b-floor-mujs-" + target + ".json": "mujs"} {
		a, err := artifact.Read(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if a.Engine.Name != engine || len(a.Session.Order) != 4 {
			t.Errorf("%s: engine %q, %d processes in the session's order; want %s's floor, 4", file, a.Engine.Name, len(a.Session.Order), engine)
		}
		sessions = append(sessions, a.Session.ID)
	}
	if sessions[0] != sessions[1] {
		t.Errorf("two sessions %v, want one", sessions)
	}
}
