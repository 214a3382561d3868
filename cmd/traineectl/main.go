// Command traineectl is the command-line client of the trainee API.
package main

import (
	"os"

	"github.com/traineed/traineed/cmd/internal/buildinfo"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/commands"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

func main() {
	os.Exit(commands.Run(os.Args[1:], cmdutil.New(iostreams.System(), buildinfo.Get())))
}
