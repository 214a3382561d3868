package list

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/requests"
	"github.com/traineed/traineed/tui/components/statusline"
)

// ViewChanged drops the marks when the tab, the filter or the search
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

// MarkEvery marks every row of the view (its status, search and sort):
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

// Unmark drops every mark.
func (l *Model) Unmark() {
	clear(l.Marks)
	clear(l.Lines)
	l.markAll = false
	l.SetStatus(statusline.StatusInfo, "Unmarked.")
}

// Marked is the marked trainees, in the list's order where loaded.
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
