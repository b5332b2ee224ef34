package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestReadmeMainCommandWritesNoCommittedFile: the README's first command, run in a fresh clone, must not rewrite
// committed artifacts: it writes to the default out dir, which holds no tracked file.
func TestReadmeMainCommandWritesNoCommittedFile(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "```\n") + 4
	main := text[start : start+strings.Index(text[start:], "```")]
	if !strings.Contains(main, "scripts/bench linux") || strings.Contains(main, "docs/reports") || strings.Contains(main, "--out") {
		t.Fatalf("README's main command is %q: want scripts/bench linux writing to the default out dir", main)
	}
	tracked, err := exec.Command("git", "-C", "../..", "ls-files", DefaultOutDir).Output()
	if err != nil {
		testenv.Missing(t, "git ls-files: "+err.Error()+" (run the tests in a git checkout)")
	}
	if len(tracked) > 0 {
		t.Fatalf("the default out dir %s/ holds committed files, which the README's command would overwrite:\n%s", DefaultOutDir, tracked)
	}
}

// TestReadmeTableFitsA120ColumnTerminal runs the README's show of two artifacts in a real terminal of 120 columns
// (tmux) and reads the screen back: no line wraps, every case has its row, and a line names the columns left out.
func TestReadmeTableFitsA120ColumnTerminal(t *testing.T) {
	testenv.Require(t, "tmux", "apt-get install tmux (scripts/setup does it)")
	bin := cli(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	socket := fmt.Sprintf("bench-bridge-test-%d", os.Getpid())
	tmux := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, "tmux", append([]string{"-L", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		return string(out), err
	}
	show := fmt.Sprintf("cd '%s' && '%s' show docs/reports/bench/floor-linux.json docs/reports/bench/linux.json; tmux -L %s wait-for -S shown; sleep 600",
		root, bin, socket)
	if out, err := tmux("new-session", "-d", "-x", "120", "-y", "80", "-s", "show", show); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	defer tmux("kill-server")
	if out, err := tmux("wait-for", "shown"); err != nil {
		t.Fatalf("tmux wait-for: %v\n%s", err, out)
	}
	rows, err := tmux("capture-pane", "-p", "-t", "show")
	if err != nil {
		t.Fatal(err)
	}
	joined, err := tmux("capture-pane", "-p", "-J", "-t", "show")
	if err != nil {
		t.Fatal(err)
	}
	if rows != joined {
		t.Errorf("lines wrapped in a 120-column terminal:\n%s", rows)
	}
	screen := strings.TrimRight(rows, "\n")
	for _, l := range strings.Split(screen, "\n") {
		if n := utf8.RuneCountInString(l); n > 120 {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}
	for _, c := range cases.Catalogue {
		if !strings.Contains(screen, "\n"+c.Name+" ") {
			t.Errorf("no row for %s:\n%s", c.Name, screen)
		}
	}
	if !strings.Contains(screen, "left out to fit 120 columns: ") || !strings.Contains(screen, "--wide") {
		t.Errorf("no line naming the columns left out:\n%s", screen)
	}
}

// The README's show on a terminal with --wide, and piped, prints every column: the same text either way.
func TestReadmeShowWideIsThePipedText(t *testing.T) {
	args := []string{"show", "../../docs/reports/bench/floor-linux.json", "../../docs/reports/bench/linux.json"}
	showOn := func(tty bool, extra ...string) string {
		var out bytes.Buffer
		streams := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: io.Discard}
		if tty {
			streams.SetStdoutTTY(true, 120)
		}
		if code := executeWith(&Factory{IO: streams}, append(args, extra...)); code != 0 {
			t.Fatalf("show %v: exit %d", extra, code)
		}
		return out.String()
	}
	piped, wide, fitted := showOn(false), showOn(true, "--wide"), showOn(true)
	if wide != piped || !strings.Contains(piped, "allocs/op") {
		t.Errorf("--wide on a terminal:\n%s\npiped:\n%s", wide, piped)
	}
	if fitted == piped || strings.Contains(fitted, "allocs/op  ") || !strings.Contains(fitted, "left out to fit 120 columns: bytes/op, allocs/op") {
		t.Errorf("on a terminal of 120 columns:\n%s", fitted)
	}
}

// TestReadmeTestCommandIsWhatCIRuns: the README's test command, under its own heading, is the command .ci/run runs,
// and both README commands come before anything else the README explains.
func TestReadmeTestCommandIsWhatCIRuns(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	measure, test := strings.Index(text, "\n## Measure: "), strings.Index(text, "\n## Test: ")
	if measure < 0 || test < 0 || strings.Count(text[:test], "\n## ") > 4 {
		t.Fatalf("README: want the headings '## Measure: ...' and '## Test: ...' among its first sections")
	}
	block := text[test:]
	start := strings.Index(block, "```\n") + 4
	command := strings.TrimSpace(block[start : start+strings.Index(block[start:], "```")])
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(ci)), "\n")
	if last := strings.TrimSpace(lines[len(lines)-1]); last != command {
		t.Errorf(".ci/run runs %q, the README's test command is %q", last, command)
	}
}
