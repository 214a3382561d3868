// Package doccheck reads the project's markdown (README.md and docs/*.md)
// for the tests that keep it true: every relative link leads to a file and
// heading that exist, and every command line of traineed or traineectl in
// a fenced sh block parses against the real command tree (the tests of
// cmd/traineed and cmd/traineectl walk their own program's lines).
package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Files are the project's markdown files under root.
func Files(root string) ([]string, error) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	return append([]string{filepath.Join(root, "README.md")}, docs...), nil
}

// Command is one command line of a program in a fenced sh block: where it
// is, and its arguments after the program's name.
type Command struct {
	Where string // file:line
	Args  []string
}

func (c Command) String() string { return c.Where + ": " + strings.Join(c.Args, " ") }

// Commands returns the command lines of prog in the fenced sh blocks of
// files: at the start of a line, after $(, |, && or ;, up to the end of
// that command (a pipe, a redirection, a comment, a closing parenthesis);
// quotes are undone and lines continued with a backslash joined.
func Commands(files []string, prog string) ([]Command, error) {
	var out []Command
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		inSh, joined, start := false, "", 0
		for i, line := range strings.Split(string(b), "\n") {
			t := strings.TrimSpace(line)
			if strings.HasPrefix(t, "```") {
				inSh = !inSh && (t == "```sh" || t == "```bash" || t == "```shell")
				continue
			}
			if !inSh {
				continue
			}
			if joined == "" {
				start = i + 1
			}
			if strings.HasSuffix(t, "\\") {
				joined += strings.TrimSuffix(t, "\\") + " "
				continue
			}
			joined += t
			for _, args := range commandsIn(joined, prog) {
				out = append(out, Command{Where: fmt.Sprintf("%s:%d", f, start), Args: args})
			}
			joined = ""
		}
	}
	return out, nil
}

// commandsIn splits a shell line into words (quotes undone) and returns the
// arguments of every command of prog on it: a word at a command's start (the
// line's, or after an operator; FOO=bar assignments before it are skipped).
func commandsIn(line, prog string) [][]string {
	words, ops := shellWords(line)
	var out [][]string
	atStart := true
	for i := 0; i < len(words); i++ {
		switch {
		case ops[i]:
			atStart = words[i] != ">" && words[i] != "<" // a file name follows a redirection
		case atStart && isEnvAssign(words[i]):
		case atStart && words[i] == prog:
			var args []string
			for i++; i < len(words) && !ops[i]; i++ {
				w := words[i]
				if shellVar.MatchString(w) {
					w = "1" // a variable the example set: any value of it parses as a number too
				}
				args = append(args, w)
			}
			i--
			out = append(out, args)
			atStart = false
		default:
			atStart = false
		}
	}
	return out
}

var (
	envAssign = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)
	shellVar  = regexp.MustCompile(`^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$`)
)

func isEnvAssign(w string) bool { return envAssign.MatchString(w) }

// shellWords splits line into words and marks the operators (|, &&, ;,
// $(, ), redirections, a comment's start): enough of the shell for the
// documents' examples.
func shellWords(line string) (words []string, ops []bool) {
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words, ops = append(words, cur.String()), append(ops, false)
			cur.Reset()
			inWord = false
		}
	}
	op := func(s string) { flush(); words, ops = append(words, s), append(ops, true) }
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			cur.WriteString(line[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case c == '"':
			j := strings.IndexByte(line[i+1:], '"')
			if j < 0 {
				j = len(line) - i - 1
			}
			cur.WriteString(line[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !inWord:
			op("#")
			return words, ops
		case c == '$' && i+1 < len(line) && line[i+1] == '(':
			op("$(")
			i++
		case c == '|' || c == ';' || c == ')' || c == '<' || c == '>':
			op(string(c))
		case c == '&' && i+1 < len(line) && line[i+1] == '&':
			op("&&")
			i++
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, ops
}

var (
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingRE = regexp.MustCompile(`^#{1,6} (.*)$`)
)

// Anchor is the anchor GitHub gives a heading.
func Anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// BrokenLinks returns the relative links of files whose file does not
// exist, or whose #anchor is no heading of the markdown file it names.
func BrokenLinks(files []string) []string {
	var out []string
	anchors := map[string]map[string]bool{}
	headings := func(f string) map[string]bool {
		if a, ok := anchors[f]; ok {
			return a
		}
		a := map[string]bool{}
		b, _ := os.ReadFile(f)
		fence := false
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				fence = !fence
			}
			if m := headingRE.FindStringSubmatch(l); m != nil && !fence {
				a[Anchor(m[1])] = true
			}
		}
		anchors[f] = a
		return a
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		fence := false
		for n, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				fence = !fence
			}
			if fence {
				continue
			}
			for _, m := range linkRE.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, frag, _ := strings.Cut(target, "#")
				file := f
				if path != "" {
					file = filepath.Join(filepath.Dir(f), path)
					if _, err := os.Stat(file); err != nil {
						out = append(out, fmt.Sprintf("%s:%d: %s: no such file", f, n+1, target))
						continue
					}
				}
				if frag != "" && strings.HasSuffix(file, ".md") && !headings(file)[frag] {
					out = append(out, fmt.Sprintf("%s:%d: %s: no such heading", f, n+1, target))
				}
			}
		}
	}
	return out
}
