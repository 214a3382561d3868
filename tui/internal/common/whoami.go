package common

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/layout"
)

// The key in use (Options.Key, GET /public-api/keys/current at start):
// the title bars say whose it is, and a key bound to a trainer starts the
// dashboard and the list on that trainer's trainees ("mine"); m shows all
// of the company's and back, unless the key is limited to its trainer's
// trainees (ownTraineesOnly).

// BoundTrainer is the trainer the key in use acts as (0: none, or not
// known), that trainer's name as shown (escaped), and whether the key is
// limited to the trainer's trainees.
func (c *Common) BoundTrainer() (id int64, name string, only bool) {
	k := c.Opt.Key
	if k == nil || k.TrainerID == nil {
		return 0, "", false
	}
	name = TrainerName(c.Trainers, k.TrainerID)
	if k.TrainerName != nil {
		name = api.EscapeText(*k.TrainerName)
	}
	return *k.TrainerID, name, k.OwnTraineesOnly
}

// Limited reports whether the key in use is known to be limited to its
// trainer's trainees (ownTraineesOnly): the company's webhooks and
// automations are refused it.
func (c *Common) Limited() bool {
	_, _, only := c.BoundTrainer()
	return only
}

// IsAdmin reports whether the key in use may administer the company;
// known says whether its scope is known at all (a nil Key: the server is
// asked, and says).
func (c *Common) IsAdmin() (admin, known bool) {
	if c.Opt.Key == nil {
		return false, false
	}
	return api.ScopeIncludes(c.Opt.Key.Scope, api.KeyScopeAdmin), true
}

// Identity is whose key is in use, in at most room cells: "Demo Fitness ·
// Sam Coach (full)" (the trainer's name for a key bound to one, else the
// key's; "(full, own trainees)" for a key limited to its trainer's
// trainees), without the company when that does not fit, the limit
// shortened to "own" next, the name cut with "…" when even that does not
// fit; "" when the key is not known or too little fits.
func (c *Common) Identity(room int) string {
	k := c.Opt.Key
	if k == nil {
		return ""
	}
	who := api.EscapeText(k.Name)
	if _, name, _ := c.BoundTrainer(); name != "" {
		who = name
	}
	scopes := []string{""} // from the longest to the shortest
	if k.Scope != "" {
		scopes = []string{" (" + api.EscapeText(k.Scope) + ")"}
	}
	if k.OwnTraineesOnly {
		scope := strings.TrimSuffix(strings.TrimPrefix(scopes[0], " ("), ")")
		if scope != "" {
			scope += ", "
		}
		scopes = []string{" (" + scope + "own trainees)", " (" + scope + "own)"}
	}
	if k.CompanyName != "" {
		if full := api.EscapeText(k.CompanyName) + " · " + who + scopes[0]; ansi.StringWidth(full) <= room {
			return full
		}
	}
	for _, scope := range scopes {
		if ansi.StringWidth(who+scope) <= room {
			return who + scope
		}
	}
	const least = 6 // cells of the name worth showing
	scope := scopes[len(scopes)-1]
	if room-ansi.StringWidth(scope) < least {
		return ""
	}
	return layout.Trunc(who, room-ansi.StringWidth(scope)) + scope
}

// TopBar is a page's title bar: left, right, and, before right, whose key
// is in use when there is room for it (at least two spaces after left):
// the page's own words never give way to it.
func (c *Common) TopBar(left, right string) string {
	room := c.Width - ansi.StringWidth(left) - ansi.StringWidth(right) - 3
	if id := c.Identity(room); id != "" {
		right = c.Th.Dim.Render(id) + " " + right
	}
	return c.TitleBar(left, right)
}

// Whose is what the dashboard and the list show for a key bound to a
// trainer: "my trainees" or "all trainees"; "" for another key.
func (c *Common) Whose() string {
	if id, _, _ := c.BoundTrainer(); id == 0 {
		return ""
	}
	if c.Mine != 0 {
		return "my trainees"
	}
	return "all trainees"
}

// Widens reports whether m switches between the key's trainer's trainees
// and all: for a key bound to a trainer, not limited to its trainees.
func (c *Common) Widens() bool { return c.Whose() != "" && !c.Limited() }

// Capitalized is s with its first letter upper-case.
func Capitalized(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Zone is where the TUI shows instants (Options.Zone, else local).
func (c *Common) Zone() *time.Location {
	if c.Opt.Zone != nil {
		return c.Opt.Zone
	}
	return time.Local
}
