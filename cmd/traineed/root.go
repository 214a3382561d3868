package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
)

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// env holds what every command shares: streams and the database URL.
type env struct {
	ctx    context.Context
	in     io.Reader
	out    io.Writer
	errOut io.Writer
	db     string
	output string
}

// open opens (and migrates) the database named by --db.
func (e *env) open() (*store.Store, error) {
	return store.Open(e.ctx, e.db)
}

// withStore runs fn with an open store and closes it after.
func (e *env) withStore(fn func(*store.Store) error) error {
	s, err := e.open()
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(s)
}

type usageError struct{ error }

func run(ctx context.Context, args []string, in io.Reader, out, errOut io.Writer) int {
	e := &env{ctx: ctx, in: in, out: out, errOut: errOut}
	root := newRootCmd(e)
	root.SetArgs(args)
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errOut)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		fmt.Fprintf(errOut, "error: %v\nRun 'traineed --help' for usage.\n", err)
		return exitUsage
	}
	switch {
	case errors.Is(err, api.ErrNotFound):
		fmt.Fprintln(errOut, "error: not found")
	default:
		fmt.Fprintf(errOut, "error: %v\n", err)
	}
	return exitError
}

// buildVersion is the module version of a `go install ...@version` build,
// else "dev" with the commit it was built from, when known.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "dev (" + s.Value[:12] + ")"
		}
	}
	return "dev"
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Version: buildVersion(),
		Use:     "traineed",
		Short:   "The trainee management service and its administration",
		Long: `traineed serves the company-scoped trainee API under /public-api/ and administers
its companies, trainers and API keys.

The database is embedded SQLite by default (--db sqlite:traineed.db) or
PostgreSQL (--db postgres://...). Migrations run automatically on every
command that opens the database.`,
		Example: `  traineed serve --demo                      # SQLite, demo data, prints an API key
  traineed company create --name "Acme Gym" --time-zone Europe/Berlin
  traineed key create --company 1 --name integration
  TRAINEED_DB=postgres://postgres@127.0.0.1:5432/traineed traineed serve`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("traineed version {{.Version}}\n")
	root.AddCommand(newWebhookCmd(e))
	def := os.Getenv("TRAINEED_DB")
	if def == "" {
		def = "sqlite:traineed.db"
	}
	root.PersistentFlags().StringVar(&e.db, "db", def, "database URL: sqlite:PATH or postgres://... (env TRAINEED_DB)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newServeCmd(e), newMigrateCmd(e), newCompanyCmd(e), newTrainerCmd(e), newKeyCmd(e), newDemoCmd(e))
	root.AddCommand(newIngestCmd(e))
	return root
}

// isCobraUsage recognises cobra's own argument errors.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "required flag", "invalid argument", "unknown flag", "unknown shorthand"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// addOutputFlag adds -o table|json to a listing command.
func addOutputFlag(c *cobra.Command, e *env) {
	c.Flags().StringVarP(&e.output, "output", "o", "table", "output format: table or json")
}

func checkOutput(e *env) error {
	if e.output != "table" && e.output != "json" {
		return usageError{fmt.Errorf("--output must be table or json, not %q", e.output)}
	}
	return nil
}
