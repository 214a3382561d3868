package commands

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// WhoamiOptions are the inputs of `traineectl whoami` (none).
type WhoamiOptions struct{}

func newWhoamiCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "whoami",
		Short: "Show the API key in use: its company, name and scope",
		Long: `Show the API key in use: its company, its name, its prefix (first 8
characters) and its scope: full (every command) or read (reading only: any
change exits 7).`,
		Args: cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWhoami(cmd.Context(), f, &WhoamiOptions{})
		},
	}
}

func runWhoami(ctx context.Context, f *cmdutil.Factory, _ *WhoamiOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	k, err := c.CurrentKey(ctx)
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
	if rl, ok := c.RateLimit(); ok {
		v.RateLimit = &rl
		limit = fmt.Sprintf("%d per %ds, %d left", rl.Quota, rl.Window, rl.Remaining)
		quota, remaining = fmt.Sprintf("%d/%ds", rl.Quota, rl.Window), fmt.Sprint(rl.Remaining)
	}
	return f.Print(output.View{Value: v,
		CSVHeader: []string{"companyId", "companyName", "keyId", "name", "prefix", "scope", "rateLimit", "rateLimitRemaining"},
		CSVRows:   [][]string{{id(k.CompanyID), k.CompanyName, id(k.ID), k.Name, k.Prefix, k.Scope, quota, remaining}},
		Columns:   []output.Column{{Header: "COMPANY", Flex: true}, {Header: "KEY", Flex: true}, {Header: "PREFIX"}, {Header: "SCOPE"}, {Header: "RATE LIMIT"}},
		Rows:      [][]string{{fmt.Sprintf("%s (%d)", k.CompanyName, k.CompanyID), k.Name, k.Prefix, k.Scope, limit}}})
}
