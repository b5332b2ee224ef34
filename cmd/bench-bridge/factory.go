package main

import (
	"io"
	"sync"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/internal/iostreams"
	"github.com/bench-bridge/bench-bridge/session"
	"github.com/bench-bridge/bench-bridge/targets"
)

// IOStreams are the command line's input and outputs (package iostreams).
type IOStreams = iostreams.IOStreams

// configFunc is the config at a path ("" for the default one): Factory.Config, which every command's options hold.
type configFunc func(path string) (*config.Config, error)

// Factory is what every command's constructor takes: the dependencies its options get, so that tests can give a
// command other streams, other targets and programs of their own.
type Factory struct {
	IO         *IOStreams
	OpenTarget session.OpenFunc
	ListADB    session.ListADBFunc
	Builder    session.BuildFunc
	// ReadConfig reads a config file; nil reads it with config.Load. Config calls it once per path.
	ReadConfig configFunc

	mu      sync.Mutex
	configs map[string]loadedConfig
}

// loadedConfig is a config file as read, or why it could not be.
type loadedConfig struct {
	cfg *config.Config
	err error
}

// Config is the config at path, read once per command line: the commands of the config's targets, the command that
// runs and its completions share it, as cli/cli's factory does. Nothing changes it: the ssh boards a command line
// names join a copy (session.ResolveTargets).
func (f *Factory) Config(path string) (*config.Config, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if l, ok := f.configs[path]; ok {
		return l.cfg, l.err
	}
	read := f.ReadConfig
	if read == nil {
		read = config.Load
	}
	cfg, err := read(path)
	if f.configs == nil {
		f.configs = map[string]loadedConfig{}
	}
	f.configs[path] = loadedConfig{cfg, err}
	return cfg, err
}

// newFactory is the real one: these streams and the targets of package targets.
func newFactory(in io.Reader, out, errOut io.Writer) *Factory {
	return &Factory{IO: iostreams.System(in, out, errOut), OpenTarget: targets.Open, ListADB: targets.ADBDevices}
}

// runCmd is a command's RunE: read (nil for none) takes the command line into the options o, then run runs, or a
// test's runF in its place.
func runCmd[O any](o *O, runF, run func(*O) error, read func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if read != nil {
			if err := read(cmd, args); err != nil {
				return err
			}
		}
		if runF != nil {
			return runF(o)
		}
		return run(o)
	}
}
