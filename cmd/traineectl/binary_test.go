package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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

// stampFlags stamp the test's build as .goreleaser.yaml stamps a release's.
const stampFlags = "-X github.com/traineed/traineed/cmd/internal/buildinfo.version=v9.8.7-test" +
	" -X github.com/traineed/traineed/cmd/internal/buildinfo.commit=0123456789abcdef0123456789abcdef01234567" +
	" -X github.com/traineed/traineed/cmd/internal/buildinfo.date=2026-11-28T22:00:00Z"

// A build stamped with -ldflags says so in --version: tag, commit, date.
func TestVersionStamped(t *testing.T) {
	out, err := exec.Command(traineectlBinary(t), "--version").CombinedOutput()
	want := "traineectl version v9.8.7-test (commit 0123456789abcdef0123456789abcdef01234567, built 2026-11-28T22:00:00Z, " + runtime.Version() + ")\n"
	if err != nil || string(out) != want {
		t.Fatalf("--version: %v %q, want %q", err, out, want)
	}
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
		build := exec.Command("go", "build", "-ldflags", stampFlags, "-o", filepath.Join(built.dir, "traineectl"), ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // as released, and as .ci/run's other builds
		built.out, built.err = build.CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("build traineectl: %v\n%s", built.err, built.out)
	}
	return filepath.Join(built.dir, "traineectl")
}
