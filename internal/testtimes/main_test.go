package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stream is go test -json of two packages: a passes (one test printing, one skipped), b fails (a test that fails
// with a subtest, and a test that was running when the binary panicked).
var stream = strings.Join([]string{
	`{"Action":"start","Package":"example.com/m/a"}`,
	`{"Action":"run","Package":"example.com/m/a","Test":"TestQuiet"}`,
	`{"Action":"output","Package":"example.com/m/a","Test":"TestQuiet","Output":"=== RUN   TestQuiet\n"}`,
	`{"Action":"output","Package":"example.com/m/a","Test":"TestQuiet","Output":"    a_test.go:9: said while passing\n"}`,
	`{"Action":"output","Package":"example.com/m/a","Test":"TestQuiet","Output":"--- PASS: TestQuiet (2.50s)\n"}`,
	`{"Action":"pass","Package":"example.com/m/a","Test":"TestQuiet","Elapsed":2.5}`,
	`{"Action":"output","Package":"example.com/m/a","Test":"TestSkipped","Output":"--- SKIP: TestSkipped (0.00s)\n"}`,
	`{"Action":"skip","Package":"example.com/m/a","Test":"TestSkipped","Elapsed":0}`,
	`{"Action":"output","Package":"example.com/m/a","Output":"PASS\n"}`,
	`{"Action":"output","Package":"example.com/m/a","Output":"ok  \texample.com/m/a\t2.6s\n"}`,
	`{"Action":"pass","Package":"example.com/m/a","Elapsed":2.6}`,
	`go: downloading example.com/x v1.0.0`,
	`{"Action":"run","Package":"example.com/m/b","Test":"TestBroken"}`,
	`{"Action":"output","Package":"example.com/m/b","Test":"TestBroken","Output":"=== RUN   TestBroken\n"}`,
	`{"Action":"output","Package":"example.com/m/b","Test":"TestBroken/sub","Output":"=== RUN   TestBroken/sub\n"}`,
	`{"Action":"output","Package":"example.com/m/b","Test":"TestBroken/sub","Output":"    b_test.go:5: want 1, got 2\n"}`,
	`{"Action":"output","Package":"example.com/m/b","Test":"TestBroken/sub","Output":"    --- FAIL: TestBroken/sub (7.00s)\n"}`,
	`{"Action":"fail","Package":"example.com/m/b","Test":"TestBroken/sub","Elapsed":7}`,
	`{"Action":"output","Package":"example.com/m/b","Test":"TestBroken","Output":"--- FAIL: TestBroken (7.10s)\n"}`,
	`{"Action":"fail","Package":"example.com/m/b","Test":"TestBroken","Elapsed":7.1}`,
	`{"Action":"run","Package":"example.com/m/b","Test":"TestPanics"}`,
	`{"Action":"output","Package":"example.com/m/b","Test":"TestPanics","Output":"=== RUN   TestPanics\n"}`,
	`{"Action":"output","Package":"example.com/m/b","Test":"TestPanics","Output":"panic: boom\n"}`,
	`{"Action":"output","Package":"example.com/m/b","Output":"FAIL\texample.com/m/b\t9.0s\n"}`,
	`{"Action":"fail","Package":"example.com/m/b","Elapsed":9}`,
}, "\n") + "\n"

// TestFilterPrintsWhatGoTestPrints: the package lines and the output of failed tests, with their progress lines
// left out; a passing or skipped test's output is not printed; every event is kept.
func TestFilterPrintsWhatGoTestPrints(t *testing.T) {
	var out, events bytes.Buffer
	if err := filter(strings.NewReader(stream), &out, &events, false); err != nil {
		t.Fatal(err)
	}
	want := "ok  \texample.com/m/a\t2.6s\n" +
		"go: downloading example.com/x v1.0.0\n" +
		"    b_test.go:5: want 1, got 2\n" +
		"    --- FAIL: TestBroken/sub (7.00s)\n" +
		"--- FAIL: TestBroken (7.10s)\n" +
		"FAIL\texample.com/m/b\t9.0s\n" +
		"panic: boom\n"
	if out.String() != want {
		t.Errorf("printed:\n%s\nwant:\n%s", out.String(), want)
	}
	if events.String() != stream {
		t.Errorf("the events kept differ from those read:\n%s", events.String())
	}
	out.Reset()
	if err := filter(strings.NewReader(stream), &out, &events, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "said while passing") || !strings.Contains(out.String(), "=== RUN   TestQuiet") {
		t.Errorf("-v does not print every line:\n%s", out.String())
	}
}

// TestReportNamesTheSlowestAndThePackagesOverBudget reads two steps' events and a budgets table: the slowest tests
// first, with their step; each package's time in each step, and the one over its budget named.
func TestReportNamesTheSlowestAndThePackagesOverBudget(t *testing.T) {
	dir := t.TempDir()
	race := strings.ReplaceAll(strings.ReplaceAll(stream, `"Elapsed":2.5`, `"Elapsed":4`), `"Elapsed":2.6}`, `"Elapsed":4.2}`)
	for name, text := range map[string]string{"tests.lane1.json": stream, "race.json": race} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	md := filepath.Join(dir, "contributing.md")
	os.WriteFile(md, []byte("| package | budget | what |\n|---|---:|---|\n| `a` | 5 s | quick |\n| `./b/` | 20 | the rest |\n"), 0o644)
	budgets, err := readBudgets(md)
	if err != nil || budgets["a"] != 5 || budgets["b"] != 20 || len(budgets) != 2 {
		t.Fatalf("budgets %v, %v", budgets, err)
	}
	var pkgs, tests []result
	for _, file := range []string{"tests.lane1", "race", "missing"} {
		p, ts, err := readEvents(filepath.Join(dir, file+".json"))
		if file == "missing" {
			if !os.IsNotExist(err) {
				t.Errorf("a step that did not run: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		pkgs, tests = append(pkgs, p...), append(tests, ts...)
	}
	if len(tests) != 4 { // TestQuiet and TestBroken in each step: no subtest, no test that never ended
		t.Errorf("tests: %+v", tests)
	}
	var out bytes.Buffer
	report{pkgs: pkgs, tests: tests, budgets: budgets, module: "example.com/m"}.write(&out, 3)
	lines := strings.Split(out.String(), "\n")
	for i, want := range []string{
		"scripts/test: the 3 slowest tests (of 4)",
		"      7.1 s  tests  b                      TestBroken  FAILED",
		"      7.1 s  race   b                      TestBroken  FAILED",
		"      4.0 s  race   a                      TestQuiet",
		"scripts/test: time by package and step, in seconds (! failed), and its budget for the whole run",
		"  package                   tests     race   budget",
		"  b                          9.0!     9.0!       20",
		"  a                           2.6      4.2        5  over its budget (docs/contributing.md)",
	} {
		if i >= len(lines) || lines[i] != want {
			t.Errorf("line %d:\n%s\nwant:\n%s\nin:\n%s", i, lines[min(i, len(lines)-1)], want, out.String())
			break
		}
	}
}

// TestTimeOfParallelTests: a test's time includes its parallel subtests, which run after its function returned (its
// Elapsed leaves them out), and not the time a parallel test waited before it went on.
func TestTimeOfParallelTests(t *testing.T) {
	events := strings.Join([]string{
		`{"Time":"2026-12-07T10:00:00Z","Action":"run","Package":"p","Test":"TestSignals"}`,
		`{"Time":"2026-12-07T10:00:01Z","Action":"run","Package":"p","Test":"TestSignals/INT"}`,
		`{"Time":"2026-12-07T10:00:01Z","Action":"pause","Package":"p","Test":"TestSignals/INT"}`,
		`{"Time":"2026-12-07T10:00:02Z","Action":"cont","Package":"p","Test":"TestSignals/INT"}`,
		`{"Time":"2026-12-07T10:00:09Z","Action":"pass","Package":"p","Test":"TestSignals/INT","Elapsed":7}`,
		`{"Time":"2026-12-07T10:00:09Z","Action":"pass","Package":"p","Test":"TestSignals","Elapsed":1.5}`,
		`{"Time":"2026-12-07T10:00:09Z","Action":"run","Package":"p","Test":"TestWaits"}`,
		`{"Time":"2026-12-07T10:00:09Z","Action":"pause","Package":"p","Test":"TestWaits"}`,
		`{"Time":"2026-12-07T10:00:20Z","Action":"cont","Package":"p","Test":"TestWaits"}`,
		`{"Time":"2026-12-07T10:00:23Z","Action":"pass","Package":"p","Test":"TestWaits","Elapsed":3}`,
	}, "\n")
	path := filepath.Join(t.TempDir(), "tests.json")
	if err := os.WriteFile(path, []byte(events), 0o644); err != nil {
		t.Fatal(err)
	}
	_, tests, err := readEvents(path)
	if err != nil || len(tests) != 2 || tests[0].seconds != 9 || tests[1].seconds != 3 {
		t.Errorf("tests %+v, %v: want TestSignals 9 s (its parallel subtest's 7 included), TestWaits 3 s", tests, err)
	}
}
