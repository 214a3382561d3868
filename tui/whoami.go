package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/traineed/traineed/api"
)

// The key in use (Options.Key, GET /public-api/keys/current at start):
// the title bars say whose it is, and a key bound to a trainer starts the
// dashboard and the list on that trainer's trainees ("mine"); m shows all
// of the company's and back, unless the key is limited to its trainer's
// trainees (ownTraineesOnly).

// boundTrainer is the trainer the key in use acts as (0: none, or not
// known), that trainer's name as shown (escaped), and whether the key is
// limited to the trainer's trainees.
func (c *common) boundTrainer() (id int64, name string, only bool) {
	k := c.opt.Key
	if k == nil || k.TrainerID == nil {
		return 0, "", false
	}
	name = trainerName(c.trainers, k.TrainerID)
	if k.TrainerName != nil {
		name = api.EscapeText(*k.TrainerName)
	}
	return *k.TrainerID, name, k.OwnTraineesOnly
}

// limited reports whether the key in use is known to be limited to its
// trainer's trainees (ownTraineesOnly): the company's webhooks and
// automations are refused it.
func (c *common) limited() bool {
	_, _, only := c.boundTrainer()
	return only
}

// isAdmin reports whether the key in use may administer the company;
// known says whether its scope is known at all (a nil Key: the server is
// asked, and says).
func (c *common) isAdmin() (admin, known bool) {
	if c.opt.Key == nil {
		return false, false
	}
	return api.ScopeIncludes(c.opt.Key.Scope, api.KeyScopeAdmin), true
}

// identity is whose key is in use, in at most room cells: "Demo Fitness ·
// Sam Coach (full)" (the trainer's name for a key bound to one, else the
// key's; "(full, own trainees)" for a key limited to its trainer's
// trainees), without the company when that does not fit, the limit
// shortened to "own" next, the name cut with "…" when even that does not
// fit; "" when the key is not known or too little fits.
func (c *common) identity(room int) string {
	k := c.opt.Key
	if k == nil {
		return ""
	}
	who := api.EscapeText(k.Name)
	if _, name, _ := c.boundTrainer(); name != "" {
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
	return trunc(who, room-ansi.StringWidth(scope)) + scope
}

// topBar is a page's title bar: left, right, and, before right, whose key
// is in use when there is room for it (at least two spaces after left):
// the page's own words never give way to it.
func (c *common) topBar(left, right string) string {
	room := c.width - ansi.StringWidth(left) - ansi.StringWidth(right) - 3
	if id := c.identity(room); id != "" {
		right = c.th.dim.Render(id) + " " + right
	}
	return c.titleBar(left, right)
}

// whose is what the dashboard and the list show for a key bound to a
// trainer: "my trainees" or "all trainees"; "" for another key.
func (c *common) whose() string {
	if id, _, _ := c.boundTrainer(); id == 0 {
		return ""
	}
	if c.mine != 0 {
		return "my trainees"
	}
	return "all trainees"
}

// widens reports whether m switches between the key's trainer's trainees
// and all: for a key bound to a trainer, not limited to its trainees.
func (c *common) widens() bool { return c.whose() != "" && !c.limited() }

// toggleMine switches the dashboard and the list between the trainees of
// the key's trainer and all of the company's; a key limited to its
// trainer's trainees cannot show all, and says so.
func (m *Model) toggleMine() tea.Cmd {
	id, name, only := m.boundTrainer()
	switch {
	case id == 0:
		m.setStatus(statusInfo, "This key is not bound to a trainer: the dashboard and the list show all of the company's trainees.")
		return nil
	case only:
		m.setStatus(statusInfo, "This key is limited to %s's trainees (own trainees only): it cannot show all of the company's.", name)
		return nil
	case m.mine != 0:
		m.mine = 0
		m.setStatus(statusInfo, "All of the company's trainees: m shows %s's again.", name)
	default:
		m.mine = id
		m.setStatus(statusInfo, "%s's trainees: m shows all of the company's.", name)
	}
	m.list.viewChanged()
	m.list.resize(m.width, m.contentHeight()) // the trainer's column comes or goes
	return tea.Batch(m.home.reload(), m.list.reload(false))
}

// capitalized is s with its first letter upper-case.
func capitalized(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
