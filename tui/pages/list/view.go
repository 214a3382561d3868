package list

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/requests"
	"github.com/traineed/traineed/tui/components/theme"
	"github.com/traineed/traineed/tui/internal/common"
)

// Resize lays the columns out for width w and h lines (header included);
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
	return [colCount]string{layout.PadLeft(strconv.FormatInt(t.ID, 10), l.widths[colID]), api.EscapeText(t.Name), api.EscapeText(t.Email), phone, trainer, status, layout.DateOrDash(t.ExpirationDate), layout.DateOrDash(t.LastTrained)}
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
