package commands

import (
	"context"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// `traineectl keys ...`: the company's API keys over the API (admin keys).

const keysLong = `Manage your company's API keys (an admin key is needed: another key exits
7, errorCode 1029). A key has a scope: admin (everything, keys, trainers and
the company's settings included), full (trainees, tracked data, webhooks,
automations, the feed) or read (every reading command). A key may act as one
trainer (--trainer): its changes carry the trainer's name in the feed, and
"search --mine" lists that trainer's trainees; --own-trainees-only also
keeps it from every other trainee.

A key's secret (pk_...) is shown once, when it is created or rotated; the
server keeps only its hash and its prefix (its first 8 characters).
--save-profile stores it straight into a profile instead. A key id of
another company exits with status 4.`

func newKeysCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:     "keys <command>",
		Aliases: []string{"key"},
		Short:   "Manage your company's API keys (admin key)",
		Long:    keysLong,
		Example: `  traineectl keys list
  traineectl keys create --name "CRM sync" --scope full --expires 90d
  traineectl keys create --name "Sam's phone" --scope full --trainer "Sam Coach" --save-profile sam
  traineectl keys rotate 5 --overlap 48h
  traineectl keys revoke 5`,
	}
	c.AddCommand(newKeysListCmd(f, nil), newKeysGetCmd(f, nil), newKeysCreateCmd(f, nil), newKeysUpdateCmd(f, nil),
		newKeysRotateCmd(f, nil), newKeysRevokeCmd(f, nil))
	return c
}

// keyArg is the one key id of a subcommand.
func keyArg(args []string) (int64, error) {
	id, ok := api.ParseID(args[0])
	if !ok {
		return 0, cmdutil.Usagef("invalid key id %q: ids are positive integers", args[0])
	}
	return id, nil
}

// keyView prints one key (an object in JSON and YAML); its table has
// OLD SECRET UNTIL, until when its rotated-out secrets work (the last of
// them) at now.
func keyView(k *api.APIKey, now time.Time) output.View {
	return output.View{Value: k, CSVHeader: output.KeyCSVHeader, CSVRows: [][]string{output.KeyCSVRow(k)},
		Columns: output.KeyDetailColumns(), Rows: [][]string{output.KeyDetailRow(k, now)}}
}

// scopeValues are the scopes, for help and completion.
var scopeValues = []string{
	api.KeyScopeAdmin + "\tevery command: keys, trainers and the company's settings too",
	api.KeyScopeFull + "\ttrainees, tracked data, webhooks, automations, the feed",
	api.KeyScopeRead + "\tevery reading command",
}

// checkScope refuses a scope that is not one.
func checkScope(s string) error {
	if !api.ValidKeyScope(s) {
		return cmdutil.Usagef("--scope must be admin, full or read, not %q", s)
	}
	return nil
}

// parseExpiry reads --expires at now (in the zone the command shows
// times in): a span from now (spanUnits), a date (dd-MM-yyyy, yyyy-MM-dd,
// today: the key works through that day and is refused from the next
// midnight) or an RFC 3339 instant. It must be in the future and within
// a hundred years.
func parseExpiry(s string, now time.Time) (*time.Time, error) {
	var at time.Time
	text := strings.TrimSpace(s)
	sp, isSpan, err := parseSpan(text)
	switch {
	case err != nil:
		return nil, cmdutil.Usagef("--expires: %v", err)
	case isSpan:
		at = sp.after(now)
	default:
		if t, err := time.Parse(time.RFC3339, text); err == nil {
			at = t
		} else if day, err := api.ParseDateInput(text, now); err == nil {
			at = time.Date(day.Year, day.Month, day.Day+1, 0, 0, 0, 0, now.Location())
		} else {
			return nil, cmdutil.Usagef("--expires %q: give a span (%s), a date (dd-MM-yyyy or yyyy-MM-dd: the key works through that day) or an RFC 3339 time (2027-01-31T18:00:00Z)", s, spanUnits)
		}
	}
	switch {
	case !at.After(now):
		return nil, cmdutil.Usagef("--expires %q: %s is not in the future", s, output.Stamp(at))
	case at.After(now.AddDate(100, 0, 0)):
		return nil, cmdutil.Usagef("--expires %q: %s is more than a hundred years away", s, output.Stamp(at))
	}
	at = at.UTC().Truncate(time.Second)
	return &at, nil
}

// parseOverlap reads --overlap: 0, or a span of hours, days or weeks up
// to api.MaxKeyOverlap.
func parseOverlap(s string) (time.Duration, error) {
	refused := cmdutil.Usagef("--overlap %q: give 0 or a span of up to 7d in whole hours, days or weeks, like 24h, 2d or 0 (m is months)", s)
	if strings.TrimSpace(s) == "0" {
		return 0, nil
	}
	sp, isSpan, err := parseSpan(s)
	if err != nil || !isSpan {
		return 0, refused
	}
	d, ok := sp.duration()
	if !ok || d > api.MaxKeyOverlap {
		return 0, refused
	}
	return d, nil
}

// keyText is a key in a few words: "5 (Sam's phone, pk_3f9a…)".
func keyText(k *api.APIKey) string {
	return fmt.Sprintf("%d (%s, %s…)", k.ID, api.EscapeText(k.Name), api.EscapeText(k.Prefix))
}

// keySecretView prints a key with its new secret (create, rotate): in the
// table format the secret alone on stdout (for `> file` or `$(...)`), in
// JSON and YAML the key with "secret", in CSV the key's columns and
// secret. Saved into a profile (saved), it prints the key without the
// secret, and nothing in the table format.
func keySecretView(env *api.KeyEnvelope, saved bool) output.View {
	k := env.Key
	if saved {
		v := keyView(k, time.Time{})
		v.Columns, v.Rows = nil, nil
		return v
	}
	type withSecret struct {
		*api.APIKey
		Secret string `json:"secret"`
	}
	return output.View{Value: withSecret{k, env.Secret},
		CSVHeader: append(slices.Clone(output.KeyCSVHeader), "secret"),
		CSVRows:   [][]string{append(output.KeyCSVRow(k), env.Secret)},
		Text: func(w io.Writer) error {
			_, err := fmt.Fprintln(w, api.EscapeText(env.Secret))
			return err
		}}
}

// deliverSecret puts a new secret where the user asked: into the profile
// (with the base URL in use), or on stdout with a warning on stderr that
// it is shown this once. When the profile cannot be written, the secret
// is printed after all, so that it is never lost.
func deliverSecret(ctx context.Context, f *cmdutil.Factory, env *api.KeyEnvelope, profile string) error {
	ios := f.IOStreams
	if profile != "" {
		base := cmdutil.DefaultBaseURL
		if s := f.UsedSettings(); s != nil {
			base = s.BaseURL
		}
		err := runConfigSetProfile(ctx, f, &ConfigSetProfileOptions{Name: profile, BaseURL: &base, APIKey: &env.Secret, KeepCurrent: true})
		if err == nil {
			fmt.Fprintln(ios.ErrOut, profileNote(f, profile))
			return f.Print(keySecretView(env, true))
		}
		if perr := f.Print(keySecretView(env, false)); perr != nil {
			return perr
		}
		return &cmdutil.StatusError{Code: cmdutil.ExitFailure,
			Err: fmt.Errorf("the key could not be saved in profile %s (%w): it is printed on stdout instead, this once", profile, err)}
	}
	fmt.Fprintln(ios.ErrOut, "The key is shown this once and never again: store it now (or use --save-profile NAME).")
	return f.Print(keySecretView(env, false))
}

// checkSaveProfile refuses, before anything is sent, a --save-profile that
// would overwrite another key: a new key never replaces a profile's key
// (rotate replaces it, since the profile then holds the old secret).
func checkSaveProfile(f *cmdutil.Factory, name string, replace bool) error {
	if err := api.CheckText("--save-profile", name); err != nil {
		return cmdutil.Usagef("%v", err)
	}
	if replace {
		return nil
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	if p, ok := cfg.Profiles[name]; ok && p.APIKey != "" {
		return cmdutil.Usagef("--save-profile %s: that profile holds a key already; choose another name (or `traineectl config delete-profile %s` first); nothing was created", name, name)
	}
	return nil
}

// completeKeyIDs offers the company's key ids (all but revoked ones), with
// their names.
func completeKeyIDs(f *cmdutil.Factory) cobra.CompletionFunc {
	return completeListIDs(f, false,
		func(ctx context.Context, c *client.Client) iter.Seq2[*api.APIKey, error] {
			return c.ListKeys(ctx, client.KeyListParams{})
		},
		func(k *api.APIKey) idCandidate { return idCandidate{k.ID, k.Name} })
}
