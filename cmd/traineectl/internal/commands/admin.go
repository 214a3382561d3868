package commands

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// What the commands of company administration (keys, trainers, company)
// share.

// checkBody runs the server's own reading of a request body (api's
// Parse...) over the body the flags build, so that what the server would
// refuse is a usage error before anything is sent; each problem is told
// by its flag (flags maps the body's members to them).
func checkBody(body any, parse func([]byte) error, flags map[string]string) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	err = parse(b)
	var ve *api.ValidationError
	if !errors.As(err, &ve) {
		if err != nil {
			return &cmdutil.UsageError{Err: err}
		}
		return nil
	}
	msgs := make([]string, 0, len(ve.Errors))
	for _, fe := range ve.Errors {
		name, ok := flags[fe.Field]
		if !ok {
			name = fe.Field
		}
		msgs = append(msgs, fmt.Sprintf("--%s: %s", name, fe.Message))
	}
	return cmdutil.Usagef("%s", strings.Join(msgs, "; "))
}

// noteDone tells a terminal what was done: "Created trainer 9 (Sam
// Coach)".
func noteDone(f *cmdutil.Factory, done, what string, id int64, name string) {
	if f.IOStreams.StdoutTTY {
		fmt.Fprintf(f.IOStreams.ErrOut, "%s %s %d (%s)\n", done, what, id, api.EscapeText(name))
	}
}

// nothingChanged is the usage error of an update without a change.
func nothingChanged(flags string) error {
	return cmdutil.Usagef("nothing to change: give %s", flags)
}
