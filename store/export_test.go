package store

import "time"

// SetNow replaces the store's clock.
func SetNow(s *Store, now func() time.Time) { s.now = now }

// WaitTouches waits for the background writes of last_used_at.
func WaitTouches(s *Store) { s.touchWG.Wait() }

// SetMigrateLockWait changes how long Open waits for the migration lock.
func SetMigrateLockWait(d time.Duration) (restore func()) {
	old := migrateLockWait
	migrateLockWait = d
	return func() { migrateLockWait = old }
}
