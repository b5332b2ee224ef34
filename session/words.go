package session

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bench-bridge/bench-bridge/config"
)

// SSHBoard is the word that names a board by its host on the command line: `ssh [USER@]HOST` stands wherever a
// target's name does.
const SSHBoard = "ssh"

// TargetWords is how many of args, a command line's words from a target on, name that target: two for
// `ssh [USER@]HOST`, else one.
func TargetWords(args []string) int {
	if len(args) > 1 && args[0] == SSHBoard {
		return 2
	}
	return 1
}

// ResolveTargets turns a command line's target words into the names of targets to open, and the config they are
// opened with: cfg, with the boards the words name. A word names a target; `ssh [USER@]HOST` is the board at HOST
// (`ssh A,B` a board at each), which joins a copy of cfg's targets for this run as an ssh target named by its host
// without the user (cfg itself, loaded once for the command line, is left as it was). It names no toolchain, so
// opening it asks the board what it runs. hostFlag is --host, which would override every ssh target's host and so
// cannot go with a board named this way.
func ResolveTargets(words []string, cfg *config.Config, hostFlag string) ([]string, *config.Config, error) {
	var names []string
	boards := map[string]config.Target{}
	for i := 0; i < len(words); i++ {
		if words[i] != SSHBoard {
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

// Failed is the error of a command whose targets failed: one target's error as it is, or for several the count and
// the names of those that failed (the others' artifacts are complete), then each one's error.
func Failed(names []string, errs []error) error {
	var failed []string
	var all []error
	for i, err := range errs {
		if err != nil {
			failed, all = append(failed, names[i]), append(all, err)
		}
	}
	switch {
	case len(failed) == 0:
		return nil
	case len(names) == 1:
		return all[0]
	}
	return fmt.Errorf("%d of %d targets failed: %s\n%w", len(failed), len(names), strings.Join(failed, ", "), errors.Join(all...))
}
