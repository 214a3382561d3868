package commands

import (
	"context"
	"iter"
	"slices"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// keyStateValues are the values of keys list --state.
var keyStateValues = []string{
	api.KeyActive + "\tin use",
	api.KeyDisabled + "\tdisabled by a person (keys update --enable resumes it)",
	api.KeyExpired + "\tits expiry passed",
	api.KeyRevoked + "\trevoked: refused for good",
	"all\tevery key, revoked ones too",
}

// KeysListOptions are the inputs of `traineectl keys list`.
type KeysListOptions struct {
	State string // "": every state but revoked
	listFlags
}

func newKeysListCmd(f *cmdutil.Factory, runF func(*KeysListOptions) error) *cobra.Command {
	var o KeysListOptions
	cmd := &cobra.Command{
		Use:     "list [--state STATE] [--limit N | --all]",
		Aliases: []string{"ls"},
		Short:   "List the company's API keys (never their secrets)",
		Long: `List the company's API keys by id: name, prefix (the key's first 8
characters), scope, the trainer the key acts as ("(own only)" when it may
reach that trainer's trainees only), when it was created and by whom, when it
was last used, when it expires, and its state (active, disabled, expired or
revoked). CREATED, LAST USED and EXPIRES are times (2026-11-25 19:00, your
local time; --utc for UTC); JSON, YAML and CSV keep RFC 3339 in UTC. The
table fits the terminal: on a narrow one CREATED BY goes first, then
CREATED, then PREFIX (80 columns show ID NAME SCOPE TRAINER LAST USED
EXPIRES STATE; --fields keeps the columns it names).

Without --state every key but the revoked ones is listed; --state all lists
them too. Without more one page is printed (20 keys); --limit N fetches up
to N across pages, --all every one. No key found is said on stderr ("No
expired keys found").`,
		Example: `  traineectl keys list
  traineectl keys list --state all -o json
  traineectl keys list --state expired --jq '.[].name'`,
		Args: cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := recordGiven(cmd, &o); err != nil {
				return err
			}
			if o.State != "" && o.State != "all" && !slices.Contains(api.KeyStates, o.State) {
				return cmdutil.Usagef("--state must be active, disabled, expired, revoked or all, not %q", o.State)
			}
			return runWith(cmd.Context(), f, &o, runF, runKeysList)
		},
	}
	cmd.Flags().StringVar(&o.State, "state", "", "only the keys of this state: active, disabled, expired, revoked or all (default: all but revoked)")
	o.register(cmd, "key")
	_ = cmd.RegisterFlagCompletionFunc("state", fixedValues(keyStateValues...))
	return cmd
}

func runKeysList(ctx context.Context, f *cmdutil.Factory, o *KeysListOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	if o.State != "" && o.State != "all" {
		o.what = o.State + " keys"
	}
	return runList(ctx, f, &o.listFlags, func(ctx context.Context, p client.ListParams, opts ...client.RequestOption) iter.Seq2[*api.APIKey, error] {
		return c.ListKeys(ctx, client.KeyListParams{ListParams: p, State: o.State}, opts...)
	}, client.ListParams{}, output.KeyRows)
}

// KeysGetOptions are the inputs of `traineectl keys get`.
type KeysGetOptions struct{ ID int64 }

func newKeysGetCmd(f *cmdutil.Factory, runF func(*KeysGetOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "get ID",
		Short: "Show an API key (never its secret)",
		Long: `Show one key as "keys list" does, and OLD SECRET UNTIL: after a rotation,
until when the secrets rotated out work (the last of them to stop; "-" once
none does). On a
narrow terminal CREATED BY, CREATED, TRAINER and EXPIRES go first: the
prefix, the last use and the old secret's end, which tell whether a
rotation took, stay. JSON and YAML show every member of the key,
previousSecretExpiresAt and revokedAt included.`,
		Example: `  traineectl keys get 5
  traineectl keys get 5 -o yaml`,
		Args:              cmdutil.ExactArgs(1, "a key id"),
		ValidArgsFunction: completeKeyIDs(f),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			var o KeysGetOptions
			if o.ID, err = keyArg(args); err != nil {
				return err
			}
			return runWith(cmd.Context(), f, &o, runF, runKeysGet)
		},
	}
}

func runKeysGet(ctx context.Context, f *cmdutil.Factory, o *KeysGetOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	k, err := c.Key(ctx, o.ID)
	if err != nil {
		return err
	}
	return f.Print(keyView(k, f.Now()))
}
