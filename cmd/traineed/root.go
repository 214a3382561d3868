package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/internal/buildinfo"
	"github.com/traineed/traineed/store"
	"golang.org/x/term"
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
	// width is the width of the terminal tables are fitted to, 0 when
	// stdout is not a terminal (tab-separated lines; see textout.WriteTable).
	width  int
	db     string
	output string
	// noteLog, when set (serve), takes what the migrations report
	// (store.MigrationNotes) as warnings; else they go to errOut.
	noteLog *slog.Logger
	// allowNewer (--allow-newer-schema) opens a database a newer traineed
	// migrated, instead of refusing it.
	allowNewer bool
}

// open opens (and migrates) the database named by --db, and passes on
// what the migrations it applied reported: once, by the process that
// applied them.
// A database a newer traineed migrated is refused (store.ErrNewerSchema:
// nothing is changed) unless --allow-newer-schema.
func (e *env) open() (*store.Store, error) {
	var opts []store.Option
	if e.allowNewer {
		opts = append(opts, store.AllowNewerSchema())
	}
	s, err := store.Open(e.ctx, e.db, opts...)
	if err != nil {
		return nil, err
	}
	for _, n := range s.MigrationNotes() {
		if e.noteLog != nil {
			e.noteLog.Warn("migration", "note", n)
		} else {
			fmt.Fprintf(e.errOut, "traineed: migration: %s\n", api.EscapeText(n))
		}
	}
	return s, nil
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
	return runEnv(&env{ctx: ctx, in: in, out: out, errOut: errOut, width: terminalWidth(out)}, args)
}

// runEnv runs the command args over e's streams and returns its exit
// status. An error is shown escaped (api.EscapeText): it may quote stored
// text.
func runEnv(e *env, args []string) int {
	errOut := e.errOut
	root := newRootCmd(e)
	root.SetArgs(args)
	root.SetIn(e.in)
	root.SetOut(e.out)
	root.SetErr(errOut)
	err := root.ExecuteContext(e.ctx)
	if err == nil {
		return exitOK
	}
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		fmt.Fprintf(errOut, "error: %s\nRun 'traineed --help' for usage.\n", api.EscapeText(err.Error()))
		return exitUsage
	}
	switch {
	case errors.Is(err, api.ErrNotFound):
		fmt.Fprintln(errOut, "error: not found")
	default:
		fmt.Fprintf(errOut, "error: %s\n", api.EscapeText(err.Error()))
	}
	return exitError
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Version: buildinfo.Get().String(),
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
	root.PersistentFlags().BoolVar(&e.allowNewer, "allow-newer-schema", os.Getenv("TRAINEED_ALLOW_NEWER_SCHEMA") == "1",
		"use a database a newer traineed migrated (an older instance restarted during a rolling upgrade; env TRAINEED_ALLOW_NEWER_SCHEMA=1)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newServeCmd(e), newMigrateCmd(e), newCompanyCmd(e), newTrainerCmd(e), newKeyCmd(e), newDemoCmd(e))
	root.AddCommand(newIngestCmd(e), newBackupCmd(e))
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

// outputFormats are the values of a listing command's -o, the first the
// default: each prints through cmd/internal/textout, as traineectl's do.
var outputFormats = []string{"table", "json"}

// addOutputFlag adds -o table|json to a listing command.
func addOutputFlag(c *cobra.Command, e *env) {
	c.Flags().StringVarP(&e.output, "output", "o", outputFormats[0], "output format: "+strings.Join(outputFormats, " or "))
}

func checkOutput(e *env) error {
	if !slices.Contains(outputFormats, e.output) {
		return usageError{fmt.Errorf("--output must be %s, not %q", strings.Join(outputFormats, " or "), e.output)}
	}
	return nil
}

// terminalWidth is the width a table on out is fitted to: 0 when out is
// not a terminal, else COLUMNS when it is a positive number, else the
// terminal's width (80 when it cannot be read), as traineectl's.
func terminalWidth(out io.Writer) int {
	f, ok := out.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(os.Getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
		return w
	}
	return 80
}
