package list

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/keymap"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/internal/common"
)

func (l *Model) listKey(msg tea.KeyPressMsg) tea.Cmd {
	if cmd, ok := keymap.Route(msg, l.keyRoutes()); ok {
		return cmd
	}
	cmd, _ := l.moveCursor(msg)
	return cmd
}

// keyRoutes is the list's key table (the navigation keys are moveCursor's).
func (l *Model) keyRoutes() []keymap.KeyRoute {
	k, nav := l.Keys, l.Nav
	selected := func() *api.Trainee { return l.Selected() }
	return []keymap.KeyRoute{
		keymap.On(func(tea.KeyPressMsg) tea.Cmd { return nav.OpenTrainee(selected()) }, k.Open),
		keymap.On(keymap.Then(l.startSearch), k.Search),
		keymap.On(func(tea.KeyPressMsg) tea.Cmd { l.toggleMark(selected()); l.move(1); return l.MaybeLoadMore() }, k.Mark),
		keymap.On(keymap.Then(l.MarkEvery), k.MarkAll),
		keymap.On(keymap.Done(l.act), k.Act),
		keymap.OnIf(func() bool { return len(l.Marks) > 0 }, keymap.Done(l.Unmark), k.Back),
		keymap.On(keymap.Then(l.back), k.Back),
		keymap.On(func(tea.KeyPressMsg) tea.Cmd { return l.setStatusTab((l.Status + 1) % len(Statuses)) }, k.NextTab),
		keymap.On(func(tea.KeyPressMsg) tea.Cmd { return l.setStatusTab((l.Status + len(Statuses) - 1) % len(Statuses)) }, k.PrevTab),
		keymap.On(func(msg tea.KeyPressMsg) tea.Cmd { return l.setStatusTab(int(msg.String()[0] - '1')) }, k.Status),
		keymap.On(keymap.Then(l.nextSort), k.Sort),
		keymap.On(func(tea.KeyPressMsg) tea.Cmd { l.SortDesc = !l.SortDesc; return l.Reload(false) }, k.SortDir),
		keymap.On(func(tea.KeyPressMsg) tea.Cmd { return l.Reload(true) }, k.Refresh),
		keymap.On(keymap.Then(nav.OpenWebhooks), k.Webhooks),
		keymap.OnIf(func() bool { return l.Opt.ReadOnly }, keymap.Done(func() { l.ReadOnlyRefusal("changing trainees") }),
			k.New, k.Edit, k.Delete, k.Restore),
		keymap.On(func(tea.KeyPressMsg) tea.Cmd { return nav.OpenForm(nil, common.ScreenList) }, k.New),
		keymap.On(keymap.Then(l.edit), k.Edit),
		keymap.On(keymap.Done(func() { nav.AskDelete(selected()) }), k.Delete),
		keymap.On(func(tea.KeyPressMsg) tea.Cmd { return nav.Restore(selected()) }, k.Restore),
		keymap.On(keymap.Then(nav.OpenAutomations), k.Automations),
		keymap.OnIf(l.Widens, keymap.Then(nav.ToggleMine), k.Mine),
	}
}

// startSearch is /: the search line takes the keys.
func (l *Model) startSearch() tea.Cmd {
	l.Searching = true
	l.Input.SetValue(l.Query)
	l.Input.CursorEnd()
	return l.Input.Focus()
}

// act is the bulk action's key: the : line over the marked trainees.
func (l *Model) act() {
	if l.ReadOnlyRefusal("changing trainees") {
		return
	}
	if len(l.Marks) == 0 {
		l.SetStatus(statusline.StatusInfo, "Nothing is marked: space marks a trainee, ctrl+a every trainee of the view.")
		return
	}
	l.Nav.OpenActions()
}

// back is esc without marks: the search goes, then the filter, then the
// list (to the home page).
func (l *Model) back() tea.Cmd {
	switch {
	case l.Query != "":
		l.Query = ""
		l.Input.SetValue("")
		return l.Reload(false)
	case l.filter != (common.ListFilter{}):
		l.filter = common.ListFilter{}
		return l.Reload(false)
	}
	return l.Nav.OpenHome()
}

func (l *Model) nextSort() tea.Cmd {
	l.Sort = (l.Sort + 1) % len(sortKeys)
	l.SortDesc = false
	return l.Reload(false)
}

func (l *Model) edit() tea.Cmd {
	if t := l.Selected(); t != nil {
		return l.Nav.OpenForm(t, common.ScreenList)
	}
	return nil
}

// moveCursor handles the navigation keys; it reports false for others.
func (l *Model) moveCursor(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := l.Keys
	page := max(l.RowsH-1, 1)
	l.toEnd = false
	switch {
	case key.Matches(msg, k.Up):
		l.move(-1)
	case key.Matches(msg, k.Down):
		l.move(1)
	case key.Matches(msg, k.PageUp):
		l.move(-page)
	case key.Matches(msg, k.PageDown):
		l.move(page)
	case key.Matches(msg, k.HalfUp):
		l.move(-page / 2)
	case key.Matches(msg, k.HalfDown):
		l.move(page / 2)
	case key.Matches(msg, k.Top):
		l.move(-len(l.Items))
	case key.Matches(msg, k.Bottom):
		l.move(len(l.Items))
		if l.Loaded && l.next < l.pages {
			l.toEnd = true // the real end: read the rest
			l.SetStatus(statusline.StatusInfo, "Loading to the last trainee…")
		}
	default:
		return nil, false
	}
	return l.MaybeLoadMore(), true
}

func (l *Model) setStatusTab(i int) tea.Cmd {
	if i < 0 || i >= len(Statuses) || i == l.Status && l.Loaded {
		return nil
	}
	l.Status = i
	l.ViewChanged()
	return l.Reload(false)
}

func (l *Model) searchKey(msg tea.KeyPressMsg) tea.Cmd {
	k := l.Keys
	switch {
	case key.Matches(msg, k.SearchDone):
		l.Searching = false
		l.Input.Blur()
		return l.applySearch()
	case key.Matches(msg, k.SearchClear):
		l.Searching = false
		l.Input.Blur()
		l.Input.SetValue("")
		return l.applySearch()
	case key.Matches(msg, l.Keys.SearchHelp().Full[1]...): // the arrows and page keys
		cmd, _ := l.moveCursor(msg)
		return cmd
	}
	before := l.Input.Value()
	var cmd tea.Cmd
	l.Input, cmd = l.Input.Update(msg)
	if l.Input.Value() == before {
		return cmd
	}
	l.typed++
	if l.Opt.Debounce < 0 {
		return tea.Batch(cmd, l.debounced(DebounceMsg{l.typed}))
	}
	n := l.typed
	return tea.Batch(cmd, tea.Tick(l.Opt.Debounce, func(time.Time) tea.Msg { return DebounceMsg{n} }))
}

// debounced runs the search once the user paused typing.
func (l *Model) debounced(msg DebounceMsg) tea.Cmd {
	if msg.n != l.typed {
		return nil // more keys came since
	}
	return l.applySearch()
}

func (l *Model) applySearch() tea.Cmd {
	q := strings.TrimSpace(l.Input.Value())
	if q == l.Query {
		return nil
	}
	l.Query = q
	l.ViewChanged()
	return l.Reload(false)
}

// Key handles the list's keys, or the search's while it is typed.
func (l *Model) Key(msg tea.KeyPressMsg) tea.Cmd {
	if l.Searching {
		return l.searchKey(msg)
	}
	return l.listKey(msg)
}
