package tui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const tuiModule = "github.com/traineed/traineed/tui"

var (
	// firstComponents import nothing of tui; leafComponents only one
	// another.
	firstComponents = []string{"components/theme", "components/keymap", "components/requests"}
	leafComponents  = append([]string{"components/layout", "components/table", "components/statusline", "components/chart"}, firstComponents...)
)

// layerAllows is what of tui the package pkg (a path under tui/) may
// import, as docs/architecture.md has it.
func layerAllows(pkg string) func(imp string) bool {
	switch {
	case strings.HasPrefix(pkg, "pages/"):
		return func(imp string) bool { return strings.HasPrefix(imp, "components/") || imp == "internal/common" }
	case pkg == "internal/common":
		return func(imp string) bool { return slices.Contains(leafComponents, imp) }
	case slices.Contains(firstComponents, pkg):
		return func(string) bool { return false }
	case slices.Contains(leafComponents, pkg):
		return func(imp string) bool { return slices.Contains(leafComponents, imp) }
	case strings.HasPrefix(pkg, "components/"):
		return func(imp string) bool { return slices.Contains(leafComponents, imp) || imp == "internal/common" }
	}
	return func(string) bool { return true }
}

// tuiImports is what of tui the file at path imports (paths under tui/,
// "" for the root).
func tuiImports(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if p == tuiModule || strings.HasPrefix(p, tuiModule+"/") {
			out = append(out, strings.TrimPrefix(strings.TrimPrefix(p, tuiModule), "/"))
		}
	}
	return out
}

// TestLayering holds the imports of tui's packages to
// docs/architecture.md: a page imports no other page and not the root;
// a component imports no page, no root, and only the components below
// it (theme, keymap and requests none); internal/common imports only the
// leaf components. Test files are held too, but for the root's own.
func TestLayering(t *testing.T) {
	seen := 0
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || filepath.Dir(path) == "." {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		ok := layerAllows(pkg)
		for _, imp := range tuiImports(t, path) {
			seen++
			if imp == "" || !ok(imp) {
				t.Errorf("%s imports %s: against docs/architecture.md", path, imp)
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

// TestFileSizes holds tui to the sizes issue 37 set it: no file over 500
// lines and no function over cyclomatic complexity 15 (gocyclo's count:
// one, and one more for each if, for, range, case and select clause but
// the default, && and ||). Test files are not held.
func TestFileSizes(t *testing.T) {
	const maxLines, maxComplexity = 500, 15
	files := 0
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		files++
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := strings.Count(string(src), "\n"); n > maxLines {
			t.Errorf("%s: %d lines, over %d", path, n, maxLines)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
				if c := complexity(fn); c > maxComplexity {
					t.Errorf("%s: %s has complexity %d, over %d", fset.Position(fn.Pos()), fn.Name.Name, c, maxComplexity)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Fatalf("only %d files read", files)
	}
}

// complexity is fn's cyclomatic complexity as gocyclo counts it.
func complexity(fn *ast.FuncDecl) int {
	c := 1
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil {
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}
