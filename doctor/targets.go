package doctor

import (
	"sort"

	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/targets"
)

// DefaultTargets are what doctor checks when the command line names none: this machine (its built-in name) and
// every target of the config.
func DefaultTargets(cfg *config.Config) []string {
	names := []string{targets.LocalName()}
	for n := range cfg.Targets {
		if n != targets.LocalName() {
			names = append(names, n)
		}
	}
	sort.Strings(names[1:])
	return names
}
