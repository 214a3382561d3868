package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/traineed/traineed/cmd/traineectl/internal/atomicfile"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "new" {
		t.Fatalf("read %q, %v; want new", b, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("left %d files in the directory, want the file alone", len(ents))
	}
	// A directory that does not exist: an error, and nothing made.
	if err := atomicfile.Write(filepath.Join(dir, "no", "such"), []byte("x"), 0o600); err == nil {
		t.Fatal("wrote into a directory that does not exist")
	}
}
