package cmdutil

import (
	"github.com/traineed/traineed/api/client"
)

// ClientBuilder returns a function that builds clients like Client's: the
// same settings, User-Agent, support log, trace and the factory's
// ClientOptions, with base before the factory's options and extra after
// everything. The bulk import builds one client per row, so that every
// attempt of a row's create carries the row's request id.
func (f *Factory) ClientBuilder(base ...client.Option) (func(extra ...client.Option) *client.Client, error) {
	if _, err := f.Client(); err != nil { // opens the support log once
		return nil, err
	}
	s, err := f.Settings()
	if err != nil {
		return nil, err
	}
	timeout, err := f.AttemptTimeout()
	if err != nil {
		return nil, err
	}
	opts := []client.Option{client.WithUserAgent(f.UserAgent()), client.WithAttemptTimeout(timeout)}
	opts = append(opts, base...)
	if f.logFile != nil {
		opts = append(opts, client.WithSupportLog(f.logFile))
	}
	if f.Global.Verbose {
		opts = append(opts, client.WithVerbose(f.IOStreams.ErrOut))
	}
	opts = append(opts, f.ClientOptions...)
	return func(extra ...client.Option) *client.Client {
		all := append(append([]client.Option(nil), opts...), extra...)
		return client.New(s.BaseURL, s.APIKey, all...)
	}, nil
}
