package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	vcs := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "feedc0de"}, {Key: "vcs.time", Value: "2026-11-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	for _, c := range []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  Info
		str                   string
	}{
		{"stamped wins", "v1.2.3", "0123abc", "2026-11-28T22:00:00Z", vcs,
			Info{"v1.2.3", "0123abc", "2026-11-28T22:00:00Z"}, "v1.2.3 (commit 0123abc, built 2026-11-28T22:00:00Z)"},
		{"vcs fills the rest, a modified tree marked", "", "", "", vcs,
			Info{"dev", "feedc0de-dirty", "2026-11-02T03:04:05Z"}, "dev (commit feedc0de-dirty, built 2026-11-02T03:04:05Z)"},
		{"go install @version", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}},
			Info{"v1.4.0", "", ""}, "v1.4.0"},
		{"nothing known", "", "", "", nil, Info{"dev", "", ""}, "dev (a build from source that recorded no version, commit or date: release builds are stamped)"},
	} {
		got := resolve(c.version, c.commit, c.date, c.bi)
		if got != c.want || got.String() != c.str {
			t.Errorf("%s: %+v %q, want %+v %q", c.name, got, got.String(), c.want, c.str)
		}
	}
}
