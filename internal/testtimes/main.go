// Command testtimes is how scripts/test shows what each test costs. Each of its go test runs goes through filter,
// which prints what go test prints without -json (the packages' ok and FAIL lines, and the output of each test
// that fails) and keeps the events; at the end report prints the slowest tests and each package's time, and writes
// them to a file.
//
//	go test -json ARGS | testtimes filter [-v] EVENTS   go test's usual output; the events appended to EVENTS
//	testtimes report [-top N] [-out FILE] [-budgets MD] EVENTS...
//
// Each EVENTS file is one step of the run, named by its file name up to its first dot ("tests", "race", ...). report
// reads the packages' budgets from the table of docs/contributing.md (-budgets) and names the packages over theirs.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: testtimes filter [-v] EVENTS | testtimes report [-top N] [-out FILE] [-budgets MD] EVENTS...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "filter":
		err = filterCmd(os.Args[2:])
	case "report":
		err = reportCmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: want filter or report", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testtimes:", err)
		os.Exit(2)
	}
}

// event is one line of go test -json (cmd/test2json), with the fields read here.
type event struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string // build-output and build-fail
	Test       string
	Elapsed    float64
	Output     string
}

func filterCmd(args []string) error {
	fs := flag.NewFlagSet("filter", flag.ContinueOnError)
	verbose := fs.Bool("v", false, "print every test's output, as go test -v does")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("filter: want one EVENTS file")
	}
	f, err := os.OpenFile(fs.Arg(0), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	return filter(os.Stdin, os.Stdout, f, *verbose)
}

// filter copies go test -json's events from in to events and writes to out what go test prints without -json: the
// package lines (ok, FAIL, no test files), build errors, and the output of each test that fails (also of a test
// still running when its package failed: a panic or a timeout), or with verbose every line. A line that is not an
// event (go test's own errors) is printed as it is.
func filter(in io.Reader, out, events io.Writer, verbose bool) error {
	w := bufio.NewWriter(out)
	defer w.Flush()
	held := map[string][]string{} // package + "\x00" + test: the output of a test that has not ended
	var order []string            // the tests of held, in the order they started
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1024*1024), 64*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		if _, err := events.Write(append(line, '\n')); err != nil {
			return err
		}
		var e event
		if json.Unmarshal(line, &e) != nil || e.Action == "" {
			fmt.Fprintf(w, "%s\n", line)
			w.Flush()
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch {
		case verbose:
			if e.Action == "output" || e.Action == "build-output" {
				w.WriteString(e.Output)
			}
		case e.Action == "build-output":
			w.WriteString(e.Output)
		case e.Test == "" && e.Action == "output":
			if e.Output != "PASS\n" { // go test without -v says ok alone
				w.WriteString(e.Output)
			}
		case e.Test == "":
			if e.Action == "fail" { // what its tests printed that never ended: a panic, a timeout
				for _, k := range order {
					if strings.HasPrefix(k, e.Package+"\x00") {
						printHeld(w, held[k])
						delete(held, k)
					}
				}
			}
		case e.Action == "output":
			if _, ok := held[key]; !ok {
				order = append(order, key)
			}
			held[key] = append(held[key], e.Output)
		case e.Action == "fail":
			printHeld(w, held[key])
			delete(held, key)
		case e.Action == "pass" || e.Action == "skip":
			delete(held, key)
		}
		if e.Test == "" || e.Action == "fail" {
			w.Flush()
		}
	}
	return sc.Err()
}

// printHeld prints a failed test's output but the lines that only mark its progress, which go test without -v
// does not print either.
func printHeld(w io.Writer, lines []string) {
	for _, l := range lines {
		if t := strings.TrimLeft(l, " "); strings.HasPrefix(t, "=== RUN") || strings.HasPrefix(t, "=== PAUSE") ||
			strings.HasPrefix(t, "=== CONT") || strings.HasPrefix(t, "=== NAME") {
			continue
		}
		io.WriteString(w, l)
	}
}

// result is the time of a package or a top-level test in one step.
type result struct {
	step, pkg, test string
	seconds         float64
	failed          bool
}

// readEvents reads a file of events: the packages' and the top-level tests' results, the last of each. A top-level
// test's time is from its start (or, when it paused as a parallel test, from when it went on) to its end, its
// parallel subtests included, which its own Elapsed leaves out.
func readEvents(path string) (pkgs, tests []result, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	step, _, _ := strings.Cut(strings.TrimSuffix(filepath.Base(path), ".json"), ".")
	seen := map[string]int{}
	started := map[string]time.Time{}
	for _, line := range strings.Split(string(b), "\n") {
		var e event
		if json.Unmarshal([]byte(line), &e) != nil || strings.Contains(e.Test, "/") {
			continue
		}
		key := e.Package + "\x00" + e.Test
		if e.Action == "run" || e.Action == "cont" {
			started[key] = e.Time
		}
		if e.Action != "pass" && e.Action != "fail" {
			continue
		}
		r := result{step: step, pkg: e.Package, test: e.Test, seconds: e.Elapsed, failed: e.Action == "fail"}
		if start, ok := started[key]; ok && e.Test != "" && !start.IsZero() && !e.Time.IsZero() {
			r.seconds = max(r.seconds, e.Time.Sub(start).Seconds())
		}
		list := &tests
		if e.Test == "" {
			list = &pkgs
		}
		if i, ok := seen[key]; ok && i < len(*list) && (*list)[i].pkg == r.pkg && (*list)[i].test == r.test {
			(*list)[i] = r
			continue
		}
		seen[key] = len(*list)
		*list = append(*list, r)
	}
	return pkgs, tests, nil
}

func reportCmd(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	top := fs.Int("top", 15, "how many of the slowest tests to print")
	out := fs.String("out", "", "also write the report, with every package and the slowest 50 tests, to this file")
	budgets := fs.String("budgets", "", "the markdown file whose table gives each package's budget in seconds")
	module := fs.String("module", "", "the module's path, left off the packages' names")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var pkgs, tests []result
	for _, path := range fs.Args() {
		p, t, err := readEvents(path)
		if errors.Is(err, os.ErrNotExist) {
			continue // a step that did not run
		} else if err != nil {
			return err
		}
		pkgs, tests = append(pkgs, p...), append(tests, t...)
	}
	var limits map[string]float64
	if *budgets != "" {
		var err error
		if limits, err = readBudgets(*budgets); err != nil {
			return err
		}
	}
	r := report{pkgs: pkgs, tests: tests, budgets: limits, module: *module}
	r.write(os.Stdout, *top)
	if *out == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	r.write(f, max(*top, 50))
	fmt.Printf("scripts/test: written to %s\n", *out)
	return f.Close()
}

type report struct {
	pkgs, tests []result
	budgets     map[string]float64
	module      string
}

func (r report) name(pkg string) string {
	if r.module != "" {
		if pkg == r.module {
			return "."
		}
		return strings.TrimPrefix(pkg, r.module+"/")
	}
	return pkg
}

// write prints the top slowest tests of every step, then each package's time in each step (its go test time: the
// test binary's run, its tests side by side when they run in parallel) against its budget.
func (r report) write(w io.Writer, top int) {
	tests := slices.Clone(r.tests)
	slices.SortStableFunc(tests, func(a, b result) int { return cmpDesc(a.seconds, b.seconds) })
	fmt.Fprintf(w, "scripts/test: the %d slowest tests (of %d)\n", min(top, len(tests)), len(tests))
	for _, t := range tests[:min(top, len(tests))] {
		fmt.Fprintf(w, "  %7.1f s  %-6s %-22s %s%s\n", t.seconds, t.step, r.name(t.pkg), t.test, failedMark(t.failed))
	}
	steps := []string{"tests", "race", "short", "proofs"} // in the order scripts/test runs them; any other after
	byPkg := map[string]map[string]result{}
	for _, p := range r.pkgs {
		if !slices.Contains(steps, p.step) {
			steps = append(steps, p.step)
		}
		name := r.name(p.pkg)
		if byPkg[name] == nil {
			byPkg[name] = map[string]result{}
		}
		if q, ok := byPkg[name][p.step]; ok { // the package's tests split between processes of one step
			p.seconds, p.failed = p.seconds+q.seconds, p.failed || q.failed
		}
		byPkg[name][p.step] = p
	}
	names := make([]string, 0, len(byPkg))
	for n := range byPkg {
		names = append(names, n)
	}
	total := func(n string) (s float64) {
		for _, p := range byPkg[n] {
			s += p.seconds
		}
		return s
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := cmpDesc(total(a), total(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	steps = slices.DeleteFunc(steps, func(s string) bool {
		return !slices.ContainsFunc(r.pkgs, func(p result) bool { return p.step == s })
	})
	fmt.Fprintf(w, "scripts/test: time by package and step, in seconds (! failed), and its budget for the whole run\n  %-22s", "package")
	for _, s := range steps {
		fmt.Fprintf(w, " %8s", s)
	}
	fmt.Fprintf(w, " %8s\n", "budget")
	for _, n := range names {
		if total(n) < 0.05 {
			continue
		}
		fmt.Fprintf(w, "  %-22s", n)
		for _, s := range steps {
			cell := "-"
			if p, ok := byPkg[n][s]; ok {
				cell = strconv.FormatFloat(p.seconds, 'f', 1, 64)
				if p.failed {
					cell += "!"
				}
			}
			fmt.Fprintf(w, " %8s", cell)
		}
		if b, ok := r.budgets[n]; ok {
			fmt.Fprintf(w, " %8.0f", b)
			if total(n) > b {
				fmt.Fprintf(w, "  over its budget (docs/contributing.md)")
			}
		}
		fmt.Fprintln(w)
	}
}

func failedMark(failed bool) string {
	if failed {
		return "  FAILED"
	}
	return ""
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// budgetRow is a row of the budgets' table: | `PACKAGE` | SECONDS | ... |
var budgetRow = regexp.MustCompile("^\\|\\s*`([^`]+)`\\s*\\|\\s*(\\d+(?:\\.\\d+)?)\\s*s?\\s*\\|")

// readBudgets reads each package's budget in seconds from the rows of a markdown table whose first cell is the
// package's path in backquotes and whose second is the seconds.
func readBudgets(path string) (map[string]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	budgets := map[string]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		if m := budgetRow.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			v, _ := strconv.ParseFloat(m[2], 64)
			budgets[strings.TrimSuffix(strings.TrimPrefix(m[1], "./"), "/")] = v
		}
	}
	return budgets, nil
}
