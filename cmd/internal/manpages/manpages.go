// Package manpages makes a command tree's man pages (section 1, by cobra's
// doc package) and holds them to the committed ones in man/man1: the tests
// of cmd/traineed and cmd/traineectl call Check, and `go generate ./man`
// runs those tests with -update. A page is the same on every run: no date
// in its header and no "auto generated" history, so a page changes only
// when its command does. Only tests import it: cobra's doc package and
// go-md2man stay out of the binaries.
package manpages

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// Generate renders the man page of root and of each available command
// below it, by file name ("traineed-key-create.1"). It marks every command
// of the tree DisableAutoGenTag.
func Generate(root *cobra.Command) (map[string][]byte, error) {
	pages := map[string][]byte{}
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		c.DisableAutoGenTag = true
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
				continue
			}
			if err := walk(sub); err != nil {
				return err
			}
		}
		var buf bytes.Buffer
		header := &doc.GenManHeader{Section: "1", Source: root.Name(), Manual: root.Name() + " manual"}
		if err := doc.GenMan(c, header, &buf); err != nil {
			return fmt.Errorf("%s: %w", c.CommandPath(), err)
		}
		name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		pages[name] = undated(buf.Bytes())
		return nil
	}
	return pages, walk(root)
}

// thDate is the date field of the page's .TH line: the third quoted one.
var thDate = regexp.MustCompile(`(?m)^(\.TH "[^"]*" "[^"]*" )"[^"]*"`)

// undated empties the .TH line's date, which cobra fills with the month
// of the run.
func undated(page []byte) []byte {
	return thDate.ReplaceAll(page, []byte(`$1""`))
}

// Check compares the pages of the program named prog with the files
// prog.1 and prog-*.1 of dir: each must exist with the same content, and
// no other such file may. With update it rewrites dir instead (writing
// each page, removing the files of commands that are gone).
func Check(dir, prog string, pages map[string][]byte, update bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil && !(update && errors.Is(err, os.ErrNotExist)) {
		return err
	}
	var errs []error
	for _, e := range entries {
		n := e.Name()
		if (n == prog+".1" || strings.HasPrefix(n, prog+"-") && strings.HasSuffix(n, ".1")) && pages[n] == nil {
			if update {
				errs = append(errs, os.Remove(filepath.Join(dir, n)))
			} else {
				errs = append(errs, fmt.Errorf("%s: no such command any more: run `go generate ./man`", n))
			}
		}
	}
	if update {
		errs = append(errs, os.MkdirAll(dir, 0o755))
	}
	names := make([]string, 0, len(pages))
	for n := range pages {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		path := filepath.Join(dir, n)
		if update {
			errs = append(errs, os.WriteFile(path, pages[n], 0o644))
			continue
		}
		got, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			errs = append(errs, fmt.Errorf("%s is missing: run `go generate ./man`", n))
		case err != nil:
			errs = append(errs, err)
		case !bytes.Equal(got, pages[n]):
			errs = append(errs, fmt.Errorf("%s is stale: run `go generate ./man`", n))
		}
	}
	return errors.Join(errs...)
}

// ClearEnv empties, for the test, every variable that gives one of the
// programs' flags its default (TRAINEED_*, TRAINEECTL_*), so that a page
// shows the defaults of a plain environment.
func ClearEnv(t interface{ Setenv(k, v string) }) {
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "TRAINEED_") || strings.HasPrefix(k, "TRAINEECTL_") {
			t.Setenv(k, "")
		}
	}
}
