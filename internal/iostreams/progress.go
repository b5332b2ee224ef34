package iostreams

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/runner"
)

// Progress shows what runs are doing. On a terminal it keeps one status line (a bar, the case, an estimate) under the
// log; elsewhere (CI logs, pipes) it prints plain lines. A terminal changes the form, never the content.
type Progress struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	color   bool
	quiet   bool
	verbose bool
	runs    []*runState
	status  bool // a status line is on screen
}

type runState struct {
	label   string
	done    int
	total   int
	current string
	started time.Time
}

// newProgress shows progress on w: a status line when w is a terminal (tty), plain lines otherwise.
func newProgress(w io.Writer, tty, color, quiet, verbose bool) *Progress {
	return &Progress{w: w, tty: tty, color: color && tty, quiet: quiet, verbose: verbose}
}

// Write implements io.Writer for log lines (building, fetching): they go above the status line.
func (d *Progress) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.quiet {
		return len(p), nil
	}
	d.clear()
	_, err := d.w.Write(p)
	d.draw()
	return len(p), err
}

// track returns the event handler of one run of total cases, labelled like "linux-fast".
func (d *Progress) Track(label string, total int) func(runner.Event) {
	d.mu.Lock()
	r := &runState{label: label, total: total, current: "building", started: time.Now()}
	d.runs = append(d.runs, r)
	d.mu.Unlock()
	return func(e runner.Event) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if e.Kind != runner.ProgramDone {
			r.done, r.total = e.Done, e.Total
		}
		d.clear()
		switch e.Kind {
		case runner.CaseStarted:
			r.current = e.Case
		case runner.CaseMeasured:
			if !d.quiet && (d.verbose || !d.tty) {
				fmt.Fprintf(d.w, "%s: %-28s %s/op (%d/%d)\n", label, e.Case, artifact.FormatNs(e.MedianNs), r.done, r.total)
			}
		case runner.CaseFailed:
			fmt.Fprintf(d.w, "%s: %s %s: %s\n", label, e.Case, d.paint("failed", "31"), e.Reason)
		case runner.ProgramDone:
			r.done = r.total
		}
		if r.done >= r.total {
			d.remove(r)
		}
		d.draw()
	}
}

func (d *Progress) remove(r *runState) {
	for i, x := range d.runs {
		if x == r {
			d.runs = append(d.runs[:i], d.runs[i+1:]...)
			return
		}
	}
}

// clear erases the status line.
func (d *Progress) clear() {
	if d.status {
		fmt.Fprint(d.w, "\r\033[K")
		d.status = false
	}
}

// draw writes the status line: per run a bar, the count, the current case and an estimate of the time left.
func (d *Progress) draw() {
	if !d.tty || d.quiet || len(d.runs) == 0 {
		return
	}
	var parts []string
	for _, r := range d.runs {
		const width = 10
		filled := 0
		if r.total > 0 {
			filled = width * r.done / r.total
		}
		eta := "…"
		if r.done > 0 {
			left := time.Duration(float64(time.Since(r.started)) / float64(r.done) * float64(r.total-r.done))
			eta = left.Round(time.Second).String()
		}
		parts = append(parts, fmt.Sprintf("[%s%s] %d/%d %s: %s, %s left", strings.Repeat("#", filled),
			strings.Repeat("-", width-filled), r.done, r.total, r.label, r.current, eta))
	}
	fmt.Fprint(d.w, strings.Join(parts, " | "))
	d.status = true
}

// paint colours s on a terminal that wants colour (NO_COLOR unset).
func (d *Progress) paint(s, code string) string {
	if !d.color {
		return s
	}
	return "\033[" + code + "m" + s + "\033[0m"
}
