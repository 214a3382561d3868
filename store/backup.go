package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrBackupUnsupported is Backup's answer on PostgreSQL, which is backed
// up with its own tools (pg_dump, or continuous archiving for
// point-in-time recovery: docs/server.md).
var ErrBackupUnsupported = errors.New("backup copies a SQLite database; back up PostgreSQL with pg_dump")

// ErrBackupExists is Backup's answer when the target exists and it was
// not asked to replace it.
var ErrBackupExists = errors.New("the backup file already exists")

// Backup writes a consistent copy of the SQLite database to path while
// the database stays in use (by this process or another serve): VACUUM
// INTO reads one snapshot, in a read transaction, so the copy holds
// exactly the transactions committed before it began, and writers are
// not blocked (WAL). The copy is a compacted database file of its own
// (no -wal file to carry along), written to a temporary file in path's
// directory, synced, and only then given path's name: a backup that
// fails leaves what path held before. An existing path is refused
// (ErrBackupExists) unless replace.
func (s *Store) Backup(ctx context.Context, path string, replace bool) error {
	if s.dialect != DialectSQLite {
		return ErrBackupUnsupported
	}
	if !replace {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%w: %s", ErrBackupExists, path)
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".partial-*")
	if err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	tmp := f.Name()
	_ = f.Close()
	_ = os.Remove(tmp) // VACUUM INTO writes a file that does not exist
	defer os.Remove(tmp)
	if _, err := s.db.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	if err := syncFile(tmp); err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	if replace {
		err = os.Rename(tmp, path)
	} else if err = os.Link(tmp, path); errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%w: %s", ErrBackupExists, path) // created meanwhile
	}
	if err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	if err := syncFile(filepath.Dir(path)); err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	return nil
}

// syncFile flushes a file, or a directory's entries, to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
