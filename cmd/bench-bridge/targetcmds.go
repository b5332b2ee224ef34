package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/session"
	"github.com/bench-bridge/bench-bridge/targets"
)

// deviceFlags are the measuring flags that only some kinds of target read.
var deviceFlags = map[string][]string{
	"serial":          {"adb"},
	"adb-host":        {"adb"},
	"adb-port":        {"adb"},
	"all":             {"adb"},
	"host":            {"ssh", "novacom"},
	"identity":        {"ssh"},
	"known-hosts":     {"ssh"},
	"accept-host-key": {"ssh"},
	"workdir":         {"adb", "ssh", "novacom"},
}

// newCmdTarget is `bench-bridge NAME [TARGET...]`: the bridge measured on one target (and any more named after it),
// with the flags of its kind shown in its help.
func newCmdTarget(f *Factory, name, kind string, about [2]string, runF func(*measureOptions) error) *cobra.Command {
	o := newMeasureOptions(f, artifact.ProgramBridge)
	cmd := &cobra.Command{
		Use:   name + " [TARGET...]",
		Short: fmt.Sprintf("Measure the bridge on %s", about[0]),
		Long: fmt.Sprintf(`Measure the bridge on %s: the reference bridge (--codec), or a bridge of yours
declared in the config (--bridge NAME, docs/bridge.md). The target's kind is %s. More targets may follow;
each gets its artifact, and one table shows them all.`, about[1], kind),
		Example: fmt.Sprintf("  bench-bridge %s\n  bench-bridge %s --codec binary --cases script_to_host_scalar\n  bench-bridge %s --bridge mine", name, name, name),
		Args:    cobra.ArbitraryArgs,
		RunE:    o.runE(runF, name),
	}
	o.register(cmd, true)
	hideForeignFlags(cmd, kind)
	return cmd
}

// hideForeignFlags keeps the flags of other kinds of target out of cmd's help; they still parse, for the targets
// named after the first.
func hideForeignFlags(cmd *cobra.Command, kind string) {
	for flag, kinds := range deviceFlags {
		if !slices.Contains(kinds, kind) {
			cmd.Flags().MarkHidden(flag)
		}
	}
}

// addTargetCmds adds a command per built-in target and per target of the config the command line names (or the
// default one), so that each has its own --help. A config that cannot be read adds none: the command that needs it
// reports why.
func addTargetCmds(root *cobra.Command, f *Factory, args []string) {
	for name, spec := range targets.BuiltIn {
		if name == session.SSHBoard {
			root.AddCommand(newCmdSSH(f, nil))
			continue
		}
		root.AddCommand(newCmdTarget(f, name, spec.Kind, targets.About[name], nil))
	}
	cfg, err := f.Config(configArg(args))
	if err != nil {
		return
	}
	for name, spec := range cfg.Targets {
		if c, _, err := root.Find([]string{name}); err == nil && c != root {
			continue // a built-in target or a command of the same name
		}
		root.AddCommand(newCmdTarget(f, name, spec.Kind, [2]string{"config target " + name, "the config's target " + name}, nil))
	}
}

// configArg is the --config value on the command line, before cobra parses it ("" when there is none).
func configArg(args []string) string {
	for i, a := range args {
		if a == "--config" && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--config="); ok {
			return v
		}
	}
	return ""
}
