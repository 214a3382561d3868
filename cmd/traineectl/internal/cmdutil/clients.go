package cmdutil

import (
	"github.com/traineed/traineed/api"
)

// ClientBuilder returns a function that builds clients like Client's: the
// same settings, User-Agent, support log, trace and the factory's
// ClientOptions, with base before the factory's options and extra after
// everything. The bulk import builds one client per row, so that every
// attempt of a row's create carries the row's request id.
func (f *Factory) ClientBuilder(base ...api.ClientOption) (func(extra ...api.ClientOption) *api.Client, error) {
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
	opts := []api.ClientOption{api.WithUserAgent(f.UserAgent()), api.WithAttemptTimeout(timeout)}
	opts = append(opts, base...)
	if f.logFile != nil {
		opts = append(opts, api.WithSupportLog(f.logFile))
	}
	if f.Global.Verbose {
		opts = append(opts, api.WithVerbose(f.IOStreams.ErrOut))
	}
	opts = append(opts, f.ClientOptions...)
	return func(extra ...api.ClientOption) *api.Client {
		all := append(append([]api.ClientOption(nil), opts...), extra...)
		return api.NewClient(s.BaseURL, s.APIKey, all...)
	}, nil
}
