// Package cmdutil holds what every command shares: the Factory that gives
// the streams, settings and API client, exit codes, and argument parsing.
package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/internal/buildinfo"
	"github.com/traineed/traineed/cmd/traineectl/internal/config"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// Environment variables and defaults of the settings.
const (
	EnvBaseURL     = "TRAINEECTL_BASE_URL"
	EnvAPIKey      = "TRAINEECTL_API_KEY"
	EnvTimeout     = "TRAINEECTL_TIMEOUT"
	DefaultBaseURL = "http://127.0.0.1:8080"
	// DefaultTimeout bounds one attempt of a request (--timeout).
	DefaultTimeout = client.DefaultAttemptTimeout
)

// CompletionTimeout bounds a dynamic completion: the shell never waits longer.
const CompletionTimeout = 2 * time.Second

// GlobalOptions are the root command's flags.
type GlobalOptions struct {
	BaseURL, APIKey, Profile string
	BaseURLSet, APIKeySet    bool // given on the command line
	ProfileSet               bool
	Output                   string
	JQ, Template             string   // --jq, --template
	Fields                   []string // --fields
	Verbose                  bool
	UTC                      bool // --utc: times in UTC in tables and the TUI
	LogFile                  string
	Timeout                  time.Duration // --timeout: one attempt of a request
	TimeoutSet               bool
}

// Factory gives commands what they need; tests build one over buffers.
type Factory struct {
	IOStreams *iostreams.IOStreams
	Version   string // the release's tag, or "dev" (cmd/internal/buildinfo)
	Commit    string // the commit built, when known
	Date      string // the build's date, when known
	Getenv    func(string) string
	Now       func() time.Time
	// ClientOptions are added to every client's options (tests: no sleep).
	ClientOptions []client.Option
	// CompletionTimeout bounds a dynamic completion (0: the default, 2 s).
	CompletionTimeout time.Duration
	// Context is the parent of the command's context, which Ctrl-C also
	// ends (nil: context.Background(); tests end it to interrupt).
	Context context.Context

	Global GlobalOptions

	cfg      *config.File
	cfgPath  string
	settings *Settings // of the clients built

	trainerNames map[int64]string
	logFile      *os.File
	client       *client.Client
}

// New returns the factory of the real process, built as b says.
func New(ios *iostreams.IOStreams, b buildinfo.Info) *Factory {
	return &Factory{IOStreams: ios, Version: b.Version, Commit: b.Commit, Date: b.Date, Getenv: os.Getenv, Now: time.Now}
}

// VersionLine is what `traineectl --version` and `traineectl version`
// print: "traineectl version V (commit C, built D, go1.x)", the commit and
// the date only when known.
func (f *Factory) VersionLine() string {
	var more []string
	if f.Commit != "" {
		more = append(more, "commit "+f.Commit)
	}
	if f.Date != "" {
		more = append(more, "built "+f.Date)
	}
	more = append(more, runtime.Version())
	return "traineectl version " + f.Version + " (" + strings.Join(more, ", ") + ")"
}

// OutputFormat is the -o format, already checked by the root command.
func (f *Factory) OutputFormat() output.Format {
	of, err := output.ParseFormat(f.Global.Output)
	if err != nil {
		return output.Table
	}
	return of
}

// OutputOptions are how results print: -o, --jq, --template, --fields.
func (f *Factory) OutputOptions() output.Options {
	return output.Options{Format: f.OutputFormat(), JQ: f.Global.JQ, Template: f.Global.Template, Fields: f.Global.Fields}
}

// Print prints one result as the output options say.
func (f *Factory) Print(v output.View) error {
	return output.Print(f.IOStreams, f.OutputOptions(), v)
}

// JSONErrors reports whether errors are printed as JSON objects.
func (f *Factory) JSONErrors() bool { return f.OutputFormat() == output.JSON }

// Today is the client's local calendar day.
func (f *Factory) Today() api.Date { return api.DateOf(f.Now()) }

// ConfigPath is where the profile file lives.
func (f *Factory) ConfigPath() (string, error) {
	if f.cfgPath != "" {
		return f.cfgPath, nil
	}
	p, err := config.Path(f.Getenv)
	if err != nil {
		return "", err
	}
	f.cfgPath = p
	return p, nil
}

// Config reads the profile file once.
func (f *Factory) Config() (*config.File, error) {
	if f.cfg != nil {
		return f.cfg, nil
	}
	p, err := f.ConfigPath()
	if err != nil {
		return nil, err
	}
	c, err := config.Load(p)
	if err != nil {
		return nil, err
	}
	f.cfg = c
	return c, nil
}

// Settings are the resolved base URL, key and profile.
type Settings struct {
	BaseURL, APIKey string
	Profile         string // "" when none is used
	// BaseURLFrom and APIKeyFrom say where each setting came from:
	// "--base-url", "TRAINEECTL_BASE_URL", "profile NAME" or "default"
	// ("" for a key that none gives).
	BaseURLFrom, APIKeyFrom string
}

// fromEnv fills the settings that no flag (nor --profile) gave from the
// environment.
func (f *Factory) fromEnv(s *Settings) {
	if s.BaseURL == "" && !f.Global.BaseURLSet {
		s.BaseURL, s.BaseURLFrom = f.Getenv(EnvBaseURL), EnvBaseURL
	}
	if s.APIKey == "" && !f.Global.APIKeySet {
		s.APIKey, s.APIKeyFrom = f.Getenv(EnvAPIKey), EnvAPIKey
	}
}

// Settings resolves each setting: flag, else environment, else profile,
// else default. A profile named by --profile is a flag: its settings come
// before the environment's (`--profile sam` is Sam's key even where
// TRAINEECTL_API_KEY holds another), the --base-url and --api-key flags
// before both.
func (f *Factory) Settings() (Settings, error) {
	s := Settings{BaseURL: f.Global.BaseURL, APIKey: f.Global.APIKey, BaseURLFrom: "--base-url", APIKeyFrom: "--api-key"}
	if !f.Global.BaseURLSet {
		s.BaseURL, s.BaseURLFrom = "", ""
	}
	if !f.Global.APIKeySet {
		s.APIKey, s.APIKeyFrom = "", ""
	}
	if !f.Global.ProfileSet {
		f.fromEnv(&s)
	}
	if f.Global.ProfileSet || s.BaseURL == "" || s.APIKey == "" {
		cfg, err := f.Config()
		if err != nil {
			return s, err
		}
		name := cfg.Current
		if f.Global.ProfileSet {
			name = f.Global.Profile
		}
		if name != "" {
			p, ok := cfg.Profiles[name]
			switch {
			case ok:
				s.Profile = name
				if s.BaseURL == "" {
					s.BaseURL, s.BaseURLFrom = p.BaseURL, "profile "+name
				}
				if s.APIKey == "" {
					s.APIKey, s.APIKeyFrom = p.APIKey, "profile "+name
				}
			case f.Global.ProfileSet:
				return s, Usagef("no profile %q: see `traineectl config list`", name)
			}
		}
	}
	if f.Global.ProfileSet {
		f.fromEnv(&s) // what the profile does not set
	}
	if s.APIKey == "" {
		s.APIKeyFrom = ""
	}
	if s.BaseURL == "" {
		s.BaseURL, s.BaseURLFrom = DefaultBaseURL, "default"
	} else if err := CheckBaseURL(s.BaseURL); err != nil {
		return s, Usagef("%s: %v", s.BaseURLFrom, err)
	}
	return s, nil
}

// CheckBaseURL refuses an address that is not an absolute http or https URL
// with a host, such as 127.0.0.1:8080 (no scheme) or http://[bad.
func CheckBaseURL(raw string) error {
	const like = "like http://127.0.0.1:8080 or https://trainees.example.com"
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if !strings.Contains(raw, "://") {
			return fmt.Errorf("invalid base URL %q: it needs a scheme, %s", raw, like)
		}
		return fmt.Errorf("invalid base URL %q: %v", raw, err)
	}
	switch {
	case u.Scheme == "" || !strings.Contains(raw, "://") && u.Opaque != "":
		return fmt.Errorf("invalid base URL %q: it needs a scheme, %s", raw, like)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("invalid base URL %q: the scheme must be http or https, %s", raw, like)
	case u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("invalid base URL %q: no host, %s", raw, like)
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("invalid base URL %q: no query or fragment, %s", raw, like)
	}
	return nil
}

// AttemptTimeout is --timeout, else TRAINEECTL_TIMEOUT, else the default
// (30 s): how long one attempt of a request may take.
func (f *Factory) AttemptTimeout() (time.Duration, error) {
	if f.Global.TimeoutSet {
		if f.Global.Timeout <= 0 {
			return 0, Usagef("--timeout must be a positive duration, like 30s or 2m")
		}
		return f.Global.Timeout, nil
	}
	if v := f.Getenv(EnvTimeout); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return 0, Usagef("%s=%q: want a positive duration, like 30s or 2m", EnvTimeout, v)
		}
		return d, nil
	}
	return DefaultTimeout, nil
}

// UserAgent is the User-Agent header the client sends.
func (f *Factory) UserAgent() string { return "traineectl/" + f.Version }

// CompletionDeadline is how long a dynamic completion may take.
func (f *Factory) CompletionDeadline() time.Duration {
	if f.CompletionTimeout > 0 {
		return f.CompletionTimeout
	}
	return CompletionTimeout
}

// Close releases the log file.
func (f *Factory) Close() error {
	if f.logFile != nil {
		err := f.logFile.Close()
		f.logFile = nil
		return err
	}
	return nil
}

// Confirm asks a yes/no question on the terminal; the answer is no unless
// it starts with y.
func (f *Factory) Confirm(ctx context.Context, question string) (bool, error) {
	ios := f.IOStreams
	fmt.Fprintf(ios.ErrOut, "%s [y/N] ", question)
	line, err := readLine(ios.In)
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	return len(line) > 0 && (line[0] == 'y' || line[0] == 'Y'), nil
}

// Ask asks for a line of text on the terminal (a name or an address that
// confirms a change) and returns it trimmed; "" when the answer is empty
// or stdin ended.
func (f *Factory) Ask(ctx context.Context, question string) (string, error) {
	ios := f.IOStreams
	fmt.Fprint(ios.ErrOut, question)
	line, err := readLine(ios.In)
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return strings.TrimSpace(line), nil
}

// readLine reads up to a newline, one byte at a time so that nothing after
// it is consumed.
func readLine(r io.Reader) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for {
		n, err := r.Read(one)
		if n == 1 {
			if one[0] == '\n' {
				return string(trimCR(b)), nil
			}
			b = append(b, one[0])
		}
		if err != nil {
			return string(trimCR(b)), err
		}
	}
}

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}

// ReadLine reads one line of stdin (for --password-stdin).
func ReadLine(r io.Reader) (string, error) { return readLine(r) }

// Zone is where tables, notes and the TUI show instants: UTC with --utc,
// else the local zone.
func (f *Factory) Zone() *time.Location {
	if f.Global.UTC {
		return time.UTC
	}
	return time.Local
}
