package keymap

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
)

// KeyMap holds every binding; each screen shows its own subset in the help
// (page.help), and TestHelpNamesEveryKeyTheScreenUses fails when a
// screen reacts to a key its help does not name.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	HalfUp, HalfDown                        key.Binding
	Open, Search, Sort, SortDir, Status     key.Binding
	NextTab, PrevTab, Left, Right, Range    key.Binding
	Today                                   key.Binding
	New, Edit, Delete, Restore, Refresh     key.Binding
	Back, Help, Quit                        key.Binding
	NextField, PrevField, Save              key.Binding
	Yes, No                                 key.Binding
	SearchDone, SearchClear                 key.Binding
	StatusTab                               key.Binding // tab on the list: the next status
	Webhooks, Test, Redeliver               key.Binding
	Automations                             key.Binding // a on the list: the automations screen
	Command                                 key.Binding // : opens the command line
	Mark, MarkAll, Act                      key.Binding // marks on the list, and the bulk action
	Live                                    key.Binding // L turns live mode on and off
	Home                                    key.Binding // the dashboard
	List                                    key.Binding // l on the dashboard: the list
	Reapply, Discard                        key.Binding // a 412's question
	Mine                                    key.Binding // m: my trainees or all (a key bound to a trainer)
	Settings                                key.Binding // S on every screen: the Settings page (one meaning everywhere)
}

func NewKeyMap() KeyMap {
	b := func(keys []string, h, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(h, desc))
	}
	return KeyMap{
		Up:          b([]string{"up", "k"}, "↑/k", "up"),
		Down:        b([]string{"down", "j"}, "↓/j", "down"),
		PageUp:      b([]string{"pgup", "ctrl+b"}, "pgup", "page up"),
		PageDown:    b([]string{"pgdown", "ctrl+f"}, "pgdn", "page down"),
		HalfUp:      b([]string{"ctrl+u"}, "ctrl+u", "half page up"),
		HalfDown:    b([]string{"ctrl+d"}, "ctrl+d", "half page down"),
		Top:         b([]string{"home", "g"}, "g/home", "first"),
		Bottom:      b([]string{"end", "G"}, "G/end", "last"),
		Open:        b([]string{"enter"}, "enter", "open"),
		Search:      b([]string{"/"}, "/", "search"),
		Sort:        b([]string{"s"}, "s", "sort column"),
		SortDir:     b([]string{"o"}, "o", "reverse order"),
		Status:      b([]string{"1", "2", "3", "4", "5"}, "1-5", "status"),
		NextTab:     b([]string{"tab"}, "tab", "next tab"),
		PrevTab:     b([]string{"shift+tab"}, "shift+tab", "previous tab"),
		Left:        b([]string{"left", "h"}, "←/h", "earlier"),
		Right:       b([]string{"right", "l"}, "→/l", "later"),
		Range:       b([]string{"r"}, "r", "range"),
		Today:       b([]string{"t"}, "t", "today"),
		New:         b([]string{"n"}, "n", "new trainee"),
		Edit:        b([]string{"e"}, "e", "edit"),
		Delete:      b([]string{"d", "delete"}, "d", "delete"),
		Restore:     b([]string{"u"}, "u", "restore"),
		Refresh:     b([]string{"ctrl+r", "f5"}, "ctrl+r", "reload"),
		Back:        b([]string{"esc"}, "esc", "back"),
		Help:        b([]string{"?"}, "?", "help"),
		Quit:        b([]string{"q", "ctrl+c"}, "q", "quit"),
		NextField:   b([]string{"tab", "down", "enter"}, "tab/↓", "next field"),
		PrevField:   b([]string{"shift+tab", "up"}, "shift+tab/↑", "previous field"),
		Save:        b([]string{"ctrl+s"}, "ctrl+s", "save"),
		Yes:         b([]string{"y", "Y"}, "y", "yes"),
		No:          b([]string{"n", "N", "esc"}, "n/esc", "no"),
		SearchDone:  b([]string{"enter"}, "enter", "keep the search"),
		SearchClear: b([]string{"esc"}, "esc", "clear the search"),
		StatusTab:   b([]string{"tab"}, "tab", "status"),
		Webhooks:    b([]string{"w"}, "w", "webhooks"),
		Test:        b([]string{"t"}, "t", "send a test"),
		Redeliver:   b([]string{"r"}, "r", "redeliver event"),
		Automations: b([]string{"a"}, "a", "automations"),
		Command:     b([]string{":"}, ":", "command"),
		Mark:        b([]string{"space"}, "space", "mark"),
		MarkAll:     b([]string{"ctrl+a"}, "ctrl+a", "mark all"),
		Act:         b([]string{"x"}, "x", "act on marked"),
		Live:        b([]string{"L"}, "L", "live on/off"),
		Home:        b([]string{"H"}, "H", "home"),
		List:        b([]string{"l"}, "l", "list"),
		Reapply:     b([]string{"a"}, "a", "re-apply my edit"),
		Discard:     b([]string{"d"}, "d", "discard my edit"),
		Mine:        b([]string{"m"}, "m", "mine/all trainees"),
		Settings:    b([]string{"S"}, "S", "settings"),
	}
}

// HelpKeys is one screen's help: the short line and the full columns.
type HelpKeys struct {
	Short []key.Binding
	Full  [][]key.Binding
}

func (h HelpKeys) ShortHelp() []key.Binding { return h.Short }

func (h HelpKeys) FullHelp() [][]key.Binding { return h.Full }

// HelpLineID names what the short help line of hk shows at width w, so
// that the line is drawn again only when it changes.
func HelpLineID(hk HelpKeys, w int) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(w))
	for _, k := range hk.Short {
		if k.Enabled() {
			h := k.Help()
			b.WriteString("\x00" + h.Key + "\x01" + h.Desc)
		}
	}
	return b.String()
}

// ListHelp is the list's key map; sel is the selected trainee (nil: none)
// and marked the number of marked rows: the short line offers u restore
// on a deleted trainee, and the marks' keys while rows are marked. whose
// is the list's trainees for a key bound to a trainer (m switches), ""
// for another key; limited says the key is limited to its trainer's
// trainees (w and a need a company-wide key).
func (k KeyMap) ListHelp(readOnly bool, sel *api.Trainee, marked int, whose string, limited bool) HelpKeys {
	cmd := k.Command
	cmd.SetHelp(":", "cmd")
	fullNew, edit, del, restore, act := k.New, k.Edit, k.Delete, k.Restore, k.Act
	for _, b := range []*key.Binding{&fullNew, &edit, &del, &restore, &act} {
		b.SetEnabled(!readOnly)
	}
	pages, shortPages := k.companyPages(limited)
	short := slices.Concat([]key.Binding{k.Open, k.Search, cmd}, shortPages, []key.Binding{k.Help, k.Quit})
	switch {
	case marked > 0:
		unmark, all, actShort := k.Back, k.MarkAll, act
		unmark.SetHelp("esc", "unmark")
		all.SetHelp("ctrl+a", "all")
		actShort.SetHelp("x", "act")
		short = []key.Binding{k.Mark, all, actShort, unmark, k.Help, k.Quit}
	case sel != nil && !sel.Enabled && !readOnly:
		short = slices.Concat([]key.Binding{k.Open, restore, k.Search, cmd}, shortPages, []key.Binding{k.Help, k.Quit})
	}
	return HelpKeys{
		Short: short,
		Full: [][]key.Binding{
			{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.Bottom},
			{k.Open, k.Search, k.NextTab, k.PrevTab, k.Status, k.Sort, k.SortDir, k.mine(whose, limited)},
			{fullNew, edit, del, restore, k.Refresh, k.Mark, k.MarkAll, act},
			slices.Concat(pages, []key.Binding{k.Help, k.Back, k.Quit}),
		},
	}
}

// companyPages are w and a, the company's webhooks and automations, for
// the full help and for the short line: a key limited to its trainer's
// trainees is refused them, so the full help says they need a
// company-wide key and the short line leaves them out.
func (k KeyMap) companyPages(limited bool) (full, short []key.Binding) {
	w, a := k.Webhooks, k.Automations
	if !limited {
		return []key.Binding{w, a}, []key.Binding{w, a}
	}
	w.SetHelp("w", "webhooks (need a company-wide key)")
	a.SetHelp("a", "automations (need a company-wide key)")
	return []key.Binding{w, a}, nil
}

func (k KeyMap) WebhooksHelp(readOnly bool) HelpKeys {
	test, redeliver, sw := k.Test, k.Redeliver, k.NextTab
	test.SetEnabled(!readOnly)
	redeliver.SetEnabled(!readOnly)
	sw.SetHelp("tab", "switch")
	test.SetHelp("t", "test")
	redeliver.SetHelp("r", "redeliver")
	open := k.Open
	open.SetHelp("enter", "details")
	return HelpKeys{
		Short: []key.Binding{UpDown(k), sw, test, redeliver, k.Back, k.Help, k.Quit},
		Full: [][]key.Binding{
			{k.Up, k.Down, sw, open, k.Refresh},
			{test, redeliver},
			{k.Help, k.Back, k.Quit},
		},
	}
}

// mine is m for a key bound to a trainer (whose: the trainees shown), off
// for another key and for one limited to its trainer's trainees.
func (k KeyMap) mine(whose string, limited bool) key.Binding {
	b := k.Mine
	b.SetEnabled(whose != "" && !limited)
	if whose == "my trainees" {
		b.SetHelp("m", "show all trainees")
	} else {
		b.SetHelp("m", "show my trainees")
	}
	return b
}

// UpDown names both arrows at once on a short line.
func UpDown(k KeyMap) key.Binding {
	return key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "move"))
}

func (k KeyMap) SearchHelp() HelpKeys {
	// While typing, only the arrows and page keys move: letters are text.
	up, down := k.Up, k.Down
	up.SetKeys("up")
	down.SetKeys("down")
	up.SetHelp("↑", "up")
	down.SetHelp("↓", "down")
	pgUp, pgDown := k.PageUp, k.PageDown
	pgUp.SetKeys("pgup")
	pgDown.SetKeys("pgdown")
	return HelpKeys{
		Short: []key.Binding{k.SearchDone, k.SearchClear, up, down},
		Full:  [][]key.Binding{{k.SearchDone, k.SearchClear}, {up, down, pgUp, pgDown}},
	}
}

func (k KeyMap) FormHelp() HelpKeys {
	return HelpKeys{
		Short: []key.Binding{k.NextField, k.PrevField, k.Save, k.Back},
		Full:  [][]key.Binding{{k.NextField, k.PrevField, k.Save, k.Back}},
	}
}

func (k KeyMap) ConfirmHelp() HelpKeys {
	return HelpKeys{Short: []key.Binding{k.Yes, k.No}, Full: [][]key.Binding{{k.Yes, k.No}}}
}

// WithGlobal adds to a page's key map the keys the root handles on every
// page that does not take every key: home, the Settings page (unless the
// page names S itself, as the dashboard does), the command line, live
// mode.
func (k KeyMap) WithGlobal(hk HelpKeys, typing bool) HelpKeys {
	if typing {
		return hk
	}
	global := []key.Binding{k.Home}
	if !names(hk, "S") {
		global = append(global, k.Settings)
	}
	full := append([][]key.Binding(nil), hk.Full...)
	hk.Full = append(full, append(global, k.Command, k.Live))
	return hk
}

// names reports whether the full help of hk has a binding of key.
func names(hk HelpKeys, key string) bool {
	for _, col := range hk.Full {
		for _, b := range col {
			if slices.Contains(b.Keys(), key) {
				return true
			}
		}
	}
	return false
}

// KeyRoute is one row of a page's key table: a press that matches one of
// keys (and for which when, if set, holds) is handled by do. A page's key
// handler is its table, read in order (the first row that matches wins),
// instead of one long switch.
type KeyRoute struct {
	keys []key.Binding
	when func() bool
	do   func(msg tea.KeyPressMsg) tea.Cmd
}

// On is a row for keys; onIf one that also needs when.
func On(do func(msg tea.KeyPressMsg) tea.Cmd, keys ...key.Binding) KeyRoute {
	return KeyRoute{keys: keys, do: do}
}

func OnIf(when func() bool, do func(msg tea.KeyPressMsg) tea.Cmd, keys ...key.Binding) KeyRoute {
	return KeyRoute{keys: keys, when: when, do: do}
}

// Route runs the first row of routes that msg matches; it reports false
// when none does.
func Route(msg tea.KeyPressMsg, routes []KeyRoute) (tea.Cmd, bool) {
	for _, r := range routes {
		if key.Matches(msg, r.keys...) && (r.when == nil || r.when()) {
			return r.do(msg), true
		}
	}
	return nil, false
}

// Done wraps an action that asks for nothing after it.
func Done(f func()) func(tea.KeyPressMsg) tea.Cmd {
	return func(tea.KeyPressMsg) tea.Cmd { f(); return nil }
}

// Then wraps a command that does not need the key pressed.
func Then(f func() tea.Cmd) func(tea.KeyPressMsg) tea.Cmd {
	return func(tea.KeyPressMsg) tea.Cmd { return f() }
}
