// Command gencompletions writes traineectl's shell completion scripts into
// a directory (default: the current one). `go generate ./...` runs it from
// completions/.
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/commands"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	for shell, name := range commands.CompletionFiles {
		var b bytes.Buffer
		ios, _, _ := iostreams.Test("")
		root := commands.NewRoot(cmdutil.New(ios, "dev"))
		if err := commands.GenCompletion(root, shell, &b); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
