package check

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/bench-bridge/bench-bridge/cases"
)

// Protocol1Note is the note for a program that speaks protocol 1: what the older version costs its numbers, and
// where the newer one is described.
const Protocol1Note = "speaks protocol 1: bench-bridge runs each of its cases in a process of its own after " +
	"ref_js_loop, and each ratio is against that ref, timed before the case rather than beside each of its samples " +
	"as protocol 2's --ref does: noisier, and slower to run " +
	"(docs/method.md#a-program-of-your-own-protocol-1-and-2); nor can compare add a slowdown to it to show that a " +
	"change would be found (--slowdown). docs/protocol.md#versions says what protocol 2 adds"

// checkVersion2 checks what protocol 2 adds to run, for a program that speaks it: a ref record before every sample
// with --ref, a slowdown record with --slowdown, and --slowdown-steps accepted. name is the case the other checks
// ran.
func (c *checker) checkVersion2(ctx context.Context, name string) error {
	other := name
	if name == cases.RefCase {
		other = c.otherCase()
	}
	if other == "" {
		return nil
	}
	if err := c.checkRef(ctx, other); err != nil {
		return err
	}
	return c.checkSlowdown(ctx, c.crossingCase(other))
}

// otherCase is the first listed case that is not ref_js_loop, or "".
func (c *checker) otherCase() string {
	for _, n := range c.rep.Cases {
		if n != cases.RefCase {
			return n
		}
	}
	return ""
}

// crossingCase is the first listed case that crosses the boundary, or fallback: only a crossing gets busy work.
func (c *checker) crossingCase(fallback string) string {
	for _, n := range c.rep.Cases {
		if m, ok := cases.Lookup(n); ok && m.Crossing {
			return n
		}
	}
	return fallback
}

// timing is the flags of a short calibrated run.
func (c *checker) timing() []string {
	o := c.opts
	return []string{"--samples", strconv.Itoa(o.Samples), "--min-time-ns", strconv.FormatInt(o.MinTime.Nanoseconds(), 10),
		"--warmup-ns", "0"}
}

// checkRef runs name with --ref ref_js_loop and checks that a ref record came before each of its samples (the
// order of each is checked as the lines come).
func (c *checker) checkRef(ctx context.Context, name string) error {
	if !slices.Contains(c.rep.Cases, cases.RefCase) {
		c.rep.Notes = append(c.rep.Notes, fmt.Sprintf("lists no %s: its cases have no ratio to it, and --ref is not checked", cases.RefCase))
		return nil
	}
	out, r, err := c.runCase(ctx, name, append(c.timing(), "--ref", cases.RefCase)...)
	if err != nil || r == nil {
		return err
	}
	if r.refs != len(r.ns) {
		c.problem(out.cmd, 0, "", "%d ref records for %d samples: --ref %s asks for one just before each sample", r.refs, len(r.ns), cases.RefCase)
	}
	return nil
}

// checkSlowdown runs name with --slowdown and then --slowdown-steps: the first must print one slowdown record (and
// gets a note when it added no work to a case that crosses); the second must run as asked.
func (c *checker) checkSlowdown(ctx context.Context, name string) error {
	out, r, err := c.runCase(ctx, name, append(c.timing(), "--slowdown", "0.1")...)
	if err != nil || r == nil {
		return err
	}
	m, _ := cases.Lookup(name)
	switch {
	case r.slowdown == nil:
		c.problem(out.cmd, 0, "", "no slowdown record: --slowdown SHARE asks for one, before calibrated, saying what work it added")
	case m.Crossing && !(r.slowdown[0] > 0):
		// A program that measures the work it added can measure nothing on a busy machine: a note, not a problem.
		c.rep.Notes = append(c.rep.Notes, fmt.Sprintf("%s: the slowdown record says no work was added to a case that "+
			"crosses, where --slowdown 0.1 asks for 10%% of its cost; if it says so on a quiet machine too, the "+
			"busy work is not called at the crossings", out.cmd))
	}
	out, r, err = c.runCase(ctx, name, "--slowdown-steps", "1", "--ops", "3", "--samples", "1", "--warmup-ns", "0")
	if err != nil || r == nil {
		return err
	}
	if len(r.ns) != 1 {
		c.problem(out.cmd, 0, "", "%d samples, --samples asked for 1", len(r.ns))
	}
	return nil
}
