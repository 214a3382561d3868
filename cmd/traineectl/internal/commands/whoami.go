package commands

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

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
	return f.Print(output.View{Value: k,
		CSVHeader: []string{"companyId", "companyName", "keyId", "name", "prefix", "scope"},
		CSVRows:   [][]string{{id(k.CompanyID), k.CompanyName, id(k.ID), k.Name, k.Prefix, k.Scope}},
		Columns:   []output.Column{{Header: "COMPANY", Flex: true}, {Header: "KEY", Flex: true}, {Header: "PREFIX"}, {Header: "SCOPE"}},
		Rows:      [][]string{{fmt.Sprintf("%s (%d)", k.CompanyName, k.CompanyID), k.Name, k.Prefix, k.Scope}}})
}
