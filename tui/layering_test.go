package tui

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestLayering holds the imports of tui's packages to
// docs/architecture.md: a page imports no other page and not the root;
// a component imports no page, no root, and only the components below
// it (theme, keymap and requests none); internal/common imports only the
// leaf components. Test files are
// held too, but for the root's own.
func TestLayering(t *testing.T) {
	const mod = "github.com/traineed/traineed/tui"
	first := []string{"components/theme", "components/keymap", "components/requests"}
	leaves := append([]string{"components/layout", "components/table", "components/statusline", "components/chart"}, first...)
	allowed := func(pkg string) func(imp string) bool {
		switch {
		case strings.HasPrefix(pkg, "pages/"):
			return func(imp string) bool {
				return strings.HasPrefix(imp, "components/") || imp == "internal/common"
			}
		case pkg == "internal/common":
			return func(imp string) bool { return slices.Contains(leaves, imp) }
		case slices.Contains(first, pkg):
			return func(string) bool { return false }
		case slices.Contains(leaves, pkg):
			return func(imp string) bool { return slices.Contains(leaves, imp) }
		case strings.HasPrefix(pkg, "components/"):
			return func(imp string) bool { return slices.Contains(leaves, imp) || imp == "internal/common" }
		}
		return func(string) bool { return true }
	}
	seen := 0
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || filepath.Dir(path) == "." {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		ok := allowed(pkg)
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if p != mod && !strings.HasPrefix(p, mod+"/") {
				continue
			}
			seen++
			if imp := strings.TrimPrefix(strings.TrimPrefix(p, mod), "/"); imp == "" || imp == pkg || !ok(imp) {
				t.Errorf("%s imports %s: against docs/architecture.md", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("no import of tui's packages seen: the walk read nothing")
	}
}
