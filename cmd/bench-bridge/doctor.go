package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/doctor"
	"github.com/bench-bridge/bench-bridge/targets"
)

func newDoctorCmd(stdout io.Writer) *cobra.Command {
	o := &runOptions{}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor [TARGET...]",
		Short: "Check what a run needs (compiler, QuickJS, device, profilers) and say how to fix what is missing",
		Long: `doctor checks, for each target (default: the local machine and every configured target), the C compiler
of its toolchain, QuickJS's source, that the device is reachable and runs programs (adb server and device, ssh
host key and login), the run prefix's command and the profilers on the device. For each missing part it prints
the command that fixes it. It exits 1 when a required part is missing.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := config.Load(o.configFile)
			if err != nil {
				return err
			}
			names := args
			if len(names) == 0 {
				names = defaultDoctorTargets(cfg)
			}
			o.target.Log = cmd.ErrOrStderr() // what opening a device says: a recorded host key, a removed leftover
			fs := doctor.Check(cmd.Context(), cfg, names, doctor.Options{QuickJSSrc: o.quickjsSrc, Overrides: o.target, Timeout: 20 * time.Second})
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(fs); err != nil {
					return err
				}
			} else {
				doctor.Write(stdout, fs)
			}
			if doctor.Failed(fs) {
				return fmt.Errorf("a required part is missing (see the fix lines above)")
			}
			return nil
		},
	}
	o.register(cmd, false)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the findings as JSON")
	cmd.ValidArgsFunction = targetCompletion(o)
	return cmd
}

// defaultDoctorTargets is the local machine's built-in name and every configured target.
func defaultDoctorTargets(cfg *config.Config) []string {
	names := []string{localName()}
	for n := range cfg.Targets {
		if n != localName() {
			names = append(names, n)
		}
	}
	sort.Strings(names[1:])
	return names
}

func newTargetsCmd(stdout io.Writer) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "targets",
		Short: "List the built-in and configured targets and whether each is reachable now",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.Load(o.configFile)
			if err != nil {
				return err
			}
			names := targets.Names(cfg.Specs())
			status := make([]string, len(names))
			var wg sync.WaitGroup
			for i, n := range names {
				wg.Add(1)
				go func() {
					defer wg.Done()
					status[i] = reachability(cmd, cfg, n, o)
				}()
			}
			wg.Wait()
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "target\tkind\tfrom\treachable")
			for i, n := range names {
				spec, _ := targets.Lookup(n, cfg.Specs())
				from := "built-in"
				if _, ok := cfg.Targets[n]; ok {
					from = "config"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", n, spec.Kind, from, status[i])
			}
			return tw.Flush()
		},
	}
	o.register(cmd, false)
	return cmd
}

// reachability opens a target and runs `true` on it, within a few seconds.
func reachability(cmd *cobra.Command, cfg *config.Config, name string, o *runOptions) string {
	ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Second)
	defer cancel()
	t, err := targets.Open(ctx, name, cfg.Specs(), o.target)
	if err == nil {
		defer t.Close()
		err = t.Run(ctx, "true", nil, io.Discard, io.Discard)
	}
	if err != nil {
		return "no: " + strings.SplitN(err.Error(), "\n", 2)[0]
	}
	return "yes"
}

// localName is the built-in name of this machine: mac on macOS, linux elsewhere.
func localName() string {
	if runtime.GOOS == "darwin" {
		return "mac"
	}
	return "linux"
}
