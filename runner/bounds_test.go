package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCallgrindStepsHaveBounds puts a valgrind that never finishes first on PATH: the check and a counted run each
// end at their bound, with an error naming the step and the bound.
func TestCallgrindStepsHaveBounds(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "valgrind"), []byte("#!/bin/sh\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	oldCheck, oldRun := valgrindCheckBound, countRunBound
	valgrindCheckBound, countRunBound = 200*time.Millisecond, 200*time.Millisecond
	defer func() { valgrindCheckBound, countRunBound = oldCheck, oldRun }()
	tgt := localTarget(t)
	if err := CheckValgrind(context.Background(), tgt); err == nil || !strings.Contains(err.Error(), "valgrind --version did not finish within 200ms") {
		t.Errorf("check: %v", err)
	}
	_, _, err := countRun(context.Background(), tgt, "/bin/true", "callback", 4, nil)
	if err == nil || !strings.Contains(err.Error(), "callgrind run of callback with 4 units did not finish within 200ms") {
		t.Errorf("counted run: %v", err)
	}
}
