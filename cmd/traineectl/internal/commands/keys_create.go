package commands

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// KeysCreateOptions are the inputs of `traineectl keys create`.
type KeysCreateOptions struct {
	Key         api.NewKey
	Trainer     string // an id or a whole name ("": a company key)
	Expires     string // "": never
	SaveProfile string // "": print the secret
}

// keyFlags names the flags of a key's members, for errors.
var keyFlags = map[string]string{"name": "name", "scope": "scope", "trainerId": "trainer",
	"ownTraineesOnly": "own-trainees-only", "expiresAt": "expires", "enabled": "enable"}

const keysCreateLong = `Create an API key and print its secret (pk_...) alone on stdout: the only
time it is shown (a line on stderr says so). --save-profile NAME stores it
instead into profile NAME of the configuration file, with the address in
use, and prints no secret at all (a profile that holds a key already is
refused: nothing is created). -o json and yaml print the key with its
"secret"; -o csv adds a secret column.

--scope is required: admin, full or read; a key never gets a scope above
the one of the key that creates it. --trainer (the id or whole name of one
of the company's trainers: another exits 2) makes the key act as that
trainer: its changes carry the trainer's name in the feed, and "search
--mine" lists their trainees. --own-trainees-only (with --trainer, scope
full or read) keeps it from every other trainee. --expires is a span from now, a whole number and h (hours),
d (days), w (weeks), m (calendar months) or y (years): 36h, 90d, 6w, 3m,
1y (no fractions: 1.5h is refused; 3m is three months, never minutes); a
date (31-12-2026 or 2026-12-31: the key works through that day and is
refused from the next midnight, your local time, or UTC with --utc; stderr
says "expires 2027-01-01 00:00 (works through 31-12-2026)"); or an RFC
3339 time. Without it the key never expires.

Needs an admin key: another key exits 7 (errorCode 1029).`

func newKeysCreateCmd(f *cmdutil.Factory, runF func(*KeysCreateOptions) error) *cobra.Command {
	var o KeysCreateOptions
	cmd := &cobra.Command{
		Use:   "create --name NAME --scope admin|full|read [--trainer ID|NAME [--own-trainees-only]] [--expires 90d|DATE|TIME] [--save-profile NAME]",
		Short: "Create an API key and print its secret, once (admin key)",
		Long:  keysCreateLong,
		Example: `  traineectl keys create --name "CRM sync" --scope full --expires 90d > crm.key
  traineectl keys create --name "BI export" --scope read -o json
  traineectl keys create --name "Sam's phone" --scope full --trainer "Sam Coach" --save-profile sam
  traineectl keys create --name "Front desk" --scope read --trainer 7 --own-trainees-only --expires 31-12-2027`,
		Args: cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("save-profile") && strings.TrimSpace(o.SaveProfile) == "" {
				return cmdutil.Usagef("--save-profile wants a profile name")
			}
			return runWith(cmd.Context(), f, &o, runF, runKeysCreate)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Key.Name, "name", "", "the key's name, shown in lists and in the feed (required)")
	fl.StringVar(&o.Key.Scope, "scope", "", "admin, full or read (required)")
	fl.StringVar(&o.Trainer, "trainer", "", "the trainer the key acts as: an id or a whole name")
	fl.BoolVar(&o.Key.OwnTraineesOnly, "own-trainees-only", false, "with --trainer: the key reaches that trainer's trainees only")
	fl.StringVar(&o.Expires, "expires", "", "when the key stops working: a span (36h, 90d, 6w, 3m = months, 1y), a date (works through that day) or an RFC 3339 time (default: never)")
	fl.StringVar(&o.SaveProfile, "save-profile", "", "store the secret into this profile (with the address in use) instead of printing it")
	_ = cmd.MarkFlagRequired("name")
	_ = cmd.MarkFlagRequired("scope")
	_ = cmd.RegisterFlagCompletionFunc("scope", fixedValues(scopeValues...))
	_ = cmd.RegisterFlagCompletionFunc("trainer", completeTrainerIDs(f))
	_ = cmd.RegisterFlagCompletionFunc("expires", fixedValues("30d\t30 days from now", "90d\t90 days from now", "3m\tthree months from now", "1y\ta year from now"))
	_ = cmd.RegisterFlagCompletionFunc("save-profile", completeProfiles(f, false))
	_ = cmd.RegisterFlagCompletionFunc("name", cobra.NoFileCompletions)
	return cmd
}

// check reads the flags and checks the key as the server would, before
// anything is sent; a trainer's name is looked up after.
func (o *KeysCreateOptions) check(ctx context.Context, f *cmdutil.Factory) error {
	if err := checkScope(o.Key.Scope); err != nil {
		return err
	}
	if o.Expires != "" {
		at, err := parseExpiry(o.Expires, f.Now().In(f.Zone()))
		if err != nil {
			return err
		}
		o.Key.ExpiresAt = at
	}
	if o.SaveProfile != "" {
		if err := checkSaveProfile(f, o.SaveProfile, false); err != nil {
			return err
		}
	}
	body := o.Key
	if strings.TrimSpace(o.Trainer) != "" {
		one := int64(1) // a stand-in: the trainer is looked up below
		body.TrainerID = &one
	}
	parse := func(b []byte) error { _, err := api.ParseNewKey(b, f.Now().Add(-time.Second)); return err }
	if err := checkBody(body, parse, keyFlags); err != nil {
		return err
	}
	if strings.TrimSpace(o.Trainer) != "" {
		t, err := (&trainerBook{f: f}).find(ctx, "--trainer", o.Trainer)
		if err != nil {
			return err
		}
		o.Key.TrainerID = &t.ID
	}
	return nil
}

func runKeysCreate(ctx context.Context, f *cmdutil.Factory, o *KeysCreateOptions) error {
	if err := o.check(ctx, f); err != nil {
		return err
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	env, err := c.CreateKey(ctx, o.Key)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "Created key %s: scope %s%s, %s\n", keyText(env.Key), api.EscapeText(env.Key.Scope),
		keyTrainerNote(env.Key), expiryNote(f, env.Key.ExpiresAt))
	return deliverSecret(ctx, f, env, o.SaveProfile)
}

// keyTrainerNote is ", acting as Sam Coach (own trainees only)", or "".
func keyTrainerNote(k *api.APIKey) string {
	if k.TrainerID == nil {
		return ""
	}
	note := ", acting as " + api.EscapeText(output.KeyTrainerText(k.TrainerName, k.TrainerID, false))
	if k.OwnTraineesOnly {
		note += " (own trainees only)"
	}
	return note
}

// expiryNote is "expires 2027-02-19 10:00", "expires 2027-01-01 00:00
// (works through 31-12-2026)" for an expiry at a midnight where times are
// shown (the end of the day a date gave), or "never expires".
func expiryNote(f *cmdutil.Factory, at *time.Time) string {
	if at == nil {
		return "never expires"
	}
	note := "expires " + output.Stamp(*at)
	if t := at.In(f.Zone()); t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 {
		note += " (works through " + api.DateOf(t.AddDate(0, 0, -1)).String() + ")"
	}
	return note
}
