package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/traineed/traineed/tools/doccheck"
)

// Every traineed command line in the documents' sh blocks names a real
// command and only its flags, parsed by the real command tree.
func TestDocsCommands(t *testing.T) {
	files, err := doccheck.Files("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := doccheck.Commands(files, "traineed")
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) < 10 {
		t.Fatalf("only %d traineed command lines found in the documents", len(cmds))
	}
	for _, c := range cmds {
		var out bytes.Buffer
		root := newRootCmd(&env{ctx: context.Background(), in: strings.NewReader(""), out: &out, errOut: &out})
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
}
