package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// built is this package's binary, built once for the tests that run it as
// a real process (the kill -9 tests, the bash completion test).
var built struct {
	once sync.Once
	dir  string
	out  []byte
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// traineectlBinary returns the path of the built traineectl, building it
// on the first call; the directory holds nothing else, so it can go on a
// PATH.
func traineectlBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "traineectl-bin-"); built.err != nil {
			return
		}
		built.out, built.err = exec.Command("go", "build", "-o", filepath.Join(built.dir, "traineectl"), ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("build traineectl: %v\n%s", built.err, built.out)
	}
	return filepath.Join(built.dir, "traineectl")
}
