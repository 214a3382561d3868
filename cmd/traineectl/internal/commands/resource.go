package commands

import (
	"context"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// The one implementation of enable, disable, delete and restore of a
// resource by id (trainees, automations, webhooks): a resource says its
// call, how a terminal is told of each one done, and how the results
// print; byIDs does the rest alike for all.

// resource is what byIDs needs of one kind of resource.
type resource[T any] struct {
	// note tells a terminal what was done to v ("Deleted automation 7
	// (name)"); nil: nothing.
	note func(f *cmdutil.Factory, done string, v T)
	// print prints the results; single: one id was given.
	print func(ctx context.Context, f *cmdutil.Factory, vs []T, single bool) error
}

// The resources of byIDs.
var (
	traineeResource = resource[*api.Trainee]{
		note:  noteTrainee,
		print: printTrainees,
	}
	automationResource = resource[*api.Automation]{
		note: noteAutomation,
		print: func(_ context.Context, f *cmdutil.Factory, as []*api.Automation, single bool) error {
			return printAutomations(f, as, single)
		},
	}
	webhookResource = resource[*api.Webhook]{
		note: noteWebhook,
		print: func(_ context.Context, f *cmdutil.Factory, ws []*api.Webhook, single bool) error {
			return f.Print(webhooksView(ws, single))
		},
	}
)

// byIDs calls call with the client for every id (see each), notes each
// one done on a terminal as "<done> <resource> N (...)" (nothing when done
// is empty), and prints those that succeeded.
func byIDs[T any](ctx context.Context, f *cmdutil.Factory, r resource[T], ids []int64, done string,
	call func(c *client.Client, ctx context.Context, id int64, opts ...client.RequestOption) (T, error)) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	vs, err := each(f, ids, func(id int64) (T, error) {
		v, err := call(c, ctx, id)
		if err == nil && done != "" && r.note != nil {
			r.note(f, done, v)
		}
		return v, err
	})
	if len(vs) > 0 || err == nil {
		if perr := r.print(ctx, f, vs, len(ids) == 1); perr != nil {
			return perr
		}
	}
	return err
}

// enabledWord is what byIDs notes for enable (true) or disable.
func enabledWord(enable bool) string {
	if enable {
		return "Enabled"
	}
	return "Disabled"
}

// confirmDelete asks question on a terminal unless yes; elsewhere it
// refuses without yes. Either refusal is a usage error (exit 2) that says
// nothing was deleted.
func confirmDelete(ctx context.Context, f *cmdutil.Factory, yes bool, question string) error {
	if yes {
		return nil
	}
	if !f.IOStreams.CanPrompt() {
		return cmdutil.Usagef("refusing to delete without --yes when stdin is not a terminal; nothing was deleted")
	}
	ok, err := f.Confirm(ctx, question)
	if err != nil {
		return err
	}
	if !ok {
		return cmdutil.Usagef("not confirmed; nothing was deleted")
	}
	return nil
}

// noteWebhook tells a terminal what was done: "Deleted webhook 3 (URL)".
func noteWebhook(f *cmdutil.Factory, done string, w *api.Webhook) {
	noteDone(f, done, "webhook", w.ID, w.URL)
}
