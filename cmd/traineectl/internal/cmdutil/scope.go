package cmdutil

import (
	"context"
	"errors"
	"fmt"

	"github.com/traineed/traineed/api"
)

// ReadOnlyError is a change refused before anything was sent: the key in
// use is read-only. It exits with ExitForbidden, like the server's 403.
type ReadOnlyError struct {
	Key     *api.CurrentKey
	Command string
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("this API key is read-only (%q, %s…, scope read): %s needs a full key; nothing was sent",
		e.Key.Name, e.Key.Prefix, e.Command)
}

// RequireFullKey asks the server for the key's scope before a change
// (GET /public-api/keys/current) and refuses a read-only key with a
// ReadOnlyError, so that nothing is sent. When the scope cannot be read (an
// older server without the route, a refused key, the network) it lets the
// change go: the server decides, and its answer is reported as usual.
func (f *Factory) RequireFullKey(ctx context.Context, command string) error {
	// Quietly: not in the support log or the trace, and not retried.
	c, err := f.CompletionClient()
	if err != nil {
		return err
	}
	k, err := c.CurrentKey(ctx)
	if err != nil || k == nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	}
	if k.Scope == api.KeyScopeRead {
		return &ReadOnlyError{Key: k, Command: command}
	}
	return nil
}
