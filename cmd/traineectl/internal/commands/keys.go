package commands

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
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
	c.AddCommand(newKeysListCmd(f), newKeysGetCmd(f), newKeysCreateCmd(f), newKeysUpdateCmd(f),
		newKeysRotateCmd(f), newKeysRevokeCmd(f))
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
// OLD SECRET UNTIL, until when the secret before its last rotation works
// at now.
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

// spanPattern is a span of days ("90d") or weeks ("2w").
var spanPattern = regexp.MustCompile(`^([0-9]+)([dw])$`)

// parseSpan reads a span of time: days (90d), weeks (2w) or a Go duration
// (36h, 90m, 1h30m).
func parseSpan(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if m := spanPattern.FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n > 100*365 {
			return 0, fmt.Errorf("%q is too long", s)
		}
		days := time.Duration(n)
		if m[2] == "w" {
			days *= 7
		}
		return days * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a span of time like 90d, 2w, 36h or 90m", s)
	}
	return d, nil
}

// parseExpiry reads --expires: a span from now (90d, 2w, 36h), a date
// (dd-MM-yyyy, yyyy-MM-dd: the start of that day, local time) or an RFC
// 3339 instant. It must be in the future.
func parseExpiry(s string, now time.Time) (*time.Time, error) {
	var at time.Time
	if d, err := parseSpan(s); err == nil {
		at = now.Add(d)
	} else if t, err := time.Parse(time.RFC3339, strings.TrimSpace(s)); err == nil {
		at = t
	} else if day, err := api.ParseDateInput(s, now); err == nil {
		at = time.Date(day.Year, day.Month, day.Day, 0, 0, 0, 0, now.Location())
	} else {
		return nil, cmdutil.Usagef("--expires %q: give a span (90d, 2w, 36h), a date (dd-MM-yyyy or yyyy-MM-dd) or an RFC 3339 time (2027-01-31T18:00:00Z)", s)
	}
	if !at.After(now) {
		return nil, cmdutil.Usagef("--expires %q: %s is not in the future", s, output.Stamp(at))
	}
	at = at.UTC().Truncate(time.Second)
	return &at, nil
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
func deliverSecret(f *cmdutil.Factory, env *api.KeyEnvelope, profile string) error {
	ios := f.IOStreams
	if profile != "" {
		base := cmdutil.DefaultBaseURL
		if s := f.UsedSettings(); s != nil {
			base = s.BaseURL
		}
		err := runConfigSetProfile(f, &ConfigSetProfileOptions{Name: profile, BaseURL: &base, APIKey: &env.Secret, KeepCurrent: true})
		if err == nil {
			fmt.Fprintf(ios.ErrOut, "Use it with --profile %s; the key is not shown.\n", profile)
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
	return completeIDs(f, false, func(ctx context.Context, c *client.Client, _ string) ([]idCandidate, error) {
		ks, err := c.Keys(ctx, "")
		out := make([]idCandidate, len(ks))
		for i, k := range ks {
			out[i] = idCandidate{k.ID, k.Name}
		}
		return out, err
	})
}
