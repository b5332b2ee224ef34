package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

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
