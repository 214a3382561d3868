package commands

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// KeysUpdateOptions are the inputs of `traineectl keys update`.
type KeysUpdateOptions struct {
	ID    int64
	Patch api.KeyPatch
}

const keysUpdateLong = `Change a key: sends only the flags given. --expires takes what "keys create
--expires" takes (36h, 90d, 6w, 3m = months, 1y from now; a date: the key
works through that day; an RFC 3339 time), or none to remove the expiry;
stderr says when the key expires. --disable stops the key
until --enable; "keys revoke" stops it for good. --scope changes its scope
(never above your own key's, and never your own key's: exit 7, errorCode
1031).

The company's last enabled admin key without an expiry cannot be disabled,
demoted or given an expiry (exit status 5, errorCode 1032): create another
admin key first. A revoked key cannot be changed (exit status 5, errorCode
1036). Needs an admin key: another key exits 7 (errorCode 1029).`

func newKeysUpdateCmd(f *cmdutil.Factory, runF func(*KeysUpdateOptions) error) *cobra.Command {
	var o KeysUpdateOptions
	var name, expires, scope string
	var enable, disable bool
	cmd := &cobra.Command{
		Use:   "update ID [--name NAME] [--expires 90d|DATE|TIME|none] [--enable|--disable] [--scope admin|full|read]",
		Short: "Rename a key, change its expiry or scope, disable or enable it (admin key)",
		Long:  keysUpdateLong,
		Example: `  traineectl keys update 5 --name "CRM sync (old)" --expires 7d
  traineectl keys update 5 --disable
  traineectl keys update 5 --expires none --scope read`,
		Args:              cmdutil.ExactArgs(1, "a key id"),
		ValidArgsFunction: completeKeyIDs(f),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.ID, err = keyArg(args); err != nil {
				return err
			}
			fs := cmd.Flags()
			o.Patch.Name = ifChanged(fs, "name", &name)
			if enable && disable {
				return cmdutil.Usagef("--enable and --disable contradict each other")
			}
			if enable || disable {
				o.Patch.Enabled = &enable
			}
			if o.Patch.Scope = ifChanged(fs, "scope", &scope); o.Patch.Scope != nil {
				if err := checkScope(scope); err != nil {
					return err
				}
			}
			if err := o.expiry(f, fs.Changed("expires"), expires); err != nil {
				return err
			}
			return runWith(cmd.Context(), f, &o, runF, runKeysUpdate)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&name, "name", "", "the key's new name")
	fl.StringVar(&expires, "expires", "", "a new expiry: a span (36h, 90d, 6w, 3m = months, 1y), a date (works through that day), an RFC 3339 time, or none")
	fl.BoolVar(&enable, "enable", false, "let a disabled key work again")
	fl.BoolVar(&disable, "disable", false, "stop the key until --enable")
	fl.StringVar(&scope, "scope", "", "the new scope: admin, full or read")
	_ = cmd.RegisterFlagCompletionFunc("scope", fixedValues(scopeValues...))
	_ = cmd.RegisterFlagCompletionFunc("expires", fixedValues("none\tnever expires", "30d\t30 days from now", "90d\t90 days from now"))
	_ = cmd.RegisterFlagCompletionFunc("name", cobra.NoFileCompletions)
	return cmd
}

// expiry reads --expires (none: remove the expiry).
func (o *KeysUpdateOptions) expiry(f *cmdutil.Factory, given bool, text string) error {
	switch {
	case !given:
	case strings.EqualFold(strings.TrimSpace(text), none):
		o.Patch.ClearExpiry = true
	default:
		at, err := parseExpiry(text, f.Now().In(f.Zone()))
		if err != nil {
			return err
		}
		o.Patch.ExpiresAt = at
	}
	return nil
}

func runKeysUpdate(ctx context.Context, f *cmdutil.Factory, o *KeysUpdateOptions) error {
	p := o.Patch
	if p.Name == nil && p.ExpiresAt == nil && !p.ClearExpiry && p.Enabled == nil && p.Scope == nil {
		return nothingChanged("--name, --expires, --enable, --disable or --scope")
	}
	parse := func(b []byte) error { _, err := api.ParseKeyPatch(b, f.Now().Add(-time.Second)); return err }
	if err := checkBody(p, parse, keyFlags); err != nil {
		return err
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	k, err := c.UpdateKey(ctx, o.ID, p)
	if err != nil {
		return err
	}
	if p.ExpiresAt != nil {
		fmt.Fprintf(f.IOStreams.ErrOut, "Updated key %s: %s\n", keyText(k), expiryNote(f, k.ExpiresAt))
	} else {
		noteDone(f, "Updated", "key", k.ID, k.Name)
	}
	return f.Print(keyView(k, f.Now()))
}
