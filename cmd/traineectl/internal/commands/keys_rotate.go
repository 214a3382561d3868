package commands

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// KeysRotateOptions are the inputs of `traineectl keys rotate`.
type KeysRotateOptions struct {
	ID          int64
	Overlap     *time.Duration // nil: the server's default, 24 hours
	SaveProfile string         // "": print the secret
}

const keysRotateLong = `Give a key a new secret and print it alone on stdout, once (as "keys create"
does; --save-profile NAME stores it into profile NAME instead, replacing the
key that profile holds). The previous secret keeps working for --overlap
(default 24h, at most 7d; whole hours, days or weeks; 0 stops it at once),
so that whatever uses the key can switch without downtime: a line on stderr
says until when.

A revoked key cannot be rotated (exit status 5, errorCode 1036). Needs an
admin key: another key exits 7 (errorCode 1029).`

func newKeysRotateCmd(f *cmdutil.Factory) *cobra.Command {
	var o KeysRotateOptions
	var overlap string
	cmd := &cobra.Command{
		Use:   "rotate ID [--overlap 24h] [--save-profile NAME]",
		Short: "Give a key a new secret; the old one works on for an overlap (admin key)",
		Long:  keysRotateLong,
		Example: `  traineectl keys rotate 5 > crm.key                  # the old secret works for 24 hours more
  traineectl keys rotate 5 --overlap 7d -o json
  traineectl keys rotate 2 --overlap 0 --save-profile prod   # your own key, saved at once`,
		Args:              cmdutil.ExactArgs(1, "a key id"),
		ValidArgsFunction: completeKeyIDs(f),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.ID, err = keyArg(args); err != nil {
				return err
			}
			if cmd.Flags().Changed("overlap") {
				d, err := parseOverlap(overlap)
				if err != nil {
					return err
				}
				o.Overlap = &d
			}
			if cmd.Flags().Changed("save-profile") {
				if strings.TrimSpace(o.SaveProfile) == "" {
					return cmdutil.Usagef("--save-profile wants a profile name")
				}
				if err := checkSaveProfile(f, o.SaveProfile, true); err != nil {
					return err
				}
			}
			return runKeysRotate(cmd.Context(), f, &o)
		},
	}
	cmd.Flags().StringVar(&overlap, "overlap", "", "how long the previous secret keeps working: 0 to 7d, like 48h or 2d (default 24h)")
	cmd.Flags().StringVar(&o.SaveProfile, "save-profile", "", "store the new secret into this profile (with the address in use) instead of printing it")
	_ = cmd.RegisterFlagCompletionFunc("overlap", fixedValues("0\tthe old secret stops at once", "24h\tthe default", "7d\tthe most"))
	_ = cmd.RegisterFlagCompletionFunc("save-profile", completeProfiles(f, false))
	return cmd
}

func runKeysRotate(ctx context.Context, f *cmdutil.Factory, o *KeysRotateOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	env, err := c.RotateKey(ctx, o.ID, o.Overlap)
	if err != nil {
		return err
	}
	until := "the previous secret no longer works"
	if at := env.Key.PreviousSecretExpiresAt; at != nil && at.After(f.Now()) {
		until = "the previous secret works until " + output.Stamp(*at)
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "Rotated key %s: %s\n", keyText(env.Key), until)
	return deliverSecret(f, env, o.SaveProfile)
}
