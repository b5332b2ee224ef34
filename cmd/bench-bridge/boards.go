package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/config"
)

// sshBoard is the word that names a board by its host on the command line: `ssh [USER@]HOST` stands wherever a
// target's name does.
const sshBoard = "ssh"

// newCmdSSH is `bench-bridge ssh [USER@]HOST [TARGET...]`: the bridge on any Linux board over ssh, built with the
// toolchain its userland calls for.
func newCmdSSH(f *Factory, runF func(*measureOptions) error) *cobra.Command {
	cmd := newCmdTarget(f, sshBoard, "ssh", targetAbout[sshBoard], runF)
	cmd.Use = sshBoard + " [USER@]HOST [TARGET...]"
	cmd.Args = cobra.MinimumNArgs(1)
	cmd.Example = `  bench-bridge ssh root@192.168.1.20
  bench-bridge floor ssh pi --accept-host-key SHA256:...
  bench-bridge profile ssh root@board script_to_host_scalar --tool itimer
  bench-bridge doctor ssh root@board`
	cmd.Flags().MarkHidden("host") // the board is the first argument
	return cmd
}

// targetWords is how many of args, a command line's words from a target on, name that target: two for
// `ssh [USER@]HOST`, else one.
func targetWords(args []string) int {
	if len(args) > 1 && args[0] == sshBoard {
		return 2
	}
	return 1
}

// resolveTargets turns a command line's target words into the names of targets to open, and the config they are
// opened with: cfg, with the boards the words name. A word names a target; `ssh [USER@]HOST` is the board at HOST
// (`ssh A,B` a board at each), which joins a copy of cfg's targets for this run as an ssh target named by its host
// without the user (cfg itself, which the factory loaded once for the command line, is left as it was). It names no
// toolchain, so opening it asks the board what it runs. hostFlag is --host, which would override every ssh target's
// host and so cannot go with a board named this way.
func resolveTargets(words []string, cfg *config.Config, hostFlag string) ([]string, *config.Config, error) {
	var names []string
	boards := map[string]config.Target{}
	for i := 0; i < len(words); i++ {
		if words[i] != sshBoard {
			names = append(names, words[i])
			continue
		}
		if i+1 == len(words) {
			return nil, nil, errors.New("ssh needs the board: ssh [USER@]HOST")
		}
		i++
		if hostFlag != "" {
			return nil, nil, fmt.Errorf("ssh %s and --host %s: name the board once, after ssh", words[i], hostFlag)
		}
		for _, host := range strings.Split(words[i], ",") { // ssh A,B: a board each
			name := host[strings.LastIndex(host, "@")+1:]
			if name == "" {
				return nil, nil, fmt.Errorf("ssh %q: no host after the user", host)
			}
			boards[name] = config.Target{Kind: "ssh", Host: host}
			names = append(names, name)
		}
	}
	if len(boards) == 0 {
		return names, cfg, nil
	}
	return names, cfg.WithTargets(boards), nil
}
