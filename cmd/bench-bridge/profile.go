package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/profile"
	"github.com/bench-bridge/bench-bridge/targets"
)

func newProfileCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &runOptions{}
	var program, tool, outDir string
	cmd := &cobra.Command{
		Use:   "profile TARGET CASE [SECS]",
		Short: "Run one case in a loop under the target's profiler and summarise where the time goes",
		Long: `profile runs one case of the bridge (or of the floor, --program floor) in the bench program's loop mode
for SECS seconds (default 5) under the target's profiler, saves the raw output as
out/profile-<target>-<case>.txt (and the profiler's data file beside it), and prints the top
functions by self share and the share of each part: number text, allocation, the boundary, the interpreter, the
kernel. Profilers: perf, strace, callgrind (linux), sample (mac), simpleperf or strace (android), perf or strace
(ssh targets), and on every Linux or Android target itimer: the bench program's own sampler (SIGPROF and
frame-pointer stacks), symbolised here, for kernels without perf events, qemu and boards without perf. Without
--tool the target's sampling profiler is tried first and itimer where it cannot record.`,
		Example: `  bench-bridge profile linux script_to_host_scalar 5
  bench-bridge profile linux script_to_host_object 3 --tool callgrind
  bench-bridge profile linux callback --program floor
  bench-bridge profile webos script_to_host_scalar --tool itimer --host root@touchpad`,
		Args: cobra.RangeArgs(2, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, caseName := args[0], args[1]
			if _, ok := cases.Lookup(caseName); !ok {
				return fmt.Errorf("unknown case %q (bench-bridge cases lists them)", caseName)
			}
			secs := 5.0
			if len(args) == 3 {
				var err error
				if secs, err = profile.ParseSeconds(args[2]); err != nil {
					return err
				}
			}
			if !slices.Contains([]string{artifact.ProgramBridge, artifact.ProgramFloor}, program) {
				return fmt.Errorf("--program %q: want bridge or floor", program)
			}
			if tool != "" && !slices.Contains(profile.ToolNames(), tool) {
				return fmt.Errorf("--tool %q: want one of %s", tool, strings.Join(profile.ToolNames(), ", "))
			}
			cfg, err := config.Load(o.configFile)
			if err != nil {
				return err
			}
			o.target.Log = stderr
			t, err := targets.Open(cmd.Context(), name, cfg.Specs(), o.target)
			if err != nil {
				return err
			}
			defer t.Close()
			job, err := o.job(cmd, cfg, t, program, stderr)
			if err != nil {
				return err
			}
			prog, err := job.Build(cmd.Context())
			if err != nil {
				return err
			}
			dev, err := t.Device(cmd.Context())
			if err != nil {
				return err
			}
			targets.CheckProgram(&dev, prog.Path)
			remote, err := t.Push(cmd.Context(), prog.Path)
			if err != nil {
				return err
			}
			res, err := profile.Run(cmd.Context(), t, remote, dev, profile.Options{Case: caseName, Seconds: secs, Tool: tool, OutDir: outDir, Log: stderr, Program: prog.Path})
			if err != nil {
				return err
			}
			res.Summary.Write(stdout)
			fmt.Fprintf(stderr, "raw output: %s\n", res.Raw)
			if res.Data != "" {
				fmt.Fprintf(stderr, "data file: %s\n", res.Data)
			}
			return nil
		},
	}
	o.register(cmd, true)
	cmd.Flags().StringVar(&program, "program", artifact.ProgramBridge, "program to profile: bridge or floor")
	cmd.Flags().StringVar(&tool, "tool", "", "profiler: "+strings.Join(profile.ToolNames(), ", ")+" (default: the target's best)")
	cmd.Flags().StringVar(&outDir, "out-dir", DefaultOutDir, "where the raw output and data file go")
	return cmd
}
