//go:build unix

package bulkimport

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f without waiting; closing f (or the
// process ending, even by SIGKILL) releases it.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
