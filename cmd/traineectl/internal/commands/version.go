package commands

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

func newVersionCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Show traineectl's version",
		Args:  cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v := struct {
				Version string `json:"version"`
				Go      string `json:"go"`
			}{f.Version, runtime.Version()}
			switch f.OutputFormat() {
			case output.JSON:
				return output.WriteJSON(f.IOStreams.Out, v)
			case output.YAML:
				return output.WriteYAML(f.IOStreams.Out, v)
			case output.CSV:
				return output.WriteCSV(f.IOStreams.Out, []string{"version", "go"}, [][]string{{v.Version, v.Go}})
			}
			_, err := fmt.Fprintf(f.IOStreams.Out, "traineectl version %s (%s)\n", v.Version, v.Go)
			return err
		},
	}
}
