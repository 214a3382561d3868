package main

import (
	"context"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/traineed/traineed/cmd/internal/manpages"
)

var updateMan = flag.Bool("update", false, "rewrite man/man1's traineed pages (go generate ./man)")

// The committed man pages of traineed are its command tree's (the
// completion command's included): a changed command, flag or help text
// fails here until `go generate ./man` runs.
func TestManPages(t *testing.T) {
	manpages.ClearEnv(t)
	root := newRootCmd(&env{ctx: context.Background(), in: strings.NewReader(""), out: io.Discard, errOut: io.Discard})
	root.InitDefaultCompletionCmd()
	pages, err := manpages.Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"traineed.1", "traineed-serve.1", "traineed-key-create.1", "traineed-completion-bash.1"} {
		if pages[want] == nil {
			t.Errorf("no page %s", want)
		}
	}
	if err := manpages.Check("../../man/man1", "traineed", pages, *updateMan); err != nil {
		t.Fatal(err)
	}
}
