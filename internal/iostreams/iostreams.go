// Package iostreams is the command line's input and outputs: whether each is a terminal, its width, colour, and the
// progress of runs shown on standard error. A terminal changes the form of what is printed (a status line, colour),
// never its content.
package iostreams

import (
	"io"
	"os"
	"strconv"

	"golang.org/x/term"
)

// IOStreams are the command line's input and outputs, and whether they are terminals.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdoutTTY, stderrTTY, color bool
	// width is the columns of the terminal Out is, 0 when it is none.
	width int
}

// System are the given streams, each a terminal when it is a character device and TERM is not dumb.
func System(in io.Reader, out, errOut io.Writer) *IOStreams {
	s := &IOStreams{In: in, Out: out, ErrOut: errOut, stdoutTTY: isTerminal(out), stderrTTY: isTerminal(errOut)}
	s.color = s.stderrTTY && os.Getenv("NO_COLOR") == ""
	if s.stdoutTTY {
		s.width = terminalWidth(out.(*os.File))
	}
	return s
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

// SetStdoutTTY makes Out a terminal of width columns or not, as tests need it (width 0: a terminal whose tables keep
// every column).
func (s *IOStreams) SetStdoutTTY(tty bool, width int) { s.stdoutTTY, s.width = tty, width }

// SetStderrTTY makes ErrOut a terminal or not, as tests need it.
func (s *IOStreams) SetStderrTTY(tty bool) { s.stderrTTY = tty }

// Progress shows the progress of runs on ErrOut, as quiet and verbose ask.
func (s *IOStreams) Progress(quiet, verbose bool) *Progress {
	return newProgress(s.ErrOut, s.stderrTTY, s.color, quiet, verbose)
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
