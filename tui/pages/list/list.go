package list

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

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
	{api.SortID, "id", colID},
	{api.SortName, "name", colName},
	{api.SortEmail, "e-mail", colEmail},
	{api.SortExpirationDate, "expires", colExpires},
	{api.SortLastTrained, "last trained", colTrained},
}

// Columns of the trainee table.
const (
	colID = iota // two trainees of one name are told apart by it
	colName
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
	{"ID", 4, 7},
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

	// Marks are the marked trainees (space, ctrl+a) by id, for a bulk
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

func (l *Model) sortParam() string {
	p := sortKeys[l.Sort].param
	if l.SortDesc {
		return p + ",desc"
	}
	return p + ",asc"
}

// move moves the cursor by n rows (clamped) and keeps it in view.
func (l *Model) move(n int) {
	l.Cursor = min(max(l.Cursor+n, 0), max(len(l.Items)-1, 0))
	l.Follow()
}

// Follow scrolls so that the cursor is in view.
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

// Replace puts the new state of a trainee in the list, or takes it out when
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

// DebounceMsg fires after the user stopped typing in the search.
type DebounceMsg struct{ n int }

// Reload starts the search again from page 0 (new query, status or
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

// MaybeLoadMore reads the next page when the cursor is within a screenful
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

// Update takes the pages of the search, the pause after typing, and while
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

// LiveChange shows the new state of t, which a client just changed (live
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

// Show shows the status tab status narrowed by f, read again from the
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
