package main_test

import (
	"strings"
	"testing"

	"github.com/traineed/traineed/cmd/internal/buildinfo"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/commands"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
	"github.com/traineed/traineed/tools/doccheck"
)

// Every traineectl command line in the documents' sh blocks names a real
// command and only its flags (parsed by the real command tree), and every
// relative link of the documents leads to a file and heading that exist.
func TestDocsCommandsAndLinks(t *testing.T) {
	files, err := doccheck.Files("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := doccheck.Commands(files, "traineectl")
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) < 30 {
		t.Fatalf("only %d traineectl command lines found in the documents", len(cmds))
	}
	for _, c := range cmds {
		ios, _, _ := iostreams.Test("")
		root := commands.NewRoot(cmdutil.New(ios, buildinfo.Info{Version: "dev"}))
		cmd, rest, err := root.Find(c.Args)
		if err != nil {
			t.Errorf("%s: %v", c, err)
			continue
		}
		if cmd == root && len(c.Args) > 0 && !strings.HasPrefix(c.Args[0], "-") {
			t.Errorf("%s: no command %q", c, c.Args[0])
			continue
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
	for _, broken := range doccheck.BrokenLinks(files) {
		t.Error(broken)
	}
}
