package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// KeysRevokeOptions are the inputs of `traineectl keys revoke`.
type KeysRevokeOptions struct {
	ID      int64
	Yes     bool   // another key: do not ask
	Confirm string // the key's name, confirming without asking ("": ask)
}

const keysRevokeLong = `Revoke a key: it is refused from the next request on, on every server, for
good (it stays listed, with --state revoked or all, so that the feed still
names it). The revoked key is printed.

Revoking another key asks to confirm on a terminal; elsewhere --yes is
required, and without it nothing is revoked and the exit status is 2.
Revoking the key this command uses (your profile's, --api-key's or
TRAINEECTL_API_KEY's) asks you to type the key's name, as "erase" asks for
an e-mail address; elsewhere --confirm NAME is required (--yes is not
enough), and without it nothing is revoked and the exit status is 2.
--confirm NAME confirms any key whose name it is. The name is compared as
the TUI compares it: blanks around it and case do not count. Answering no
(or another name) revokes nothing: exit status 2.

Revoking a key that is revoked already changes nothing: stderr says when it
was revoked, the key is printed, and the exit status is 0.

The company's last enabled admin key without an expiry cannot be revoked
(exit status 5, errorCode 1032): create another admin key first. Needs an
admin key: another key exits 7 (errorCode 1029).`

func newKeysRevokeCmd(f *cmdutil.Factory, runF func(*KeysRevokeOptions) error) *cobra.Command {
	var o KeysRevokeOptions
	cmd := &cobra.Command{
		Use:   "revoke ID [--yes] [--confirm NAME]",
		Short: "Revoke a key for good (admin key)",
		Long:  keysRevokeLong,
		Example: `  traineectl keys revoke 5
  traineectl keys revoke 5 --yes
  traineectl keys revoke 2 --confirm "Laptop"     # the key in use, in a script`,
		Args:              cmdutil.ExactArgs(1, "a key id"),
		ValidArgsFunction: completeKeyIDs(f),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.ID, err = keyArg(args); err != nil {
				return err
			}
			if cmd.Flags().Changed("confirm") && strings.TrimSpace(o.Confirm) == "" {
				return cmdutil.Usagef("--confirm wants the key's name; nothing was revoked")
			}
			return runWith(cmd.Context(), f, &o, runF, runKeysRevoke)
		},
	}
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "revoke another key without asking")
	cmd.Flags().StringVar(&o.Confirm, "confirm", "", "the key's name, confirming without asking (needed for the key in use)")
	_ = cmd.RegisterFlagCompletionFunc("confirm", cobra.NoFileCompletions)
	return cmd
}

func runKeysRevoke(ctx context.Context, f *cmdutil.Factory, o *KeysRevokeOptions) error {
	if !o.Yes && o.Confirm == "" && !f.IOStreams.CanPrompt() {
		return cmdutil.Usagef("refusing to revoke without --yes (--confirm NAME for the key in use) when stdin is not a terminal; nothing was revoked")
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	k, err := c.Key(ctx, o.ID)
	if err != nil {
		return err
	}
	if k.State == api.KeyRevoked {
		at := ""
		if k.RevokedAt != nil {
			at = " at " + output.Stamp(*k.RevokedAt)
		}
		fmt.Fprintf(f.IOStreams.ErrOut, "Key %s was already revoked%s; nothing was changed.\n", keyText(k), at)
		return f.Print(keyView(k, f.Now()))
	}
	cur, err := c.CurrentKey(ctx)
	if err != nil {
		return err
	}
	own := cur.ID == k.ID
	if err := confirmRevoke(ctx, f, o, k, own); err != nil {
		return err
	}
	k, err = c.RevokeKey(ctx, o.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "Revoked key %s\n", keyText(k))
	if own {
		fmt.Fprintf(f.IOStreams.ErrOut, "That was the key in use (%s): use another one from now on.\n", keySource(f))
	}
	return f.Print(keyView(k, f.Now()))
}

// keySource is where the key in use comes from: "profile prod",
// "--api-key", "TRAINEECTL_API_KEY".
func keySource(f *cmdutil.Factory) string {
	if s := f.UsedSettings(); s != nil && s.APIKeyFrom != "" {
		return s.APIKeyFrom
	}
	return "the key in use"
}

// confirmRevoke asks before revoking: to type the key's name for the key
// in use (own), y/N for another; --confirm NAME answers either, --yes the
// second. Without a terminal and without them it refuses.
func confirmRevoke(ctx context.Context, f *cmdutil.Factory, o *KeysRevokeOptions, k *api.APIKey, own bool) error {
	ios := f.IOStreams
	switch {
	case o.Confirm != "":
		if !sameKeyName(o.Confirm, k.Name) {
			return cmdutil.Usagef("--confirm %q is not the name of key %d; nothing was revoked", o.Confirm, k.ID)
		}
		return nil
	case own && !ios.CanPrompt():
		return cmdutil.Usagef("key %s is the key in use (%s): revoking it needs --confirm NAME when stdin is not a terminal; nothing was revoked",
			keyText(k), keySource(f))
	case own:
		line, err := f.Ask(ctx, fmt.Sprintf("Key %s is the key in use (%s): once revoked, it stops working for you too, for good.\nType the key's name to confirm: ",
			keyText(k), keySource(f)))
		if err != nil {
			return err
		}
		if line == "" {
			return cmdutil.Declinedf("not confirmed; nothing was revoked")
		}
		if !sameKeyName(line, k.Name) {
			return cmdutil.Declinedf("%q is not the name of key %d; not confirmed, nothing was revoked", line, k.ID)
		}
		return nil
	case o.Yes:
		return nil
	}
	ok, err := f.Confirm(ctx, fmt.Sprintf("Revoke key %s? It stops working at once, for good.", keyText(k)))
	if err != nil {
		return err
	}
	if !ok {
		return cmdutil.Declinedf("not confirmed; nothing was revoked")
	}
	return nil
}

// sameKeyName reports whether typed is the key's name, as the TUI
// compares it too: blanks around either do not count, nor does case.
func sameKeyName(typed, name string) bool {
	return strings.EqualFold(strings.TrimSpace(typed), strings.TrimSpace(name))
}
