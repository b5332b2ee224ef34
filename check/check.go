// Package check runs a bench program through the protocol's conformance checks (docs/protocol.md): the first line
// and a version the runner speaks, the order of the records, every flag honoured (protocol 2's --ref and --slowdown
// too), timer_overhead_ns, list, loop, error records, the exit status and a flush after each line. It reports each
// problem with the command and the line that shows it, and notes what an older protocol costs.
package check

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/cases"
)

// Problem is one way the program departs from the protocol.
type Problem struct {
	Command string // the arguments it was run with, e.g. "run --samples 3 callback"
	Line    int    // the output line that shows it, 1-based; 0 when no one line does
	Text    string // that line
	Message string
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s: line %d %q: %s", p.Command, p.Line, p.Text, p.Message)
	}
	return fmt.Sprintf("%s: %s", p.Command, p.Message)
}

// Options are the settings of the checks' runs.
type Options struct {
	Samples int
	MinTime time.Duration
	Warmup  time.Duration
	Loop    time.Duration
	Timeout time.Duration // the deadline of each run of the program
}

// DefaultOptions are short runs: the checks look at what is printed, not at the numbers.
func DefaultOptions() Options {
	return Options{Samples: 3, MinTime: 20 * time.Millisecond, Warmup: 150 * time.Millisecond, Loop: 200 * time.Millisecond,
		Timeout: time.Minute}
}

// Report is what the checks found.
type Report struct {
	Cases    []string // what list printed
	Protocol int      // the version the program's run spoke; 0 when it is not one bench-bridge speaks
	Checked  int      // how many checks ran
	Problems []Problem
	// Notes are not problems: what a program that passes should know, such as what its older protocol costs.
	Notes []string
}

// checker runs one program with its leading arguments (an interpreter's script, say).
type checker struct {
	prog []string
	opts Options
	rep  *Report
}

// Run checks the program prog (its path and any arguments that come before the protocol's command).
func Run(ctx context.Context, prog []string, opts Options) (*Report, error) {
	if len(prog) == 0 {
		return nil, errors.New("no program to check")
	}
	c := &checker{prog: prog, opts: opts, rep: &Report{}}
	name, err := c.checkList(ctx)
	if err != nil || name == "" {
		return c.rep, err
	}
	for _, step := range []func(context.Context, string) error{c.checkRun, c.checkOps, c.checkErrors, c.checkLoop} {
		if err := step(ctx, name); err != nil {
			return c.rep, err
		}
	}
	switch c.rep.Protocol {
	case 1:
		c.rep.Notes = append(c.rep.Notes, Protocol1Note)
	case 2:
		return c.rep, c.checkVersion2(ctx, name)
	}
	return c.rep, nil
}

func (c *checker) problem(cmd string, line int, text, format string, args ...any) {
	c.rep.Problems = append(c.rep.Problems, Problem{cmd, line, text, fmt.Sprintf(format, args...)})
}

// unitOps is the ops one loop unit of a case makes: a frame of 16 mutations for ui_ops_*, else one.
func unitOps(name string) int64 {
	if strings.HasPrefix(name, "ui_ops_") {
		return 16
	}
	return 1
}

// output is one run: its lines, when each arrived, its exit status and its stderr.
type output struct {
	cmd    string
	lines  []string
	at     []time.Duration // since the start
	status int             // the exit status; -1 when killed by a signal
	stderr string
}

// run runs the program with args, with the checks' deadline. An error means it could not be run at all.
func (c *checker) run(ctx context.Context, args ...string) (*output, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.prog[0], append(slices.Clone(c.prog[1:]), args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	out := &output{cmd: strings.Join(args, " ")}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("check: %s: %w", c.prog[0], err)
	}
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		out.lines = append(out.lines, sc.Text())
		out.at = append(out.at, time.Since(start))
	}
	err = cmd.Wait()
	out.stderr = strings.TrimSpace(stderr.String())
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("check: %s %s: no exit within %s", c.prog[0], out.cmd, c.opts.Timeout)
	case errors.As(err, &exit):
		out.status = exit.ExitCode()
	case err != nil:
		return nil, err
	}
	return out, nil
}

// checkList runs `list` and returns the case the other checks run: the first one listed.
func (c *checker) checkList(ctx context.Context) (string, error) {
	out, err := c.run(ctx, "list")
	if err != nil {
		return "", err
	}
	c.rep.Checked++
	if out.status != 0 {
		c.problem("list", 0, "", "exit status %d, want 0 (stderr: %s)", out.status, out.stderr)
	}
	for i, l := range out.lines {
		if _, ok := cases.Lookup(l); !ok {
			c.problem("list", i+1, l, "not a case of the catalogue (bench-bridge cases lists them)")
			continue
		}
		if slices.Contains(c.rep.Cases, l) {
			c.problem("list", i+1, l, "listed twice")
			continue
		}
		c.rep.Cases = append(c.rep.Cases, l)
	}
	if len(c.rep.Cases) == 0 {
		c.problem("list", 0, "", "lists no case of the catalogue; the other checks need one")
		return "", nil
	}
	return c.rep.Cases[0], nil
}
