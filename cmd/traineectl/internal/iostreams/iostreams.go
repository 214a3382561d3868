// Package iostreams holds the streams a command reads and writes, and what
// is known about them (terminal or not, colour), so commands run the same
// in a terminal, in a pipe and in tests.
package iostreams

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"
)

// IOStreams are a command's standard streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	StdinTTY bool
	// StdinPiped: stdin is a pipe or a file (data was given to it), not a
	// terminal nor nothing; reading it does not wait for a person.
	StdinPiped bool
	StdoutTTY  bool
	StderrTTY  bool

	// Width is the terminal width; 0 when stdout is not a terminal.
	Width int

	// NoColor is true when the NO_COLOR environment variable is set (to
	// anything) or TERM is dumb.
	NoColor bool

	// ReadPassword reads a line without echo from a terminal; nil when
	// stdin is not a terminal.
	ReadPassword func() (string, error)
}

// System returns the process's streams.
func System() *IOStreams {
	s := &IOStreams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
	if fi, err := os.Stdin.Stat(); err == nil && !s.StdinTTY {
		s.StdinPiped = fi.Mode()&os.ModeNamedPipe != 0 || fi.Mode().IsRegular() && fi.Size() > 0
	}
	_, noColor := os.LookupEnv("NO_COLOR")
	s.NoColor = noColor || os.Getenv("TERM") == "dumb"
	if s.StdoutTTY {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
			s.Width = w
		}
	}
	if s.StdinTTY {
		s.ReadPassword = func() (string, error) {
			b, err := term.ReadPassword(int(os.Stdin.Fd()))
			return string(b), err
		}
	}
	return s
}

// Test returns streams over buffers: stdin from in, nothing a terminal.
func Test(in string) (*IOStreams, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: strings.NewReader(in), StdinPiped: in != "", Out: out, ErrOut: errOut}, out, errOut
}

// ColorEnabled reports whether stdout may carry colour: only on a terminal
// and never with NO_COLOR.
func (s *IOStreams) ColorEnabled() bool { return s.StdoutTTY && !s.NoColor }

// ErrColorEnabled reports whether stderr may carry colour.
func (s *IOStreams) ErrColorEnabled() bool { return s.StderrTTY && !s.NoColor }

// TableWidth is the width tables are fitted to on a terminal: COLUMNS
// when set (see SetColumns), else the terminal's, else 80. It is 0 when
// stdout is not a terminal: tables are then printed whole, tab-separated.
func (s *IOStreams) TableWidth() int {
	switch {
	case !s.StdoutTTY:
		return 0
	case s.Width > 0:
		return s.Width
	}
	return 80
}

// SetColumns applies the COLUMNS environment variable: on a terminal a
// positive number replaces the width; anything else is ignored.
func (s *IOStreams) SetColumns(columns string) {
	if n, err := strconv.Atoi(strings.TrimSpace(columns)); err == nil && n > 0 && s.StdoutTTY {
		s.Width = n
	}
}

// CanPrompt reports whether the user can be asked a question.
func (s *IOStreams) CanPrompt() bool { return s.StdinTTY }

// Colour codes.
const (
	Reset  = "\x1b[0m"
	Bold   = "\x1b[1m"
	Red    = "\x1b[31m"
	Green  = "\x1b[32m"
	Yellow = "\x1b[33m"
	Dim    = "\x1b[2m"
)

// Paint wraps s in code when colour is on.
func Paint(on bool, code, s string) string {
	if !on || s == "" {
		return s
	}
	return code + s + Reset
}
