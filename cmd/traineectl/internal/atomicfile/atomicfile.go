// Package atomicfile replaces a file whole or not at all: the new content
// goes to a temporary file beside it, made durable, then renamed over it.
// A crash leaves the old file or the new one, never half of either.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data, mode perm (the file is created with it,
// whatever the umask). The temporary file is named after path and removed
// on any failure.
func Write(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone once renamed
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	SyncDir(dir)
	return nil
}

// SyncDir makes a rename or a new file in dir durable; where directories
// cannot be synced (Windows) there is nothing to do.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
