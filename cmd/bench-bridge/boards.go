package main

import (
	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/session"
	"github.com/bench-bridge/bench-bridge/targets"
)

// newCmdSSH is `bench-bridge ssh [USER@]HOST [TARGET...]`: the bridge on any Linux board over ssh, built with the
// toolchain its userland calls for.
func newCmdSSH(f *Factory, runF func(*measureOptions) error) *cobra.Command {
	cmd := newCmdTarget(f, session.SSHBoard, "ssh", targets.About[session.SSHBoard], runF)
	cmd.Use = session.SSHBoard + " [USER@]HOST [TARGET...]"
	cmd.Args = cobra.MinimumNArgs(1)
	cmd.Example = `  bench-bridge ssh root@192.168.1.20
  bench-bridge floor ssh pi --accept-host-key SHA256:...
  bench-bridge profile ssh root@board script_to_host_scalar --tool itimer
  bench-bridge doctor ssh root@board`
	cmd.Flags().MarkHidden("host") // the board is the first argument
	return cmd
}
