package cmdutil

import (
	"context"
	"errors"
	"fmt"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// ReadOnlyError is a change refused because the key in use is read-only:
// by the server (its 403 with errorCode 1014, which it answers before the
// route runs, so nothing changed) or, for a bulk import, before anything
// was sent. Every write command reports it the same way, and it exits
// with ExitForbidden.
type ReadOnlyError struct {
	Key     *api.CurrentKey // when known (the bulk import's check)
	Command string
}

func (e *ReadOnlyError) Error() string {
	who := "scope read"
	if e.Key != nil {
		who = fmt.Sprintf("%q, %s…, scope read", e.Key.Name, e.Key.Prefix)
	}
	return fmt.Sprintf("this API key is read-only (%s): %s needs a full key; nothing was changed", who, e.Command)
}

// AsReadOnly turns the server's refusal of a read-only key's change into a
// ReadOnlyError of command; other errors are returned as they are.
func AsReadOnly(err error, command string) error {
	if client.IsReadOnly(err) {
		return &ReadOnlyError{Command: command}
	}
	return err
}

// RequireFullKey asks the server for the key's scope before a change
// (GET /public-api/keys/current) and refuses a read-only key with a
// ReadOnlyError, so that nothing is sent. Only the bulk import asks (once
// per run, before it reads its input); every other command sends its
// change and reports the server's 403 (AsReadOnly). When the scope cannot be read (an
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
