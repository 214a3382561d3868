// Command traineectl is the command-line client of the trainee API.
package main

import (
	"os"
	"runtime/debug"

	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/commands"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

// version is set at build time:
//
//	go build -ldflags "-X main.version=1.2.3" ./cmd/traineectl
var version = ""

func main() {
	os.Exit(commands.Run(os.Args[1:], cmdutil.New(iostreams.System(), buildVersion())))
}

// buildVersion is -ldflags' version, else the module version of a
// `go install ...@version` build, else "dev".
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
