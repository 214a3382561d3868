package doccheck

import (
	"reflect"
	"testing"
)

func TestCommandsIn(t *testing.T) {
	for _, c := range []struct {
		prog, line string
		want       [][]string
	}{
		{"traineectl", `traineectl search ada`, [][]string{{"search", "ada"}}},
		{"traineed", `id=$(traineed company create --name "Acme Gym" --time-zone Europe/Berlin)`, [][]string{{"company", "create", "--name", "Acme Gym", "--time-zone", "Europe/Berlin"}}},
		{"traineed", `TRAINEED_DB=x traineed serve --demo # serves`, [][]string{{"serve", "--demo"}}},
		{"traineectl", `traineectl delete 41 --yes && traineectl restore 41`, [][]string{{"delete", "41", "--yes"}, {"restore", "41"}}},
		{"traineectl", `traineectl search --all --fields id,email | cut -f2`, [][]string{{"search", "--all", "--fields", "id,email"}}},
		{"traineectl", `traineectl create --password-stdin <<< 'S3cret-pass'`, [][]string{{"create", "--password-stdin"}}},
		{"traineectl", `echo traineectl`, nil},
		{"traineed", `traineed demo > traineed`, [][]string{{"demo"}}},
	} {
		if got := commandsIn(c.line, c.prog); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %q, want %q", c.line, got, c.want)
		}
	}
}

func TestAnchor(t *testing.T) {
	for h, want := range map[string]string{
		"Data at scale: `traineed demo --trainees N`": "data-at-scale-traineed-demo---trainees-n",
		"Security of outbound requests":               "security-of-outbound-requests",
		"The coach's browser: `traineectl tui`":       "the-coachs-browser-traineectl-tui",
	} {
		if got := Anchor(h); got != want {
			t.Errorf("Anchor(%q) = %q, want %q", h, got, want)
		}
	}
}
