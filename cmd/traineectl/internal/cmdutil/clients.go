package cmdutil

import (
	"context"
	"fmt"
	"os"

	"github.com/traineed/traineed/api/client"
)

// clientOptions resolves the settings and builds the options every client
// of the process shares, in this order: the User-Agent, the attempt timeout,
// base, the support log and the verbose trace (when trace is set: the
// support log is opened once), and last the factory's ClientOptions.
func (f *Factory) clientOptions(trace bool, base ...client.Option) (Settings, []client.Option, error) {
	s, err := f.Settings()
	if err != nil {
		return s, nil, err
	}
	if s.APIKey == "" {
		return s, nil, &NoKeyError{Profile: s.Profile}
	}
	f.settings = &s
	timeout, err := f.AttemptTimeout()
	if err != nil {
		return s, nil, err
	}
	opts := []client.Option{client.WithUserAgent(f.UserAgent()), client.WithAttemptTimeout(timeout)}
	opts = append(opts, base...)
	if trace {
		if err := f.openLog(); err != nil {
			return s, nil, err
		}
		if f.logFile != nil {
			opts = append(opts, client.WithSupportLog(f.logFile))
		}
		if f.Global.Verbose {
			opts = append(opts, client.WithVerbose(f.IOStreams.ErrOut))
		}
	}
	return s, append(opts, f.ClientOptions...), nil
}

// NoKeyError is a command that would need the API when no key is
// configured: nothing is sent, and the exit status is that of a refused
// key (3).
type NoKeyError struct{ Profile string }

func (e *NoKeyError) Error() string {
	if e.Profile != "" {
		return fmt.Sprintf("no API key configured: profile %s has none, and neither --api-key nor %s gives one", e.Profile, EnvAPIKey)
	}
	return fmt.Sprintf("no API key configured: no --api-key, no %s and no profile", EnvAPIKey)
}

// TrainerNames returns the names of the company's trainers by id, read
// once; nil when they cannot be read (a server without the endpoint), so
// that tables fall back to ids.
func (f *Factory) TrainerNames(ctx context.Context) map[int64]string {
	if f.trainerNames != nil {
		return f.trainerNames
	}
	c, err := f.Client()
	if err != nil {
		return nil
	}
	ts, err := c.Trainers(ctx, client.TrainerParams{})
	if err != nil {
		return nil
	}
	f.trainerNames = make(map[int64]string, len(ts))
	for _, t := range ts {
		f.trainerNames[t.ID] = t.Name
	}
	return f.trainerNames
}

// UsedSettings are the settings of the last client built (nil before).
func (f *Factory) UsedSettings() *Settings { return f.settings }

// openLog opens the support log of --log-file, once.
func (f *Factory) openLog() error {
	if f.Global.LogFile == "" || f.logFile != nil {
		return nil
	}
	lf, err := os.OpenFile(f.Global.LogFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open the log file: %w", err)
	}
	f.logFile = lf
	return nil
}

// Client returns the API client of the settings, with the support log and
// the verbose trace the flags ask for.
func (f *Factory) Client() (*client.Client, error) {
	if f.client != nil {
		return f.client, nil
	}
	s, opts, err := f.clientOptions(true)
	if err != nil {
		return nil, err
	}
	f.client = client.New(s.BaseURL, s.APIKey, opts...)
	return f.client, nil
}

// CompletionClient returns a client for shell completion: one attempt, no
// log and no trace, so that the shell never waits for retries.
func (f *Factory) CompletionClient() (*client.Client, error) {
	s, opts, err := f.clientOptions(false)
	if err != nil {
		return nil, err
	}
	opts = append(opts, client.WithRetryDelays())
	return client.New(s.BaseURL, s.APIKey, opts...), nil
}

// ClientBuilder returns a function that builds clients like Client's: the
// same settings, User-Agent, support log, trace and the factory's
// ClientOptions, with base before the support log and extra after
// everything. The bulk import builds one client per row, so that every
// attempt of a row's create carries the row's request id.
func (f *Factory) ClientBuilder(base ...client.Option) (func(extra ...client.Option) *client.Client, error) {
	s, opts, err := f.clientOptions(true, base...)
	if err != nil {
		return nil, err
	}
	return func(extra ...client.Option) *client.Client {
		all := append(append([]client.Option(nil), opts...), extra...)
		return client.New(s.BaseURL, s.APIKey, all...)
	}, nil
}
