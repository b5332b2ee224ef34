// Command bench-bridge measures what one call across a script <-> host boundary costs on real devices, and how far
// that is from the floor: the same cases written directly against an engine's embedding API.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/internal/buildinfo"
	"github.com/bench-bridge/bench-bridge/internal/interrupt"
	"github.com/bench-bridge/bench-bridge/runner"
)

func main() { os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr)) }

// execute runs the command line with the real targets and returns the exit status; tests call it directly.
func execute(args []string, stdout, stderr io.Writer) int {
	return executeWith(newFactory(os.Stdin, stdout, stderr), args)
}

// executeWith runs the command line with f's streams and targets and returns the exit status: the one place that maps
// errors to exit statuses. The first SIGINT or SIGTERM cancels the run, which then cleans up on the device (kills the
// program, removes its directory) within bounds; a second one ends bench-bridge at once, cleanup or not.
func executeWith(f *Factory, args []string) int {
	stderr := f.IO.ErrOut
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stopSignals := interrupt.Notify(cancel, stderr)
	defer stopSignals()
	runner.Tool = "bench-bridge " + buildinfo.Read().Version(Version)
	root := newRoot(f)
	args = joinAcceptHostKey(args)
	addTargetCmds(root, f, args)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "bench-bridge: error: %v\n", err)
	}
	var sig interrupt.Signalled
	if errors.As(context.Cause(ctx), &sig) {
		return sig.Status() // interrupted, as shells report it: 130 for SIGINT, 143 for SIGTERM
	}
	if err != nil {
		var ex exitCode
		if errors.As(err, &ex) {
			return int(ex)
		}
		return 1
	}
	return 0
}

// exitCode is an error that asks for a specific exit status.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// newRoot is `bench-bridge TARGET...` (the bridge on the targets) with every command under it.
func newRoot(f *Factory) *cobra.Command {
	o := newMeasureOptions(f, artifact.ProgramBridge)
	measure := o.runE(nil)
	root := &cobra.Command{
		Use:   "bench-bridge TARGET...",
		Short: "Measure what one script <-> host call costs on real devices, and how far it is from the floor",
		Long: `Targets: linux and mac (the local machine), android (over adb), webos (over ssh), ssh [USER@]HOST (any
Linux board over ssh, built for what it runs), and the targets of the config file (bench-bridge.toml).

bench-bridge builds a set of benchmark cases twice, through the boundary under test (the bridge) and
directly against the QuickJS C API (the floor), runs them on a target, writes one JSON artifact per run and
shows artifacts side by side: ns per crossing, ratio to a pure-JavaScript loop, crossings per millisecond.`,
		Example: `  bench-bridge linux
  bench-bridge floor linux
  bench-bridge show docs/reports/bench/floor-linux.json docs/reports/bench/linux.json
  bench-bridge cases`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return measure(cmd, args)
		},
	}
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	o.register(root, true)
	root.AddCommand(newCmdFloor(f, nil), newCmdProfile(f, nil), newCmdDoctor(f, nil), newCmdTargets(f, nil), newCmdGate(f, nil),
		newCmdCompare(f, nil), newCmdBisect(f, nil), newCmdShow(f, nil), newCmdCases(f, nil), newCmdEngines(f, nil), newCmdCheck(f, nil),
		newCmdHistory(f), newCmdVersion(f))
	return root
}
