package bulkimport

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/traineed/traineed/cmd/traineectl/internal/atomicfile"
)

// appender appends lines to a file and returns only once they are on disk.
// Concurrent appends share one fsync (group commit): an append waits for
// the first sync that starts after its write, so N workers pay about one
// fsync per round instead of N.
type appender struct {
	f *os.File

	mu      sync.Mutex
	cond    *sync.Cond
	written uint64 // appends written to the file
	synced  uint64 // appends known to be on disk
	syncing bool
	err     error // a failed write or sync: every later append fails
}

// openAppender opens path for appending (creating it with mode perm, and
// syncing its directory so the new name survives a crash), locked so that
// a second process cannot use it at the same time. A last line
// without its newline (a write torn by a crash of the machine) is cut off:
// it was never acknowledged, so nothing was sent on its account. head
// returns the file's complete content before the append position.
func openAppender(path string, perm os.FileMode) (a *appender, head []byte, err error) {
	_, statErr := os.Stat(path)
	created := os.IsNotExist(statErr)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, perm)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	if err := lockFile(f); err != nil {
		return nil, nil, fmt.Errorf("%s is in use by another import (%v)", path, err)
	}
	if created {
		atomicfile.SyncDir(filepath.Dir(path))
	}
	content, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, err
	}
	keep := len(content)
	if keep > 0 && content[keep-1] != '\n' {
		keep = bytes.LastIndexByte(content, '\n') + 1
		if err := f.Truncate(int64(keep)); err != nil {
			return nil, nil, err
		}
		if err := f.Sync(); err != nil {
			return nil, nil, err
		}
	}
	if _, err := f.Seek(int64(keep), io.SeekStart); err != nil {
		return nil, nil, err
	}
	a = &appender{f: f}
	a.cond = sync.NewCond(&a.mu)
	return a, content[:keep], nil
}

// Append writes line (which must end in a newline) and, when durable,
// waits until it is on disk. A line written without waiting reaches the
// disk with the next durable append, or at Close.
func (a *appender) Append(line []byte, durable bool) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return a.err
	}
	if _, err := a.f.Write(line); err != nil {
		a.err = fmt.Errorf("write %s: %w", a.f.Name(), err)
		return a.err
	}
	a.written++
	if !durable {
		return nil
	}
	mine := a.written
	for a.synced < mine && a.err == nil {
		if a.syncing {
			a.cond.Wait()
			continue
		}
		a.syncing = true
		target := a.written
		a.mu.Unlock()
		err := a.f.Sync()
		a.mu.Lock()
		a.syncing = false
		if err != nil {
			a.err = fmt.Errorf("sync %s: %w", a.f.Name(), err)
		} else {
			a.synced = target
		}
		a.cond.Broadcast()
	}
	return a.err
}

// Close syncs and closes the file.
func (a *appender) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	err := a.err
	if a.synced < a.written && err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	return err
}
