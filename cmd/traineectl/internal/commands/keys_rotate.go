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

// KeysRotateOptions are the inputs of `traineectl keys rotate`.
type KeysRotateOptions struct {
	ID          int64
	Overlap     *time.Duration // nil: the server's default, 24 hours
	SaveProfile string         // "": print the secret
	Yes         bool           // the key in use with --overlap 0, not saved: rotate all the same
}

const keysRotateLong = `Give a key a new secret and print it alone on stdout, once (as "keys create"
does). The previous secret keeps working for --overlap (default 24h, at most
7d; whole hours, days or weeks; 0 stops it at once), so that whatever uses
the key can switch without downtime: a line on stderr says until when (and
until when secrets rotated out before, each working to its own overlap's
end, may still work).

--save-profile NAME stores the new secret into profile NAME instead of
printing it: a new profile, or one that holds this key (its first 8
characters are the key's prefix before the rotation). A profile that holds
another key is refused before the key is rotated (exit status 2, nothing
rotated): choose another name, or delete that profile first.

Rotating the key this command uses (your profile's, --api-key's or
TRAINEECTL_API_KEY's) without --save-profile warns on stderr until when
the secret you use keeps working and how to save the new one (--save-profile
NAME, or "traineectl config set-profile NAME --api-key-stdin"). With
--overlap 0 your next command would be refused at once: the key in use is
then rotated only with --save-profile or --yes (else exit status 2, nothing
rotated).

A revoked key cannot be rotated (exit status 5, errorCode 1036). Needs an
admin key: another key exits 7 (errorCode 1029).`

func newKeysRotateCmd(f *cmdutil.Factory, runF func(*KeysRotateOptions) error) *cobra.Command {
	var o KeysRotateOptions
	var overlap string
	cmd := &cobra.Command{
		Use:   "rotate ID [--overlap 24h] [--save-profile NAME] [--yes]",
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
			return runWith(cmd.Context(), f, &o, runF, runKeysRotate)
		},
	}
	cmd.Flags().StringVar(&overlap, "overlap", "", "how long the previous secret keeps working: 0 to 7d, like 48h or 2d (default 24h)")
	cmd.Flags().StringVar(&o.SaveProfile, "save-profile", "", "store the new secret into this profile (new, or holding this key) instead of printing it")
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "with --overlap 0, rotate the key in use without --save-profile")
	_ = cmd.RegisterFlagCompletionFunc("overlap", fixedValues("0\tthe old secret stops at once", "24h\tthe default", "7d\tthe most"))
	_ = cmd.RegisterFlagCompletionFunc("save-profile", completeProfiles(f, false))
	return cmd
}

func runKeysRotate(ctx context.Context, f *cmdutil.Factory, o *KeysRotateOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	k, err := c.Key(ctx, o.ID)
	if err != nil {
		return err
	}
	if err := checkRotateProfile(f, o.SaveProfile, k); err != nil {
		return err
	}
	cur, err := c.CurrentKey(ctx)
	if err != nil {
		return err
	}
	own := cur.ID == k.ID
	if own && o.Overlap != nil && *o.Overlap == 0 && o.SaveProfile == "" && !o.Yes {
		return cmdutil.Usagef("key %s is the key in use (%s): with --overlap 0 its secret stops at once and your next command is refused; give --save-profile NAME to save the new secret (or --yes to rotate all the same); nothing was rotated",
			keyText(k), keySource(f))
	}
	env, err := c.RotateKey(ctx, o.ID, o.Overlap)
	if err != nil {
		return err
	}
	end, works := rotatedOutEnd(f, k.PreviousSecretExpiresAt, env, o.Overlap)
	until := "the previous secret no longer works"
	if works {
		until = "the previous secret works until " + output.Stamp(end)
	}
	if at := k.PreviousSecretExpiresAt; at != nil && at.After(end) && at.After(f.Now()) {
		until += "; secrets rotated out before it, until " + output.Stamp(*at) + " at the latest"
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "Rotated key %s: %s\n", keyText(env.Key), until)
	if own && o.SaveProfile == "" {
		usedCurrent := true
		if s := f.UsedSettings(); s != nil {
			usedCurrent = api.KeyDisplayPrefix(s.APIKey) == k.Prefix
		}
		warnRotatedInUse(f, env.Key, usedCurrent, end, works)
	}
	return deliverSecret(ctx, f, env, o.SaveProfile)
}

// rotatedOutEnd is when the secret a rotation took out stops working
// (works is false for an overlap of 0: at once). Secrets rotated out
// before keep their own ends, and the key's previousSecretExpiresAt is the
// last of them: after the rotation it is this secret's end when it moved
// past what it was before (before), else the end is the rotation's time
// (the answer's timestamp) and the overlap.
func rotatedOutEnd(f *cmdutil.Factory, before *time.Time, env *api.KeyEnvelope, overlap *time.Duration) (end time.Time, works bool) {
	d := api.DefaultKeyOverlap
	if overlap != nil {
		d = *overlap
	}
	if after := env.Key.PreviousSecretExpiresAt; after != nil && (before == nil || after.After(*before)) {
		return *after, d > 0
	}
	at := f.Now()
	if env.Timestamp > 0 {
		at = time.Unix(env.Timestamp, 0)
	}
	return at.Add(d), d > 0
}

// checkRotateProfile refuses, before rotating, a --save-profile whose
// profile holds another key than k: only a profile holding this key (its
// first 8 characters are k's prefix), or none, may take the new secret.
func checkRotateProfile(f *cmdutil.Factory, name string, k *api.APIKey) error {
	if name == "" {
		return nil
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	p, ok := cfg.Profiles[name]
	if !ok || p.APIKey == "" || api.KeyDisplayPrefix(p.APIKey) == k.Prefix {
		return nil
	}
	return cmdutil.Usagef("--save-profile %s: that profile holds another key (%s…), not key %s; choose another name (or `traineectl config delete-profile %s` first); nothing was rotated",
		name, api.EscapeText(api.KeyDisplayPrefix(p.APIKey)), keyText(k), name)
}

// warnRotatedInUse tells, on stderr, that the rotated key is the one this
// command used: until when the secret it used works (the one the rotation
// took out, usedCurrent, until end, or not at all; else one rotated out
// before, until its own end), and how to save the new one.
func warnRotatedInUse(f *cmdutil.Factory, k *api.APIKey, usedCurrent bool, end time.Time, works bool) {
	name := "NAME"
	if from := keySource(f); strings.HasPrefix(from, "profile ") {
		name = strings.TrimPrefix(from, "profile ")
	}
	until := "stopped working: your next command is refused until you save the new one"
	switch {
	case !usedCurrent:
		until = "was rotated out before: it works until its own overlap ends"
		if at := k.PreviousSecretExpiresAt; at != nil {
			until += ", " + output.Stamp(*at) + " at the latest"
		}
	case works:
		until = "works until " + output.Stamp(end) + ", then your commands are refused (exit 3)"
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "Warning: this is the key in use (%s): the secret you use %s. Save the new secret below now: "+
		"`traineectl config set-profile %s --api-key-stdin`, then paste it (next time, `keys rotate %d --save-profile %s` saves it without showing it).\n",
		keySource(f), until, name, k.ID, name)
}
