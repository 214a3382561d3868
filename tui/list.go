package tui

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
)

// statuses are the list's status tabs, in order.
var statuses = []string{api.StatusLive, api.StatusActive, api.StatusExpired, api.StatusDeleted, api.StatusAll}

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
type listModel struct {
	*common

	items   []*api.Trainee
	ids     map[int64]bool
	visible [colCount]bool
	widths  [colCount]int
	cursor  int               // index in items
	offset  int               // first row shown
	rowsH   int               // rows shown
	lines   map[int64]string  // rendered rows (unselected) by trainee id
	chrome  map[string]string // rendered header lines by what they show

	total  int64
	exact  bool // whether total is exact, not a lower bound
	pages  int  // totalPages of the last page read
	next   int  // next page to load
	gen    int  // increments with every new query
	loaded bool
	keep   bool // keep the cursor where it is when page 0 arrives
	// toEnd: G was pressed before every page was read: pages are read
	// one after another and the cursor follows to the real last row.
	toEnd bool

	query     string // the query the list shows
	input     textinput.Model
	searching bool
	typed     int // counts search edits, for the debounce

	status   int
	filter   listFilter // what the dashboard's count narrows the tab to
	sort     int
	sortDesc bool

	// marks are the marked trainees (space, ctrl+a) by id, for a bulk
	// action; markAll: ctrl+a was pressed before every page was read:
	// each page read is marked too.
	marks   map[int64]*api.Trainee
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

func newListModel(cm *common) listModel {
	in := textinput.New()
	in.Prompt = "/ "
	in.Placeholder = "name, e-mail or phone"
	in.CharLimit = 100
	in.SetWidth(40)
	return listModel{common: cm, input: in, ids: map[int64]bool{}, rowsH: 1, lines: map[int64]string{}, chrome: map[string]string{},
		marks: map[int64]*api.Trainee{}, changed: map[int64]bool{}}
}

func (l *listModel) restyle(th theme) {
	st := th.inputStyles()
	st.Blurred.Prompt = th.dim
	l.input.SetStyles(st)
	clear(l.lines)
	clear(l.chrome)
}

// resize lays the columns out for width w and h lines (header included);
// the first cell of each line is the gutter, where a marked or changed row
// shows its marker. The list of one trainer's trainees (mine) has no
// trainer column: every row would name the same one.
func (l *listModel) resize(w, h int) {
	w--
	for i := range l.visible {
		l.visible[i] = i != colTrainer || l.mine == 0
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
	l.rowsH = max(h-1, 1)
	clear(l.lines)
	clear(l.chrome)
	l.follow()
}

// colsNeed is the width of the visible columns at their minimums.
func (l *listModel) colsNeed() int {
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
func (l *listModel) growCols(grow []int, spare int) int {
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

func (l *listModel) arrow() string {
	if l.sortDesc {
		return "▼"
	}
	return "▲"
}

func (l *listModel) sortParam() string {
	p := sortKeys[l.sort].param
	if l.sortDesc {
		return p + ",desc"
	}
	return p + ",asc"
}

// cells are the values of t's row, escaped (api.EscapeText); the status is
// a coloured badge unless the row is selected (the highlight colours it).
func (l *listModel) cells(t *api.Trainee, selected bool, th theme) [colCount]string {
	phone := "-"
	if t.PhoneNumber != nil {
		phone = api.EscapeText(*t.PhoneNumber)
	}
	trainer := trainerName(l.trainers, t.TrainerID)
	status := t.Status(l.today())
	if !selected {
		status = th.badge(status)
	}
	return [colCount]string{api.EscapeText(t.Name), api.EscapeText(t.Email), phone, trainer, status, dateOrDash(t.ExpirationDate), dateOrDash(t.LastTrained)}
}

// Row markers in the gutter.
const (
	markMarked  = "✓"
	markChanged = "•"
)

// gutter is the marker of t's row: marked, changed by another client, or
// none.
func (l *listModel) gutter(id int64) string {
	switch {
	case l.marks[id] != nil:
		return markMarked
	case l.changed[id]:
		return markChanged
	}
	return " "
}

// line lays cells out in the visible columns, after the gutter g.
func (l *listModel) line(g string, cells [colCount]string) string {
	var b strings.Builder
	b.WriteString(g)
	for i, c := range cells {
		if !l.visible[i] {
			continue
		}
		w := l.widths[i]
		b.WriteString(padRight(ansi.Truncate(c, w, "…"), w) + " ")
	}
	return b.String()
}

// tableView renders the header and the rows in view.
func (l *listModel) tableView(th theme) string {
	var hdr [colCount]string
	for i, c := range listColumns {
		hdr[i] = c.title
		if sortKeys[l.sort].column == i {
			hdr[i] += " " + l.arrow()
		}
	}
	var b strings.Builder
	b.WriteString(l.cached("header", l.sort, l.sortDesc, func() string { return th.header.Render(l.line(" ", hdr)) }))
	for i := l.offset; i < min(l.offset+l.rowsH, len(l.items)); i++ {
		b.WriteString("\n")
		t := l.items[i]
		if i == l.cursor {
			b.WriteString(th.selected.Render(l.line(l.gutter(t.ID), l.cells(t, true, th))))
			continue
		}
		s, ok := l.lines[t.ID]
		if !ok {
			g := l.gutter(t.ID)
			if g != " " {
				g = th.accent.Render(g)
			}
			s = l.line(g, l.cells(t, false, th))
			l.lines[t.ID] = s
		}
		b.WriteString(s)
	}
	return b.String()
}

// cached returns the line named by parts, drawing it once.
func (l *listModel) cached(name string, a, b any, draw func() string) string {
	k := fmt.Sprint(name, a, b)
	s, ok := l.chrome[k]
	if !ok {
		s = draw()
		l.chrome[k] = s
	}
	return s
}

// move moves the cursor by n rows (clamped) and keeps it in view.
func (l *listModel) move(n int) {
	l.cursor = min(max(l.cursor+n, 0), max(len(l.items)-1, 0))
	l.follow()
}

// follow scrolls so that the cursor is in view.
func (l *listModel) follow() {
	l.cursor = min(max(l.cursor, 0), max(len(l.items)-1, 0))
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+l.rowsH {
		l.offset = l.cursor - l.rowsH + 1
	}
	l.offset = max(min(l.offset, len(l.items)-l.rowsH), 0)
}

func (l *listModel) selected() *api.Trainee {
	if l.cursor < 0 || l.cursor >= len(l.items) {
		return nil
	}
	return l.items[l.cursor]
}

// matches reports whether t belongs in the list's status tab.
func matchesStatus(t *api.Trainee, status string, today api.Date) bool {
	return t.HasStatus(status, today)
}

// belongs reports whether t belongs in the list's view: its status tab,
// and its trainer when the list shows one trainer's trainees (mine).
func (l *listModel) belongs(t *api.Trainee) bool {
	if l.mine != 0 && (t.TrainerID == nil || *t.TrainerID != l.mine) {
		return false
	}
	return matchesStatus(t, statuses[l.status], l.today())
}

// replace puts the new state of a trainee in the list, or takes it out when
// it no longer belongs to the view (its status tab, its trainer).
func (l *listModel) replace(t *api.Trainee) {
	delete(l.lines, t.ID)
	for i, it := range l.items {
		if it.ID != t.ID {
			continue
		}
		if l.belongs(t) {
			l.items[i] = t
		} else {
			l.items = append(l.items[:i], l.items[i+1:]...)
			delete(l.ids, t.ID)
			l.total--
		}
		l.follow()
		return
	}
}

// listPage is the answer to one search.
type listPage struct {
	gen, page int
	pg        *api.TraineePage
}

// debounceMsg fires after the user stopped typing in the search.
type debounceMsg struct{ n int }

// reload starts the search again from page 0 (new query, status or
// sort); keep leaves the cursor where it is.
func (l *listModel) reload(keep bool) tea.Cmd {
	l.gen++
	l.markAll = false
	clear(l.changed)
	l.toEnd = false
	l.keep = keep
	return l.loadPage(0)
}

func (l *listModel) loadPage(page int) tea.Cmd {
	p := client.SearchParams{Query: l.query, Status: statuses[l.status], Page: page, Size: l.opt.PageSize, Sort: l.sortParam(),
		TrainerID: l.mine}
	l.filter.apply(&p)
	gen := l.gen
	c := l.c
	return l.call(slotList, func(ctx context.Context) (any, error) {
		pg, err := c.SearchTrainees(ctx, p)
		return listPage{gen: gen, page: page, pg: pg}, err
	})
}

func (l *listModel) result(msg resultMsg) tea.Cmd {
	lp := msg.val.(listPage)
	if lp.gen != l.gen {
		l.dropped++
		return nil
	}
	if lp.page == 0 {
		l.items = l.items[:0]
		clear(l.ids)
		clear(l.lines)
		if !l.keep {
			l.cursor, l.offset = 0, 0
		}
	}
	for _, t := range lp.pg.Content {
		if !l.ids[t.ID] { // a trainee created meanwhile may shift a page
			l.ids[t.ID] = true
			l.items = append(l.items, t)
			if l.markAll {
				l.marks[t.ID] = t
			}
		}
	}
	l.total, l.exact = lp.pg.Page.TotalElements, lp.pg.Page.TotalExact
	l.pages = lp.pg.Page.TotalPages
	l.next = lp.page + 1
	if len(lp.pg.Content) == 0 {
		l.next = l.pages // nothing more to read
	}
	l.loaded = true
	if l.toEnd {
		l.cursor = len(l.items) - 1
		if l.next >= l.pages {
			l.toEnd = false
		}
	}
	l.follow()
	if lp.page == 0 && l.marksDropped > 0 {
		l.sayMarksDropped()
		l.marksDropped = 0
	}
	if l.markAll {
		if l.next < l.pages {
			return l.loadPage(l.next) // every row of the filter
		}
		l.markAll = false
		l.setStatus(statusInfo, "Marked all %s of this view: x acts on them, esc unmarks.", plural(len(l.marks), "trainee"))
	}
	return l.maybeLoadMore()
}

// maybeLoadMore reads the next page when the cursor is within a screenful
// of the end of what is loaded.
func (l *listModel) maybeLoadMore() tea.Cmd {
	if !l.loaded || l.next >= l.pages || l.loading(slotList) {
		return nil
	}
	if l.cursor < len(l.items)-max(l.rowsH, 10) {
		return nil
	}
	return l.loadPage(l.next)
}

func (l *listModel) listKey(msg tea.KeyPressMsg) tea.Cmd {
	if cmd, ok := route(msg, l.keyRoutes()); ok {
		return cmd
	}
	cmd, _ := l.moveCursor(msg)
	return cmd
}

// keyRoutes is the list's key table (the navigation keys are moveCursor's).
func (l *listModel) keyRoutes() []keyRoute {
	k, nav := l.keys, l.nav
	selected := func() *api.Trainee { return l.selected() }
	return []keyRoute{
		on(func(tea.KeyPressMsg) tea.Cmd { return nav.openTrainee(selected()) }, k.Open),
		on(then(l.startSearch), k.Search),
		on(func(tea.KeyPressMsg) tea.Cmd { l.toggleMark(selected()); l.move(1); return l.maybeLoadMore() }, k.Mark),
		on(then(l.markEvery), k.MarkAll),
		on(done(l.act), k.Act),
		onIf(func() bool { return len(l.marks) > 0 }, done(l.unmark), k.Back),
		on(then(l.back), k.Back),
		on(func(tea.KeyPressMsg) tea.Cmd { return l.setStatusTab((l.status + 1) % len(statuses)) }, k.NextTab),
		on(func(tea.KeyPressMsg) tea.Cmd { return l.setStatusTab((l.status + len(statuses) - 1) % len(statuses)) }, k.PrevTab),
		on(func(msg tea.KeyPressMsg) tea.Cmd { return l.setStatusTab(int(msg.String()[0] - '1')) }, k.Status),
		on(then(l.nextSort), k.Sort),
		on(func(tea.KeyPressMsg) tea.Cmd { l.sortDesc = !l.sortDesc; return l.reload(false) }, k.SortDir),
		on(func(tea.KeyPressMsg) tea.Cmd { return l.reload(true) }, k.Refresh),
		on(then(nav.openWebhooks), k.Webhooks),
		onIf(func() bool { return l.opt.ReadOnly }, done(func() { l.readOnlyRefusal("changing trainees") }),
			k.New, k.Edit, k.Delete, k.Restore),
		on(func(tea.KeyPressMsg) tea.Cmd { return nav.openForm(nil, screenList) }, k.New),
		on(then(l.edit), k.Edit),
		on(done(func() { nav.askDelete(selected()) }), k.Delete),
		on(func(tea.KeyPressMsg) tea.Cmd { return nav.restore(selected()) }, k.Restore),
		on(then(nav.openAutomations), k.Automations),
		onIf(l.widens, then(nav.toggleMine), k.Mine),
	}
}

// startSearch is /: the search line takes the keys.
func (l *listModel) startSearch() tea.Cmd {
	l.searching = true
	l.input.SetValue(l.query)
	l.input.CursorEnd()
	return l.input.Focus()
}

// act is the bulk action's key: the : line over the marked trainees.
func (l *listModel) act() {
	if l.readOnlyRefusal("changing trainees") {
		return
	}
	if len(l.marks) == 0 {
		l.setStatus(statusInfo, "Nothing is marked: space marks a trainee, ctrl+a every trainee of the view.")
		return
	}
	l.nav.openActions()
}

// back is esc without marks: the search goes, then the filter, then the
// list (to the home page).
func (l *listModel) back() tea.Cmd {
	switch {
	case l.query != "":
		l.query = ""
		l.input.SetValue("")
		return l.reload(false)
	case l.filter != (listFilter{}):
		l.filter = listFilter{}
		return l.reload(false)
	}
	return l.nav.openHome()
}

func (l *listModel) nextSort() tea.Cmd {
	l.sort = (l.sort + 1) % len(sortKeys)
	l.sortDesc = false
	return l.reload(false)
}

func (l *listModel) edit() tea.Cmd {
	if t := l.selected(); t != nil {
		return l.nav.openForm(t, screenList)
	}
	return nil
}

// moveCursor handles the navigation keys; it reports false for others.
func (l *listModel) moveCursor(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := l.keys
	page := max(l.rowsH-1, 1)
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
		l.move(-len(l.items))
	case key.Matches(msg, k.Bottom):
		l.move(len(l.items))
		if l.loaded && l.next < l.pages {
			l.toEnd = true // the real end: read the rest
			l.setStatus(statusInfo, "Loading to the last trainee…")
		}
	default:
		return nil, false
	}
	return l.maybeLoadMore(), true
}

func (l *listModel) setStatusTab(i int) tea.Cmd {
	if i < 0 || i >= len(statuses) || i == l.status && l.loaded {
		return nil
	}
	l.status = i
	l.viewChanged()
	return l.reload(false)
}

// viewChanged drops the marks when the tab, the filter or the search
// changes (as k9s drops its selection on a change of view): a bulk
// action acts only on trainees the list shows marked.
func (l *listModel) viewChanged() {
	l.marksDropped = 0
	if len(l.marks) == 0 {
		return
	}
	n := len(l.marks)
	clear(l.marks)
	clear(l.lines)
	l.markAll = false
	l.marksDropped = n
	l.sayMarksDropped()
}

// sayMarksDropped says how many marks the view change dropped.
func (l *listModel) sayMarksDropped() {
	l.setStatus(statusInfo, "%s dropped: the view changed.", plural(l.marksDropped, "mark"))
}

func (l *listModel) searchKey(msg tea.KeyPressMsg) tea.Cmd {
	k := l.keys
	switch {
	case key.Matches(msg, k.SearchDone):
		l.searching = false
		l.input.Blur()
		return l.applySearch()
	case key.Matches(msg, k.SearchClear):
		l.searching = false
		l.input.Blur()
		l.input.SetValue("")
		return l.applySearch()
	case key.Matches(msg, l.keys.searchHelp().full[1]...): // the arrows and page keys
		cmd, _ := l.moveCursor(msg)
		return cmd
	}
	before := l.input.Value()
	var cmd tea.Cmd
	l.input, cmd = l.input.Update(msg)
	if l.input.Value() == before {
		return cmd
	}
	l.typed++
	if l.opt.Debounce < 0 {
		return tea.Batch(cmd, l.debounced(debounceMsg{l.typed}))
	}
	n := l.typed
	return tea.Batch(cmd, tea.Tick(l.opt.Debounce, func(time.Time) tea.Msg { return debounceMsg{n} }))
}

// debounced runs the search once the user paused typing.
func (l *listModel) debounced(msg debounceMsg) tea.Cmd {
	if msg.n != l.typed {
		return nil // more keys came since
	}
	return l.applySearch()
}

func (l *listModel) applySearch() tea.Cmd {
	q := strings.TrimSpace(l.input.Value())
	if q == l.query {
		return nil
	}
	l.query = q
	l.viewChanged()
	return l.reload(false)
}

func (l *listModel) view() (top, sub, body string) {
	th := l.th
	tabs := l.cached("tabs", l.status, l.mine, func() string {
		var tabs []string
		for i, s := range statuses {
			tabs = append(tabs, tabLabel(th, s, i == l.status))
		}
		title := "Trainees"
		if w := l.whose(); w != "" {
			title = capitalized(w) // My trainees, All trainees
		}
		return th.title.Render(title) + "  " + strings.Join(tabs, "")
	})
	count := ""
	if l.loaded {
		count = fmt.Sprintf("%d of %d", len(l.items), l.total)
		if !l.exact { // a search counts a million matches only up to a bound
			count += "+"
		}
	}
	top = l.topBar(tabs, l.spinnerView()+" "+count+" "+l.liveBadge()+" ")

	sortInfo := l.cached("sort", l.sort, l.sortDesc, func() string {
		return th.dim.Render("sort: ") + th.accent.Render(sortKeys[l.sort].label+" "+l.arrow())
	})
	switch {
	case l.searching:
		sub = l.input.View()
	case l.query != "":
		sub = th.accent.Render("/ ") + api.EscapeText(l.query) + th.dim.Render("   (esc clears)")
	case l.filter.label != "":
		sub = th.accent.Render("only: ") + l.filter.label + th.dim.Render("   (esc clears)")
	default:
		sub = th.dim.Render("/ to search")
	}
	sub = l.titleBar(sub, sortInfo+" ")

	switch {
	case !l.loaded && l.loading(slotList):
		body = l.loadingLine("trainees")
	case l.loaded && len(l.items) == 0:
		what := "No " + statuses[l.status] + " trainees"
		if l.mine != 0 {
			_, name, _ := l.boundTrainer()
			what = "No " + statuses[l.status] + " trainees of " + name
		}
		if l.query != "" {
			what += fmt.Sprintf(" match %q", l.query)
		}
		body = l.noteLine(what + ".")
	default:
		body = l.tableView(th)
	}
	return top, sub, body
}

// key handles the list's keys, or the search's while it is typed.
func (l *listModel) key(msg tea.KeyPressMsg) tea.Cmd {
	if l.searching {
		return l.searchKey(msg)
	}
	return l.listKey(msg)
}

// update takes the pages of the search, the pause after typing, and while
// the search is typed what comes for its input.
func (l *listModel) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case resultMsg:
		if r, ok := l.answer(msg); ok {
			return l.result(r)
		}
		return nil
	case debounceMsg:
		return l.debounced(msg)
	}
	if !l.searching {
		return nil
	}
	var cmd tea.Cmd
	l.input, cmd = l.input.Update(msg)
	return cmd
}

func (l *listModel) help() helpKeys {
	if l.searching {
		return l.keys.searchHelp()
	}
	return l.keys.listHelp(l.opt.ReadOnly, l.selected(), len(l.marks), l.whose(), l.limited())
}

func (l *listModel) takesKeys() bool { return l.searching }

func (l *listModel) shows() (*api.Trainee, int) { return l.selected(), 0 }

// toggleMark marks t, or unmarks it.
func (l *listModel) toggleMark(t *api.Trainee) {
	if t == nil {
		return
	}
	delete(l.lines, t.ID)
	if l.marks[t.ID] != nil {
		delete(l.marks, t.ID)
		return
	}
	l.marks[t.ID] = t
}

// markEvery marks every row of the view (its status, search and sort):
// the pages not read yet are read first.
func (l *listModel) markEvery() tea.Cmd {
	for _, t := range l.items {
		l.marks[t.ID] = t
	}
	clear(l.lines)
	if !l.loaded || l.next >= l.pages {
		l.setStatus(statusInfo, "Marked all %s of this view: x acts on them, esc unmarks.", plural(len(l.marks), "trainee"))
		return nil
	}
	l.markAll = true
	l.setStatus(statusInfo, "Marking every trainee of this view: reading the rest…")
	if l.loading(slotList) {
		return nil
	}
	return l.loadPage(l.next)
}

// unmark drops every mark.
func (l *listModel) unmark() {
	clear(l.marks)
	clear(l.lines)
	l.markAll = false
	l.setStatus(statusInfo, "Unmarked.")
}

// marked is the marked trainees, in the list's order where loaded.
func (l *listModel) marked() []*api.Trainee {
	out := make([]*api.Trainee, 0, len(l.marks))
	seen := map[int64]bool{}
	for _, t := range l.items {
		if m := l.marks[t.ID]; m != nil {
			out = append(out, t)
			seen[t.ID] = true
		}
	}
	for id, t := range l.marks {
		if !seen[id] {
			out = append(out, t)
		}
	}
	return out
}

// FooterNote is the count of marked rows, before the help line.
func (l *listModel) FooterNote() string {
	if len(l.marks) == 0 {
		return ""
	}
	return fmt.Sprintf("%d marked", len(l.marks))
}

// liveChange shows the new state of t, which a client just changed (live
// mode): its row is replaced (or leaves a status tab it no longer
// belongs to) and marked as changed; a trainee new to the tab is put in
// its place by the sort among the rows read, unless a search is shown
// (the server decides what matches) or its place is in a page not read
// yet.
func (l *listModel) liveChange(t *api.Trainee, created bool) {
	l.changed[t.ID] = true
	if l.marks[t.ID] != nil {
		l.marks[t.ID] = t
	}
	if l.ids[t.ID] {
		l.replace(t)
		return
	}
	if !l.loaded || l.query != "" || !l.belongs(t) {
		return
	}
	l.total++
	i, _ := slices.BinarySearchFunc(l.items, t, l.compare)
	if i == len(l.items) && l.next < l.pages {
		return // it comes with a later page
	}
	l.items = slices.Insert(l.items, i, t)
	l.ids[t.ID] = true
	if i <= l.cursor && len(l.items) > 1 {
		l.cursor++ // the selection stays on its trainee
	}
	l.follow()
}

// compare orders two trainees as the list's sort does (names and
// e-mails without regard to case; a missing date last), then by id.
func (l *listModel) compare(a, b *api.Trainee) int {
	c := 0
	switch sortKeys[l.sort].param {
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
	if l.sortDesc {
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
func (l *listModel) show(status string, f listFilter) tea.Cmd {
	l.status = max(slices.Index(statuses, status), 0)
	l.filter = f
	l.query = ""
	l.input.SetValue("")
	l.searching = false
	l.input.Blur()
	l.viewChanged()
	return l.reload(false)
}
