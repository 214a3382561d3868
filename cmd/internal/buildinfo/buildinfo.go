// Package buildinfo is what both binaries say of their build: the version
// (a release's tag), the commit and the date, stamped by the release build
// with -ldflags -X (.goreleaser.yaml):
//
//	go build -ldflags "-X github.com/traineed/traineed/cmd/internal/buildinfo.version=v1.2.3 \
//	  -X github.com/traineed/traineed/cmd/internal/buildinfo.commit=$(git rev-parse HEAD) \
//	  -X github.com/traineed/traineed/cmd/internal/buildinfo.date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" ./cmd/traineed
//
// A build that stamps nothing falls back on what Go records itself: the
// module version of a `go install ...@version`, and the commit and its
// time when the build embedded them (vcs.revision and vcs.time; not with
// -buildvcs=false).
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Stamped at build time with -ldflags -X; empty otherwise.
var (
	version string
	commit  string
	date    string
)

// Info is one build's version, commit and date. Version is never empty
// ("dev" when nothing is known); Commit and Date may be.
type Info struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
}

// Get is this binary's Info: the stamped values, each one missing filled
// from the build information Go embedded.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return resolve(version, commit, date, bi)
}

func resolve(version, commit, date string, bi *debug.BuildInfo) Info {
	i := Info{Version: version, Commit: commit, Date: date}
	if bi != nil {
		if i.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			i.Version = bi.Main.Version
		}
		modified := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if i.Commit == "" {
					i.Commit = s.Value
				}
			case "vcs.time":
				if i.Date == "" {
					i.Date = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified && commit == "" && i.Commit != "" {
			i.Commit += "-dirty"
		}
	}
	if i.Version == "" {
		i.Version = "dev"
	}
	return i
}

// String is the version and, in parentheses, what else is known:
// "v1.2.3 (commit 0123abc..., built 2026-11-28T22:00:00Z)"; a build that
// recorded nothing says so, rather than a bare "dev" that reads like a
// release's name.
func (i Info) String() string {
	if i.Version == "dev" && i.Commit == "" && i.Date == "" {
		return "dev (a build from source that recorded no version, commit or date: release builds are stamped)"
	}
	var more []string
	if i.Commit != "" {
		more = append(more, "commit "+i.Commit)
	}
	if i.Date != "" {
		more = append(more, "built "+i.Date)
	}
	if len(more) == 0 {
		return i.Version
	}
	return i.Version + " (" + strings.Join(more, ", ") + ")"
}
