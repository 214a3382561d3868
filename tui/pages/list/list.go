package list

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/components/keymap"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/requests"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/components/theme"
	"github.com/traineed/traineed/tui/internal/common"
)

// statuses are the list's status tabs, in order.
var Statuses = []string{api.StatusLive, api.StatusActive, api.StatusExpired, api.StatusDeleted, api.StatusAll}

// sortKey is a server-side sort and the column it belongs to.
type sortKey struct {
	param, label string
	column       int // index in listColumns, -1 for none
}

var sortKeys = []sortKey{
	{api.SortID, "id", -1},
	{api.SortName, "name", colName},
	{api.SortEmail, "e-mail", colEmail},
	{api.SortExpirationDate, "expires", colExpires},
	{api.SortLastTrained, "last trained", colTrained},
}

// Columns of the trainee table.
const (
	colName = iota
	colEmail
	colPhone
	colTrainer
	colStatus
	colExpires
	colTrained
	colCount
)

type listColumn struct {
	title    string
	min, max int
}

var listColumns = [colCount]listColumn{
	{"Name", 12, 32},
	{"E-mail", 13, 36},
	{"Phone", 13, 16},
	{"Trainer", 7, 16},
	{"Status", 7, 7},
	{"Expires", 10, 10},
	{"Trained", 10, 12},
}

// dropOrder is the order columns are dropped in when the terminal is too
// narrow for all of them.
var dropOrder = []int{colPhone, colTrainer, colTrained, colExpires}

// listModel is the list page: every trainee of the company, a page of the
// search at a time, by status tab, sorted on the server, searched as typed.
type Model struct {
	*common.Common

	Items   []*api.Trainee
	ids     map[int64]bool
	visible [colCount]bool
	widths  [colCount]int
	Cursor  int               // index in items
	Offset  int               // first row shown
	RowsH   int               // rows shown
	Lines   map[int64]string  // rendered rows (unselected) by trainee id
	chrome  map[string]string // rendered header lines by what they show

	Total  int64
	exact  bool // whether total is exact, not a lower bound
	pages  int  // totalPages of the last page read
	next   int  // next page to load
	gen    int  // increments with every new query
	Loaded bool
	keep   bool // keep the cursor where it is when page 0 arrives
	// toEnd: G was pressed before every page was read: pages are read
	// one after another and the cursor follows to the real last row.
	toEnd bool

	Query     string // the query the list shows
	Input     textinput.Model
	Searching bool
	typed     int // counts search edits, for the debounce

	Status   int
	filter   common.ListFilter // what the dashboard's count narrows the tab to
	Sort     int
	SortDesc bool

	// marks are the marked trainees (space, ctrl+a) by id, for a bulk
	// action; markAll: ctrl+a was pressed before every page was read:
	// each page read is marked too.
	Marks   map[int64]*api.Trainee
	markAll bool
	// marksDropped is how many marks the last view change dropped: its
	// note is said again once the new view's first page arrives (moving
	// the cursor there would clear it).
	marksDropped int
	// changed are the rows live mode saw change (another client's
	// create, update, delete or restore): they carry a marker until the
	// list is read again.
	changed map[int64]bool
}

func New(cm *common.Common) Model {
	in := textinput.New()
	in.Prompt = "/ "
	in.Placeholder = "name, e-mail or phone"
	in.CharLimit = 100
	in.SetWidth(40)
	return Model{Common: cm, Input: in, ids: map[int64]bool{}, RowsH: 1, Lines: map[int64]string{}, chrome: map[string]string{},
		Marks: map[int64]*api.Trainee{}, changed: map[int64]bool{}}
}

func (l *Model) Restyle(th theme.Theme) {
	st := th.InputStyles()
	st.Blurred.Prompt = th.Dim
	l.Input.SetStyles(st)
	clear(l.Lines)
	clear(l.chrome)
}

// resize lays the columns out for width w and h lines (header included);
// the first cell of each line is the gutter, where a marked or changed row
// shows its marker. The list of one trainer's trainees (mine) has no
// trainer column: every row would name the same one.
func (l *Model) Resize(w, h int) {
	w--
	for i := range l.visible {
		l.visible[i] = i != colTrainer || l.Mine == 0
	}
	for _, c := range dropOrder {
		if l.colsNeed() <= w {
			break
		}
		l.visible[c] = false
	}
	spare := max(w-l.colsNeed(), 0)
	for i, c := range listColumns {
		l.widths[i] = 0
		if l.visible[i] {
			l.widths[i] = c.min
		}
	}
	// Spare room goes to the name and the e-mail, then to the rest.
	for _, grow := range [][]int{{colName, colEmail, colTrainer}, {colPhone, colTrained}} {
		spare = l.growCols(grow, spare)
	}
	l.widths[colName] += spare
	l.RowsH = max(h-1, 1)
	clear(l.Lines)
	clear(l.chrome)
	l.Follow()
}

// colsNeed is the width of the visible columns at their minimums.
func (l *Model) colsNeed() int {
	n := 0
	for i, c := range listColumns {
		if l.visible[i] {
			n += c.min + 1
		}
	}
	return n
}

// growCols widens the visible columns of grow one cell at a time, in
// turn, up to their maximums while spare lasts; it returns what is left.
func (l *Model) growCols(grow []int, spare int) int {
	for spare > 0 {
		grew := false
		for _, c := range grow {
			if spare > 0 && l.visible[c] && l.widths[c] < listColumns[c].max {
				l.widths[c]++
				spare--
				grew = true
			}
		}
		if !grew {
			break
		}
	}
	return spare
}

func (l *Model) arrow() string {
	if l.SortDesc {
		return "▼"
	}
	return "▲"
}

func (l *Model) sortParam() string {
	p := sortKeys[l.Sort].param
	if l.SortDesc {
		return p + ",desc"
	}
	return p + ",asc"
}

// cells are the values of t's row, escaped (api.EscapeText); the status is
// a coloured badge unless the row is selected (the highlight colours it).
func (l *Model) cells(t *api.Trainee, selected bool, th theme.Theme) [colCount]string {
	phone := "-"
	if t.PhoneNumber != nil {
		phone = api.EscapeText(*t.PhoneNumber)
	}
	trainer := common.TrainerName(l.Trainers, t.TrainerID)
	status := t.Status(l.Today())
	if !selected {
		status = th.Badge(status)
	}
	return [colCount]string{api.EscapeText(t.Name), api.EscapeText(t.Email), phone, trainer, status, layout.DateOrDash(t.ExpirationDate), layout.DateOrDash(t.LastTrained)}
}

// Row markers in the gutter.
const (
	markMarked  = "✓"
	MarkChanged = "•"
)

// gutter is the marker of t's row: marked, changed by another client, or
// none.
func (l *Model) gutter(id int64) string {
	switch {
	case l.Marks[id] != nil:
		return markMarked
	case l.changed[id]:
		return MarkChanged
	}
	return " "
}

// line lays cells out in the visible columns, after the gutter g.
func (l *Model) line(g string, cells [colCount]string) string {
	var b strings.Builder
	b.WriteString(g)
	for i, c := range cells {
		if !l.visible[i] {
			continue
		}
		w := l.widths[i]
		b.WriteString(layout.PadRight(ansi.Truncate(c, w, "…"), w) + " ")
	}
	return b.String()
}

// tableView renders the header and the rows in view.
func (l *Model) tableView(th theme.Theme) string {
	var hdr [colCount]string
	for i, c := range listColumns {
		hdr[i] = c.title
		if sortKeys[l.Sort].column == i {
			hdr[i] += " " + l.arrow()
		}
	}
	var b strings.Builder
	b.WriteString(l.cached("header", l.Sort, l.SortDesc, func() string { return th.Header.Render(l.line(" ", hdr)) }))
	for i := l.Offset; i < min(l.Offset+l.RowsH, len(l.Items)); i++ {
		b.WriteString("\n")
		t := l.Items[i]
		if i == l.Cursor {
			b.WriteString(th.Selected.Render(l.line(l.gutter(t.ID), l.cells(t, true, th))))
			continue
		}
		s, ok := l.Lines[t.ID]
		if !ok {
			g := l.gutter(t.ID)
			if g != " " {
				g = th.Accent.Render(g)
			}
			s = l.line(g, l.cells(t, false, th))
			l.Lines[t.ID] = s
		}
		b.WriteString(s)
	}
	return b.String()
}

// cached returns the line named by parts, drawing it once.
func (l *Model) cached(name string, a, b any, draw func() string) string {
	k := fmt.Sprint(name, a, b)
	s, ok := l.chrome[k]
	if !ok {
		s = draw()
		l.chrome[k] = s
	}
	return s
}

// move moves the cursor by n rows (clamped) and keeps it in view.
func (l *Model) move(n int) {
	l.Cursor = min(max(l.Cursor+n, 0), max(len(l.Items)-1, 0))
	l.Follow()
}

// follow scrolls so that the cursor is in view.
func (l *Model) Follow() {
	l.Cursor = min(max(l.Cursor, 0), max(len(l.Items)-1, 0))
	if l.Cursor < l.Offset {
		l.Offset = l.Cursor
	}
	if l.Cursor >= l.Offset+l.RowsH {
		l.Offset = l.Cursor - l.RowsH + 1
	}
	l.Offset = max(min(l.Offset, len(l.Items)-l.RowsH), 0)
}

func (l *Model) Selected() *api.Trainee {
	if l.Cursor < 0 || l.Cursor >= len(l.Items) {
		return nil
	}
	return l.Items[l.Cursor]
}

// matches reports whether t belongs in the list's status tab.
func MatchesStatus(t *api.Trainee, status string, today api.Date) bool {
	return t.HasStatus(status, today)
}

// belongs reports whether t belongs in the list's view: its status tab,
// and its trainer when the list shows one trainer's trainees (mine).
func (l *Model) belongs(t *api.Trainee) bool {
	if l.Mine != 0 && (t.TrainerID == nil || *t.TrainerID != l.Mine) {
		return false
	}
	return MatchesStatus(t, Statuses[l.Status], l.Today())
}

// replace puts the new state of a trainee in the list, or takes it out when
// it no longer belongs to the view (its status tab, its trainer).
func (l *Model) Replace(t *api.Trainee) {
	delete(l.Lines, t.ID)
	for i, it := range l.Items {
		if it.ID != t.ID {
			continue
		}
		if l.belongs(t) {
			l.Items[i] = t
		} else {
			l.Items = append(l.Items[:i], l.Items[i+1:]...)
			delete(l.ids, t.ID)
			l.Total--
		}
		l.Follow()
		return
	}
}

// listPage is the answer to one search.
type listPage struct {
	gen, page int
	pg        *api.TraineePage
}

// debounceMsg fires after the user stopped typing in the search.
type DebounceMsg struct{ n int }

// reload starts the search again from page 0 (new query, status or
// sort); keep leaves the cursor where it is.
func (l *Model) Reload(keep bool) tea.Cmd {
	l.gen++
	l.markAll = false
	clear(l.changed)
	l.toEnd = false
	l.keep = keep
	return l.loadPage(0)
}

func (l *Model) loadPage(page int) tea.Cmd {
	p := client.SearchParams{Query: l.Query, Status: Statuses[l.Status], Page: page, Size: l.Opt.PageSize, Sort: l.sortParam(),
		TrainerID: l.Mine}
	l.filter.Apply(&p)
	gen := l.gen
	c := l.C
	return l.Call(requests.SlotList, func(ctx context.Context) (any, error) {
		pg, err := c.SearchTrainees(ctx, p)
		return listPage{gen: gen, page: page, pg: pg}, err
	})
}

func (l *Model) result(msg requests.ResultMsg) tea.Cmd {
	lp := msg.Val.(listPage)
	if lp.gen != l.gen {
		l.Dropped++
		return nil
	}
	if lp.page == 0 {
		l.Items = l.Items[:0]
		clear(l.ids)
		clear(l.Lines)
		if !l.keep {
			l.Cursor, l.Offset = 0, 0
		}
	}
	for _, t := range lp.pg.Content {
		if !l.ids[t.ID] { // a trainee created meanwhile may shift a page
			l.ids[t.ID] = true
			l.Items = append(l.Items, t)
			if l.markAll {
				l.Marks[t.ID] = t
			}
		}
	}
	l.Total, l.exact = lp.pg.Page.TotalElements, lp.pg.Page.TotalExact
	l.pages = lp.pg.Page.TotalPages
	l.next = lp.page + 1
	if len(lp.pg.Content) == 0 {
		l.next = l.pages // nothing more to read
	}
	l.Loaded = true
	if l.toEnd {
		l.Cursor = len(l.Items) - 1
		if l.next >= l.pages {
			l.toEnd = false
		}
	}
	l.Follow()
	if lp.page == 0 && l.marksDropped > 0 {
		l.sayMarksDropped()
		l.marksDropped = 0
	}
	if l.markAll {
		if l.next < l.pages {
			return l.loadPage(l.next) // every row of the filter
		}
		l.markAll = false
		l.SetStatus(statusline.StatusInfo, "Marked all %s of this view: x acts on them, esc unmarks.", layout.Plural(len(l.Marks), "trainee"))
	}
	return l.MaybeLoadMore()
}

// maybeLoadMore reads the next page when the cursor is within a screenful
// of the end of what is loaded.
func (l *Model) MaybeLoadMore() tea.Cmd {
	if !l.Loaded || l.next >= l.pages || l.Loading(requests.SlotList) {
		return nil
	}
	if l.Cursor < len(l.Items)-max(l.RowsH, 10) {
		return nil
	}
	return l.loadPage(l.next)
}

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

// viewChanged drops the marks when the tab, the filter or the search
// changes (as k9s drops its selection on a change of view): a bulk
// action acts only on trainees the list shows marked.
func (l *Model) ViewChanged() {
	l.marksDropped = 0
	if len(l.Marks) == 0 {
		return
	}
	n := len(l.Marks)
	clear(l.Marks)
	clear(l.Lines)
	l.markAll = false
	l.marksDropped = n
	l.sayMarksDropped()
}

// sayMarksDropped says how many marks the view change dropped.
func (l *Model) sayMarksDropped() {
	l.SetStatus(statusline.StatusInfo, "%s dropped: the view changed.", layout.Plural(l.marksDropped, "mark"))
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

func (l *Model) View() (top, sub, body string) {
	th := l.Th
	tabs := l.cached("tabs", l.Status, l.Mine, func() string {
		var tabs []string
		for i, s := range Statuses {
			tabs = append(tabs, layout.TabLabel(th, s, i == l.Status))
		}
		title := "Trainees"
		if w := l.Whose(); w != "" {
			title = common.Capitalized(w) // My trainees, All trainees
		}
		return th.Title.Render(title) + "  " + strings.Join(tabs, "")
	})
	count := ""
	if l.Loaded {
		count = fmt.Sprintf("%d of %d", len(l.Items), l.Total)
		if !l.exact { // a search counts a million matches only up to a bound
			count += "+"
		}
	}
	top = l.TopBar(tabs, l.SpinnerView()+" "+count+" "+l.LiveBadge()+" ")

	sortInfo := l.cached("sort", l.Sort, l.SortDesc, func() string {
		return th.Dim.Render("sort: ") + th.Accent.Render(sortKeys[l.Sort].label+" "+l.arrow())
	})
	switch {
	case l.Searching:
		sub = l.Input.View()
	case l.Query != "":
		sub = th.Accent.Render("/ ") + api.EscapeText(l.Query) + th.Dim.Render("   (esc clears)")
	case l.filter.Label != "":
		sub = th.Accent.Render("only: ") + l.filter.Label + th.Dim.Render("   (esc clears)")
	default:
		sub = th.Dim.Render("/ to search")
	}
	sub = l.TitleBar(sub, sortInfo+" ")

	switch {
	case !l.Loaded && l.Loading(requests.SlotList):
		body = l.LoadingLine("trainees")
	case l.Loaded && len(l.Items) == 0:
		what := "No " + Statuses[l.Status] + " trainees"
		if l.Mine != 0 {
			_, name, _ := l.BoundTrainer()
			what = "No " + Statuses[l.Status] + " trainees of " + name
		}
		if l.Query != "" {
			what += fmt.Sprintf(" match %q", l.Query)
		}
		body = l.NoteLine(what + ".")
	default:
		body = l.tableView(th)
	}
	return top, sub, body
}

// key handles the list's keys, or the search's while it is typed.
func (l *Model) Key(msg tea.KeyPressMsg) tea.Cmd {
	if l.Searching {
		return l.searchKey(msg)
	}
	return l.listKey(msg)
}

// update takes the pages of the search, the pause after typing, and while
// the search is typed what comes for its input.
func (l *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case requests.ResultMsg:
		if r, ok := l.Answer(msg); ok {
			return l.result(r)
		}
		return nil
	case DebounceMsg:
		return l.debounced(msg)
	}
	if !l.Searching {
		return nil
	}
	var cmd tea.Cmd
	l.Input, cmd = l.Input.Update(msg)
	return cmd
}

func (l *Model) Help() keymap.HelpKeys {
	if l.Searching {
		return l.Keys.SearchHelp()
	}
	return l.Keys.ListHelp(l.Opt.ReadOnly, l.Selected(), len(l.Marks), l.Whose(), l.Limited())
}

func (l *Model) TakesKeys() bool { return l.Searching }

func (l *Model) Shows() (*api.Trainee, int) { return l.Selected(), 0 }

// toggleMark marks t, or unmarks it.
func (l *Model) toggleMark(t *api.Trainee) {
	if t == nil {
		return
	}
	delete(l.Lines, t.ID)
	if l.Marks[t.ID] != nil {
		delete(l.Marks, t.ID)
		return
	}
	l.Marks[t.ID] = t
}

// markEvery marks every row of the view (its status, search and sort):
// the pages not read yet are read first.
func (l *Model) MarkEvery() tea.Cmd {
	for _, t := range l.Items {
		l.Marks[t.ID] = t
	}
	clear(l.Lines)
	if !l.Loaded || l.next >= l.pages {
		l.SetStatus(statusline.StatusInfo, "Marked all %s of this view: x acts on them, esc unmarks.", layout.Plural(len(l.Marks), "trainee"))
		return nil
	}
	l.markAll = true
	l.SetStatus(statusline.StatusInfo, "Marking every trainee of this view: reading the rest…")
	if l.Loading(requests.SlotList) {
		return nil
	}
	return l.loadPage(l.next)
}

// unmark drops every mark.
func (l *Model) Unmark() {
	clear(l.Marks)
	clear(l.Lines)
	l.markAll = false
	l.SetStatus(statusline.StatusInfo, "Unmarked.")
}

// marked is the marked trainees, in the list's order where loaded.
func (l *Model) Marked() []*api.Trainee {
	out := make([]*api.Trainee, 0, len(l.Marks))
	seen := map[int64]bool{}
	for _, t := range l.Items {
		if m := l.Marks[t.ID]; m != nil {
			out = append(out, t)
			seen[t.ID] = true
		}
	}
	for id, t := range l.Marks {
		if !seen[id] {
			out = append(out, t)
		}
	}
	return out
}

// FooterNote is the count of marked rows, before the help line.
func (l *Model) FooterNote() string {
	if len(l.Marks) == 0 {
		return ""
	}
	return fmt.Sprintf("%d marked", len(l.Marks))
}

// liveChange shows the new state of t, which a client just changed (live
// mode): its row is replaced (or leaves a status tab it no longer
// belongs to) and marked as changed; a trainee new to the tab is put in
// its place by the sort among the rows read, unless a search is shown
// (the server decides what matches) or its place is in a page not read
// yet.
func (l *Model) LiveChange(t *api.Trainee, created bool) {
	l.changed[t.ID] = true
	if l.Marks[t.ID] != nil {
		l.Marks[t.ID] = t
	}
	if l.ids[t.ID] {
		l.Replace(t)
		return
	}
	if !l.Loaded || l.Query != "" || !l.belongs(t) {
		return
	}
	l.Total++
	i, _ := slices.BinarySearchFunc(l.Items, t, l.compare)
	if i == len(l.Items) && l.next < l.pages {
		return // it comes with a later page
	}
	l.Items = slices.Insert(l.Items, i, t)
	l.ids[t.ID] = true
	if i <= l.Cursor && len(l.Items) > 1 {
		l.Cursor++ // the selection stays on its trainee
	}
	l.Follow()
}

// compare orders two trainees as the list's sort does (names and
// e-mails without regard to case; a missing date last), then by id.
func (l *Model) compare(a, b *api.Trainee) int {
	c := 0
	switch sortKeys[l.Sort].param {
	case api.SortName:
		c = strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	case api.SortEmail:
		c = strings.Compare(strings.ToLower(a.Email), strings.ToLower(b.Email))
	case api.SortExpirationDate:
		c = compareDates(a.ExpirationDate, b.ExpirationDate)
	case api.SortLastTrained:
		c = compareDates(a.LastTrained, b.LastTrained)
	}
	if c == 0 {
		c = cmp.Compare(a.ID, b.ID)
	}
	if l.SortDesc {
		return -c
	}
	return c
}

func compareDates(a, b *api.Date) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return a.Time().Compare(b.Time())
}

// show shows the status tab status narrowed by f, read again from the
// start (the search is cleared).
func (l *Model) Show(status string, f common.ListFilter) tea.Cmd {
	l.Status = max(slices.Index(Statuses, status), 0)
	l.filter = f
	l.Query = ""
	l.Input.SetValue("")
	l.Searching = false
	l.Input.Blur()
	l.ViewChanged()
	return l.Reload(false)
}
