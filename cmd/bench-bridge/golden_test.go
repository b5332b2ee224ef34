package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/*.golden from what compare and gate print today")

// sessionID matches runner's session IDs (a time and random bits), which differ from run to run.
var sessionID = regexp.MustCompile(`\d{8}T\d{6}Z-[0-9a-f]{8}`)

// golden compares got, with dir written as DIR and session IDs as SESSION, with testdata/NAME.golden. On a mismatch
// it writes testdata/NAME.got beside it, for a diff (as benchstat's tests do); -update-golden rewrites the golden.
func golden(t *testing.T, name, dir, got string) {
	t.Helper()
	got = strings.ReplaceAll(got, dir, "DIR")
	got = sessionID.ReplaceAllString(got, "SESSION")
	checkGolden(t, filepath.Join("testdata", name+".golden"), got, "-update-golden accepts it")
}

// checkGolden compares got with the golden file path; on a mismatch it writes got beside it as .got and says hint.
// -update-golden rewrites the golden instead.
func checkGolden(t *testing.T, path, got, hint string) {
	t.Helper()
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	gotPath := strings.TrimSuffix(path, ".golden") + ".got"
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/bench-bridge -run %s -update-golden writes it)", err, t.Name())
	}
	if string(want) != got {
		os.WriteFile(gotPath, []byte(got), 0o644)
		t.Errorf("%s differs from what it says now: diff %s %s (%s)", path, path, gotPath, hint)
		return
	}
	os.Remove(gotPath)
}

// TestGoldenCompare: what compare prints, in every format, of a program against itself slowed by 3% (significant in
// every pair, under the minimum effect) and by 50% (a regression). The fake target's numbers are exact, so the
// verdicts and every number are the same on any machine.
func TestGoldenCompare(t *testing.T) {
	cfg := fakeBridge(t)
	for _, format := range []string{"text", "markdown", "json"} {
		fs := newFakes(false, false, &fakeTarget{name: "fake-a"})
		dir := t.TempDir()
		code := fs.run("compare", "fake-a", "fake", "fake:slowdown=0.03", "fake:slowdown=0.5", "--config", cfg,
			"--cases", "script_to_host_scalar", "--runs", "8", "--samples", "1", "--min-time", "1ms", "--out", dir,
			"--format", format, "--gate")
		golden(t, "compare-"+format, dir, "exit "+strconv.Itoa(code)+"\n"+fs.stdout.String())
	}
}

// TestGoldenGate: what gate prints, in every format, of a run against itself, against the run slowed by 50%, and
// against a run of another CPU (nothing can be judged by time: exit 4, or 0 with --allow-unjudged).
func TestGoldenGate(t *testing.T) {
	cfg := fakeBridge(t)
	dir := t.TempDir()
	base := measureFake(t, cfg, dir, "base.json")
	slow, other := measureFake(t, cfg, dir, "slow.json", "--slowdown", "0.5"), measureFake(t, cfg, dir, "other.json")
	a, err := artifact.Read(other)
	if err != nil {
		t.Fatal(err)
	}
	a.Device.CPUModel = "another cpu"
	if err := artifact.Write(other, a); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, current string
		more          []string
	}{{"same", base, nil}, {"slow", slow, nil}, {"other-cpu", other, nil}, {"other-cpu-allowed", other, []string{"--allow-unjudged"}}} {
		for _, format := range []string{"text", "markdown", "json"} {
			fs := newFakes(false, false)
			code := fs.run(append([]string{"gate", "--config", cfg, "--format", format, base, tc.current}, tc.more...)...)
			golden(t, "gate-"+tc.name+"-"+format, dir, "exit "+strconv.Itoa(code)+"\n"+fs.stdout.String())
		}
	}
}
