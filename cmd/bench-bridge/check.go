package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/check"
)

// checkOptions are check's: the program's command line and the checks' options.
type checkOptions struct {
	IO  *IOStreams
	ctx context.Context

	Args  []string // the program and the arguments before the protocol's command
	Check check.Options
}

// newCmdCheck is `bench-bridge check PROG [ARG...]`.
func newCmdCheck(f *Factory, runF func(*checkOptions) error) *cobra.Command {
	o := &checkOptions{IO: f.IO, Check: check.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "check PROG [ARG...]",
		Short: "Run a bench program through the protocol's conformance checks",
		Long: `Run a bench program (docs/protocol.md) through the protocol's checks: the first line and its version,
the order of the records, --samples, --min-time-ns, --warmup-ns and --ops honoured (and protocol 2's --ref,
--slowdown and --slowdown-steps), timer_overhead_ns, list, loop, error records, the exit status, and a flush
after every line. Each problem is printed with the command and the output line that shows it; the exit status
is 1 when there is one. A program that passes but speaks protocol 1 gets a note of what that costs its numbers.

ARGs come before the protocol's command: bench-bridge check python3 bench.py runs "python3 bench.py list", ...`,
		Example: `  bench-bridge check ./bench
  bench-bridge check --timeout 5m ./slow-bench`,
		Args: cobra.MinimumNArgs(1),
		RunE: runCmd(o, runF, checkRun, func(cmd *cobra.Command, args []string) error {
			o.ctx, o.Args = cmd.Context(), args
			return nil
		}),
	}
	cmd.Flags().SetInterspersed(false) // flags after PROG are the program's
	cmd.Flags().DurationVar(&o.Check.Timeout, "timeout", o.Check.Timeout, "the deadline of each run of the program")
	return cmd
}

func checkRun(o *checkOptions) error {
	rep, err := check.Run(o.ctx, o.Args, o.Check)
	if err != nil {
		return err
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(o.IO.Out, p)
	}
	if len(rep.Problems) > 0 {
		return fmt.Errorf("%s: %d problems in %d checks (docs/protocol.md)", o.Args[0], len(rep.Problems), rep.Checked)
	}
	fmt.Fprintf(o.IO.Out, "%s: speaks the protocol: %d checks passed; it implements %s\n", o.Args[0], rep.Checked, strings.Join(rep.Cases, ", "))
	for _, n := range rep.Notes {
		fmt.Fprintf(o.IO.Out, "note: %s\n", n)
	}
	return nil
}
