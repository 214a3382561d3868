package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/traineed/traineed/store"
)

// pgBackupHelp is what `traineed backup` answers on PostgreSQL.
const pgBackupHelp = `traineed backup copies a SQLite database; PostgreSQL is backed up with its own tools:
  pg_dump -Fc -f traineed.dump "$TRAINEED_DB"                 # a consistent copy, while serving
  pg_restore --no-owner -d "postgres://.../traineed_restored" traineed.dump
and, in production, continuous archiving (a base backup and the WAL archive) for
point-in-time recovery. See docs/server.md, "Backups and restore"`

func newBackupCmd(e *env) *cobra.Command {
	var to string
	var force bool
	c := &cobra.Command{
		Use:   "backup --to FILE [--force]",
		Short: "Copy the SQLite database to FILE, consistently, while it is being served",
		Long: `Writes a consistent copy of the SQLite database named by --db to FILE while serve
keeps reading and writing it (from this or another process): the copy holds exactly
the transactions committed before the backup began (SQLite's VACUUM INTO, one read
transaction; writers are not blocked). FILE is a complete database of its own
(nothing to carry along): restore by stopping serve and copying it to the
database's path (removing that path's -wal and -shm files), or serve it as it is.

An existing FILE is refused unless --force; even then the copy is written to a
temporary file beside FILE and takes its name only once complete and synced, so a
backup that fails leaves the old FILE as it was. Nothing is migrated.

On PostgreSQL the command explains what to run instead (pg_dump -Fc, pg_restore, and
continuous archiving for point-in-time recovery) and exits 1.`,
		Example: `  traineed backup --db sqlite:/var/lib/traineed/traineed.db --to /backups/traineed-$(date +%F).db
  traineed backup --to nightly.db --force`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if path, ok := store.SQLitePath(e.db); ok {
				if _, err := os.Stat(path); err != nil {
					return fmt.Errorf("no database to back up: %w", err)
				}
			}
			s, err := store.Open(e.ctx, e.db, store.WithoutMigrating())
			if err != nil {
				return err
			}
			defer s.Close()
			switch err := s.Backup(e.ctx, to, force); {
			case errors.Is(err, store.ErrBackupUnsupported):
				fmt.Fprintln(e.errOut, pgBackupHelp)
				return errors.New("nothing backed up: the database is PostgreSQL")
			case errors.Is(err, store.ErrBackupExists):
				return fmt.Errorf("%w (--force replaces it)", err)
			case err != nil:
				return err
			}
			fi, err := os.Stat(to)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.out, "%s\t%d bytes\n", to, fi.Size())
			return nil
		},
	}
	c.Flags().StringVar(&to, "to", "", "the file to write (required)")
	c.Flags().BoolVar(&force, "force", false, "replace FILE if it exists (only once the new copy is complete)")
	_ = c.MarkFlagRequired("to")
	return c
}
