package main_test

import (
	"flag"
	"testing"

	"github.com/traineed/traineed/cmd/internal/buildinfo"
	"github.com/traineed/traineed/cmd/internal/manpages"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/commands"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

var updateMan = flag.Bool("update", false, "rewrite man/man1's traineectl pages (go generate ./man)")

// The committed man pages of traineectl are its command tree's: a changed
// command, flag or help text fails here until `go generate ./man` runs.
func TestManPages(t *testing.T) {
	manpages.ClearEnv(t)
	ios, _, _ := iostreams.Test("")
	pages, err := manpages.Generate(commands.NewRoot(cmdutil.New(ios, buildinfo.Info{Version: "dev"})))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"traineectl.1", "traineectl-create.1", "traineectl-completion.1"} {
		if pages[want] == nil {
			t.Errorf("no page %s", want)
		}
	}
	if err := manpages.Check("../../man/man1", "traineectl", pages, *updateMan); err != nil {
		t.Fatal(err)
	}
}
