package commands

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// WhoamiOptions are the inputs of `traineectl whoami` (none).
type WhoamiOptions struct{}

func newWhoamiCmd(f *cmdutil.Factory, runF func(*WhoamiOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "whoami",
		Short: "Show the API key in use: its company, name, scope, trainer and expiry",
		Long: `Show the API key in use: its company, its name, its prefix (first 8
characters), its scope (admin: every command, keys, trainers and the
company's settings included; full: every other command; read: reading only,
any change exits 7), the trainer it acts as ("(own only)" when it may reach
that trainer's trainees only; "-" for a company key), when it expires and
the rate limit. The table fits the terminal: on a narrow one the rate limit
goes first, then the prefix (-o json has everything).`,
		Args: cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := &WhoamiOptions{}
			return runWith(cmd.Context(), f, o, runF, runWhoami)
		},
	}
}

func runWhoami(ctx context.Context, f *cmdutil.Factory, _ *WhoamiOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	var resp client.Response
	k, err := c.CurrentKey(ctx, client.WithResponse(&resp))
	if err != nil {
		return err
	}
	// The key's rate limit, as the answer's RateLimit-Policy and
	// RateLimit fields gave it (none from a server without a limit).
	v := struct {
		*api.CurrentKey
		RateLimit *client.RateLimit `json:"rateLimit,omitempty"`
	}{CurrentKey: k}
	limit, quota, remaining := "none", "", ""
	if rl := resp.RateLimit; rl != nil {
		v.RateLimit = rl
		limit = fmt.Sprintf("%d per %ds, %d left", rl.Quota, rl.Window, rl.Remaining)
		quota, remaining = fmt.Sprintf("%d/%ds", rl.Quota, rl.Window), fmt.Sprint(rl.Remaining)
	}
	return f.Print(output.View{Value: v,
		CSVHeader: []string{"companyId", "companyName", "keyId", "name", "prefix", "scope", "rateLimit", "rateLimitRemaining",
			"trainerId", "trainerName", "ownTraineesOnly", "expiresAt"},
		CSVRows: [][]string{{id(k.CompanyID), k.CompanyName, id(k.ID), k.Name, k.Prefix, k.Scope, quota, remaining,
			output.IDOr(k.TrainerID, ""), output.StrOr(k.TrainerName, ""), strconv.FormatBool(k.OwnTraineesOnly), output.InstantOr(k.ExpiresAt, "")}},
		// On a narrow screen the rate limit goes first, then the prefix:
		// the trainer stays whole.
		Columns: []output.Column{{Header: "COMPANY", Flex: true}, {Header: "KEY", Flex: true}, {Header: "PREFIX", Drop: 2}, {Header: "SCOPE"},
			{Header: "TRAINER"}, {Header: "EXPIRES"}, {Header: "RATE LIMIT", Drop: 1}},
		Rows: [][]string{{fmt.Sprintf("%s (%d)", k.CompanyName, k.CompanyID), k.Name, k.Prefix, k.Scope,
			output.KeyTrainerText(k.TrainerName, k.TrainerID, k.OwnTraineesOnly), output.StampOr(k.ExpiresAt, "never"), limit}}})
}
