package main

import (
	"io"
	"os"
	"strconv"
	"sync"

	"golang.org/x/term"

	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/session"
	"github.com/bench-bridge/bench-bridge/targets"
)

// IOStreams are the command line's input and outputs, and whether they are terminals. A terminal changes the form of
// what is printed (a status line, colour), never its content.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdoutTTY, stderrTTY, color bool
	// width is the columns of the terminal Out is, 0 when it is none.
	width int
}

// IsStdoutTTY reports whether Out is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether ErrOut is a terminal: then progress is a status line instead of a line per case.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// TerminalWidth is the number of columns of the terminal Out prints to, 0 when Out is not a terminal: tables then
// keep every column however wide they are.
func (s *IOStreams) TerminalWidth() int { return s.width }

// ColorEnabled reports whether ErrOut is a terminal that wants colour (NO_COLOR unset).
func (s *IOStreams) ColorEnabled() bool { return s.color }

// systemStreams are the given streams, each a terminal when it is a character device and TERM is not dumb.
func systemStreams(in io.Reader, out, errOut io.Writer) *IOStreams {
	s := &IOStreams{In: in, Out: out, ErrOut: errOut, stdoutTTY: isTerminal(out), stderrTTY: isTerminal(errOut)}
	s.color = s.stderrTTY && os.Getenv("NO_COLOR") == ""
	if s.stdoutTTY {
		s.width = terminalWidth(out.(*os.File))
	}
	return s
}

// terminalWidth is the columns of the terminal f is: as the terminal says, else $COLUMNS, else 80.
func terminalWidth(f *os.File) int {
	if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
		return w
	}
	if w, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && w > 0 {
		return w
	}
	return 80
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// openFunc opens a target by name; whoever opens a target closes it.
type openFunc = session.OpenFunc

// buildFunc makes a job's program; nil builds it for real (runner.Job.Build).
type buildFunc = session.BuildFunc

// listADBFunc lists the devices of the adb server that the overrides name.
type listADBFunc = session.ListADBFunc

// configFunc is the config at a path ("" for the default one): Factory.Config, which every command's options hold.
type configFunc func(path string) (*config.Config, error)

// Factory is what every command's constructor takes: the dependencies its options get, so that tests can give a
// command other streams, other targets and programs of their own.
type Factory struct {
	IO         *IOStreams
	OpenTarget openFunc
	ListADB    listADBFunc
	Builder    buildFunc
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
// names join a copy (resolveTargets).
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
	return &Factory{IO: systemStreams(in, out, errOut), OpenTarget: targets.Open, ListADB: targets.ADBDevices}
}
