package gate

import (
	"fmt"
	"os"
	"strings"

	"github.com/bench-bridge/bench-bridge/reports"
)

// WritePullRequest writes the pull-request report of the comparisons (reports.RenderPullRequest) to file, and
// appends it to $GITHUB_STEP_SUMMARY when that is set (a GitHub Actions job's summary). base is the label of the
// program the others were compared with.
func (r *Report) WritePullRequest(file, base string) error {
	var b strings.Builder
	if err := reports.RenderPullRequest(&b, r.Gate(), base, r.Notes); err != nil {
		return err
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	summary := os.Getenv("GITHUB_STEP_SUMMARY")
	if summary == "" {
		return nil
	}
	f, err := os.OpenFile(summary, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("$GITHUB_STEP_SUMMARY: %w", err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return fmt.Errorf("$GITHUB_STEP_SUMMARY %s: %w", summary, err)
	}
	return f.Close()
}
