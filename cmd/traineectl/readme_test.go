package main_test

import (
	"os"
	"strings"
	"testing"
)

// The README's commands work as written on a fresh clone: a block that
// builds ./traineectl with go build calls it as ./traineectl, not as a
// traineectl on the PATH, and the quick start runs the service and the
// tests, says what go install does and how long the first build takes.
func TestReadmeCommandsRunAsWritten(t *testing.T) {
	for _, doc := range []string{"../../README.md", "../../docs/traineectl.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		blocks := strings.Split(string(b), "```")
		for i := 1; i < len(blocks); i += 2 {
			built := false
			for _, l := range strings.Split(blocks[i], "\n") {
				l = strings.TrimSpace(l)
				if strings.HasPrefix(l, "go build") && strings.Contains(l, "-o traineectl") {
					built = true
				}
				if built && strings.HasPrefix(l, "traineectl ") {
					t.Errorf("%s: a block builds ./traineectl, then runs %q from the PATH", doc, l)
				}
			}
		}
	}
	b, _ := os.ReadFile("../../README.md")
	readme := string(b)
	for _, want := range []string{"go run ./cmd/traineed serve --demo", "go test ./...", "go install ./cmd/...", "$(go env\nGOPATH)/bin", "The first build downloads and compiles"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q", want)
		}
	}
}
