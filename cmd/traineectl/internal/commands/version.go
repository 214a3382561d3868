package commands

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// VersionOptions are the inputs of `traineectl version`: none.
type VersionOptions struct{}

func newVersionCmd(f *cmdutil.Factory, runF func(*VersionOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Show traineectl's version",
		Args:  cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := &VersionOptions{}
			return runWith(cmd.Context(), f, o, runF, runVersion)
		},
	}
}

// runVersion prints traineectl's version, the commit and date of its
// build (empty when unknown) and the Go release it was built with.
func runVersion(_ context.Context, f *cmdutil.Factory, _ *VersionOptions) error {
	v := struct {
		Version string `json:"version"`
		Commit  string `json:"commit"`
		Date    string `json:"date"`
		Go      string `json:"go"`
	}{f.Version, f.Commit, f.Date, runtime.Version()}
	return f.Print(output.View{Value: v, CSVHeader: []string{"version", "commit", "date", "go"},
		CSVRows: [][]string{{v.Version, v.Commit, v.Date, v.Go}},
		Text: func(w io.Writer) error {
			_, err := fmt.Fprintln(w, f.VersionLine())
			return err
		}})
}
