package settings

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/components/keymap"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/requests"
	"github.com/traineed/traineed/tui/components/table"
	"github.com/traineed/traineed/tui/internal/common"
)

// The Settings page (S on the dashboard, :settings): the company's API
// keys, its trainers with their trainee counts, and its name and time
// zone, in three sections (tab, 1-3). With an admin key, keys are
// created, rotated, enabled or disabled and revoked; trainers created,
// their trainees moved to another trainer, deactivated (their trainees
// handed over first) and activated; the company's name and time zone
// edited (settings_do.go). Another key reads the trainers and the company
// (GET needs no admin key) and sees why the keys are not shown.

// Sections of the Settings page.
const (
	sectionKeys = iota
	SectionTrainers
	sectionCompany
	sectionCount
)

var sectionNames = [sectionCount]string{"Keys", "Trainers", "Company"}

// settingsModel is the Settings page.
type Model struct {
	*common.Common

	Back    common.Screen
	Section int
	Cursor  [sectionCount]int
	offset  [sectionCount]int

	apiKeys   []*api.APIKey // the company's keys, revoked ones left out
	keysRead  bool
	staff     []api.TrainerSummary // the trainers, with their counts
	staffRead bool
	company   *api.Company
	// refused: the server refused the key the keys (403 1029): the Keys
	// section says why, and nothing changes.
	refused bool
}

// administers reports whether the page shows the keys and offers its
// changes: the key is an admin key, or its scope is not known and the
// server has not refused it.
func (s *Model) administers() bool {
	admin, known := s.IsAdmin()
	return (admin || !known) && !s.refused
}

// Reload reads the keys (for a key that may administer the company), the
// trainers and the company.
func (s *Model) Reload() tea.Cmd {
	if !s.administers() {
		return tea.Batch(s.reloadStaff(), s.reloadCompany())
	}
	return tea.Batch(s.reloadKeys(), s.reloadStaff(), s.reloadCompany())
}

func (s *Model) reloadKeys() tea.Cmd {
	c := s.C
	return s.Call(requests.SlotKeys, func(ctx context.Context) (any, error) { return client.Collect(c.ListKeys(ctx, client.KeyListParams{})) })
}

func (s *Model) reloadStaff() tea.Cmd {
	c := s.C
	return s.Call(requests.SlotStaff, func(ctx context.Context) (any, error) { return c.Trainers(ctx, client.TrainerParams{Counts: true}) })
}

func (s *Model) reloadCompany() tea.Cmd {
	c := s.C
	return s.Call(requests.SlotCompany, func(ctx context.Context) (any, error) { return c.Company(ctx) })
}

// Update takes what the page read, and the answers to its changes.
func (s *Model) Update(msg tea.Msg) tea.Cmd {
	r, ok := msg.(requests.ResultMsg)
	switch {
	case !ok:
		return nil
	case r.Slot == requests.SlotAdmin:
		return s.changed(r)
	case r.Err != nil:
		s.refused = s.refused || common.ErrorCode(r.Err) == api.CodeAdminScope
		s.SetError(r.Err)
		return nil
	}
	switch r.Slot {
	case requests.SlotKeys:
		s.apiKeys, s.keysRead = r.Val.([]*api.APIKey), true
	case requests.SlotStaff:
		s.staff, s.staffRead = r.Val.([]api.TrainerSummary), true
	case requests.SlotCompany:
		s.company = r.Val.(*api.Company)
	}
	s.Cursor[sectionKeys] = layout.Clamp(s.Cursor[sectionKeys], 0, len(s.apiKeys)-1)
	s.Cursor[SectionTrainers] = layout.Clamp(s.Cursor[SectionTrainers], 0, len(s.staff)-1)
	return nil
}

func (s *Model) SelectedKey() *api.APIKey {
	if i := s.Cursor[sectionKeys]; s.Section == sectionKeys && i < len(s.apiKeys) {
		return s.apiKeys[i]
	}
	return nil
}

func (s *Model) selectedTrainer() *api.TrainerSummary {
	if i := s.Cursor[SectionTrainers]; s.Section == SectionTrainers && i < len(s.staff) {
		return &s.staff[i]
	}
	return nil
}

// ownKey reports whether k is the key this TUI uses.
func (s *Model) ownKey(k *api.APIKey) bool { return s.Opt.Key != nil && s.Opt.Key.ID == k.ID }

// settingsHelp is the page's key map in a section; admin says whether the
// key may change anything (the changes are off when it may not), toggle
// what e does to the selected key ("enable" or "disable").
func settingsHelp(k keymap.KeyMap, section int, admin bool, toggle string) keymap.HelpKeys {
	sw, prev, num := k.NextTab, k.PrevTab, k.Status
	sw.SetHelp("tab", "section")
	prev.SetHelp("shift+tab", "previous section")
	num.SetKeys("1", "2", "3")
	num.SetHelp("1-3", "section")
	add, rot, del, act, edit := k.New, k.Range, k.Delete, k.Restore, k.Edit
	switch section {
	case sectionKeys:
		add.SetHelp("n", "new key")
		rot.SetHelp("r", "rotate")
		del.SetHelp("d", "revoke")
		edit.SetHelp("e", toggle)
	case SectionTrainers:
		add.SetHelp("n", "new")
		rot.SetHelp("r", "reassign")
		del.SetHelp("d", "deactivate")
		act.SetHelp("u", "activate")
	}
	add.SetEnabled(admin && section != sectionCompany)
	rot.SetEnabled(admin && section != sectionCompany)
	del.SetEnabled(admin && section != sectionCompany)
	act.SetEnabled(admin && section == SectionTrainers)
	edit.SetEnabled(admin && (section == sectionCompany || section == sectionKeys && toggle != ""))
	return keymap.HelpKeys{
		Short: []key.Binding{add, rot, del, act, edit, sw, k.Back, k.Help, k.Quit},
		Full: [][]key.Binding{
			{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
			{sw, prev, num, k.Refresh},
			{add, rot, del, act, edit},
			{k.Help, k.Back, k.Quit},
		},
	}
}

func (s *Model) Help() keymap.HelpKeys {
	return settingsHelp(s.Keys, s.Section, s.administers(), toggleWord(s.SelectedKey()))
}

// toggleWord is what e does to k: "enable" a disabled key, "disable"
// another; "" for none.
func toggleWord(k *api.APIKey) string {
	switch {
	case k == nil:
		return ""
	case k.State == api.KeyDisabled:
		return "enable"
	}
	return "disable"
}

func (s *Model) TakesKeys() bool { return false }

func (s *Model) Shows() (*api.Trainee, int) { return nil, s.Section }

func (s *Model) Key(msg tea.KeyPressMsg) tea.Cmd {
	if cmd, ok := s.BackOrReload(msg, s.Back, s.Reload, requests.SlotKeys, requests.SlotStaff, requests.SlotCompany); ok {
		return cmd
	}
	hk := s.Help()
	k := s.Keys
	switch {
	case key.Matches(msg, k.NextTab):
		s.openSection((s.Section + 1) % sectionCount)
	case key.Matches(msg, k.PrevTab):
		s.openSection((s.Section + sectionCount - 1) % sectionCount)
	case key.Matches(msg, hk.Full[1][2]): // 1-3
		s.openSection(int(msg.String()[0] - '1'))
	case !s.administers():
		s.move(msg) // the trainers are read-only
	case s.Section == sectionCompany:
		if key.Matches(msg, k.Edit) {
			return s.editCompany()
		}
	case key.Matches(msg, k.New):
		return s.add()
	case key.Matches(msg, k.Range):
		return s.rotateOrReassign()
	case key.Matches(msg, k.Delete):
		return s.revokeOrDeactivate()
	case key.Matches(msg, k.Restore) && s.Section == SectionTrainers:
		return s.activate()
	case key.Matches(msg, k.Edit) && s.Section == sectionKeys:
		return s.toggleKey()
	default:
		s.move(msg)
	}
	return nil
}

// openSection shows section i; the status line of what was done in
// another section goes.
func (s *Model) openSection(i int) {
	if i != s.Section {
		s.Section = i
		s.ClearStale()
	}
}

// move moves the cursor of the section's table.
func (s *Model) move(msg tea.KeyPressMsg) {
	n := len(s.apiKeys)
	if s.Section == SectionTrainers {
		n = len(s.staff)
	} else if s.Section != sectionKeys {
		return
	}
	if d, ok := s.Step(msg, max(s.tableRows()-1, 1)); ok {
		s.Cursor[s.Section] = layout.Clamp(s.Cursor[s.Section]+d, 0, n-1)
	}
}

// tableRows is how many rows of the section's table show: what is left
// of the body after its header and, for the keys, the selected key's
// details.
func (s *Model) tableRows() int {
	if s.Section == sectionKeys {
		return max(s.ContentHeight()-4, 1)
	}
	return max(s.ContentHeight()-3, 1)
}

func (s *Model) View() (top, sub, body string) {
	th := s.Th
	count := ""
	switch {
	case s.Section == sectionKeys && s.keysRead && s.administers():
		count = layout.Plural(len(s.apiKeys), "key")
	case s.Section == SectionTrainers && s.staffRead:
		count = layout.Plural(len(s.staff), "trainer")
	}
	top = s.TopBar(th.Title.Render("Settings"), s.SpinnerView()+" "+count+" ")
	var tabs []string
	for i, n := range sectionNames {
		tabs = append(tabs, layout.TabLabel(th, n, i == s.Section))
	}
	sub = strings.Join(tabs, " ")
	switch {
	case s.Section == sectionKeys && !s.administers():
		body = s.notAdminView()
	case s.Section == sectionKeys:
		body = s.keysView()
	case s.Section == SectionTrainers:
		body = s.trainersView()
	default:
		body = s.companyView()
	}
	return top, sub, body
}

// notAdminView is the Keys section of a key that is not an admin key:
// why it shows no keys, and what the key can do on the page.
func (s *Model) notAdminView() string {
	which := "This key"
	if k := s.Opt.Key; k != nil {
		which = fmt.Sprintf("This key, %s (%s),", api.EscapeText(k.Name), api.EscapeText(k.Scope))
	}
	texts := []string{which + " cannot see or change the company's keys: an admin key of the company can, " +
		"on this page or with traineectl keys.",
		"It can read the trainers (2) and the company (3) here; an admin key changes them."}
	var b strings.Builder
	b.WriteString("\n  " + s.Th.Accent.Render("Keys are for admin keys.") + "\n")
	for _, text := range texts {
		b.WriteString("\n")
		for _, l := range layout.WrapWords(text, max(s.Width-4, 20)) {
			b.WriteString("  " + l + "\n")
		}
	}
	return b.String()
}

// Columns of the keys and of the trainers, each sized by its content; on
// a narrow terminal the trainer's column goes first, then the last use,
// then the e-mail. The prefix tells apart keys of one name.
var (
	keyCols = []table.ColSpec{table.Col("NAME", 6, 24, 0), table.Col("PREFIX", 8, 8, 0), table.Col("SCOPE", 5, 5, 0), table.Col("TRAINER", 7, 20, 2), table.Col("LAST USED", 9, 16, 1),
		table.Col("EXPIRES", 7, 16, 0), table.Col("STATE", 6, 8, 0)}
	trainerCols = []table.ColSpec{table.Col("NAME", 8, 28, 0), table.Col("E-MAIL", 10, 36, 1), table.Col("TRAINEES", 8, 8, 0), table.Col("STATE", 8, 8, 0)}
)

// keysView is the keys' table (the key this TUI uses marked *) and the
// selected key's details.
func (s *Model) keysView() string {
	if body, ok := s.EmptyBody(s.keysRead, len(s.apiKeys), "keys", "No keys."); ok {
		return body
	}
	rows := s.keyRows(false)
	if tableWidth(table.ContentCols(keyCols, rows)) > s.Width-2 {
		rows = s.keyRows(true)
	}
	gutter := func(i int) string {
		if s.ownKey(s.apiKeys[i]) {
			return "* "
		}
		return "  "
	}
	var b strings.Builder
	b.WriteString(s.table(keyCols, rows, gutter))
	if k := s.SelectedKey(); k != nil {
		lines := layout.WrapWords(s.keyDetails(k), max(s.Width-4, 20))
		b.WriteString("\n")
		for _, l := range lines[:min(2, len(lines))] {
			b.WriteString("  " + s.Th.Dim.Render(l) + "\n")
		}
	}
	return b.String()
}

// keyRows are the cells of the keys' table; byDay shows the last use as
// its day only (to the minute, it may not leave room for the rest).
func (s *Model) keyRows(byDay bool) [][]string {
	rows := make([][]string, len(s.apiKeys))
	for i, k := range s.apiKeys {
		last := s.when(k.LastUsedAt)
		if byDay && k.LastUsedAt != nil {
			last = k.LastUsedAt.In(s.Zone()).Format(time.DateOnly)
		}
		rows[i] = []string{api.EscapeText(k.Name), api.EscapeText(k.Prefix), api.EscapeText(k.Scope), s.keyTrainer(k), last,
			s.when(k.ExpiresAt), api.EscapeText(k.State)}
	}
	return rows
}

// tableWidth is the width of a row of specs each at its widest.
func tableWidth(specs []table.ColSpec) int {
	n := -1
	for _, c := range specs {
		n += c.Max + 1
	}
	return n
}

// table lays rows out in cols sized by their content, after each row's
// gutter, the selected row highlighted and the rows scrolled to it.
func (s *Model) table(cols []table.ColSpec, rows [][]string, gutter func(i int) string) string {
	th := s.Th
	// fitCols counts a space after every column; a row has none after
	// its last: the gutter's two cells leave width-1.
	t := table.FitCols(s.Width-1, table.ContentCols(cols, rows))
	n := s.tableRows()
	cur := s.Cursor[s.Section]
	s.offset[s.Section] = layout.Clamp(s.offset[s.Section], cur-n+1, cur)
	off := s.offset[s.Section]
	var b strings.Builder
	b.WriteString(th.Header.Render("  "+t.Header()) + "\n")
	for i := off; i < min(off+n, len(rows)); i++ {
		line := gutter(i) + t.Row(rows[i]...)
		if i == cur {
			line = th.Selected.Render(line)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// keyTrainer is the trainer a key acts as, by name ("-": none).
func (s *Model) keyTrainer(k *api.APIKey) string {
	if k.TrainerName != nil {
		return api.EscapeText(*k.TrainerName)
	}
	return common.TrainerName(s.Trainers, k.TrainerID)
}

// when is an instant of the tables, "never" for none.
func (s *Model) when(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return s.Stamp(*t)
}

// keyDetails is what the table does not say of a key: who made it and
// when, whether it is limited to its trainer's trainees, until when its
// previous secret works, and whether this TUI uses it.
func (s *Model) keyDetails(k *api.APIKey) string {
	parts := []string{fmt.Sprintf("%s: created %s", api.EscapeText(k.Name), s.Stamp(k.CreatedAt))}
	if by := k.CreatedBy.Label(); by != "" {
		parts[0] += " by " + api.EscapeText(by)
	}
	if k.OwnTraineesOnly {
		parts = append(parts, "limited to its trainer's trainees")
	}
	if p := k.PreviousSecretExpiresAt; p != nil {
		parts = append(parts, "its previous secret works until "+s.Stamp(*p))
	}
	if s.ownKey(k) {
		parts = append(parts, "* this TUI uses it")
	}
	return strings.Join(parts, " · ")
}

// trainersView is the trainers' table with their trainee counts.
func (s *Model) trainersView() string {
	if body, ok := s.EmptyBody(s.staffRead, len(s.staff), "trainers", "No trainers: n adds one."); ok {
		return body
	}
	rows := make([][]string, len(s.staff))
	for i, t := range s.staff {
		state := "active"
		if !t.Active {
			state = "inactive"
		}
		rows[i] = []string{api.EscapeText(t.Name), api.EscapeText(t.Email), layout.PadLeft(CountText(t.Trainees), 8), state}
	}
	note := "r moves a trainer's trainees · d deactivates (the trainees are moved first)"
	if !s.administers() {
		note = "Read-only: an admin key adds, moves and deactivates trainers."
	}
	return s.table(trainerCols, rows, func(int) string { return "  " }) + "\n" + s.Th.Dim.Render(layout.Trunc("  "+note, s.Width))
}

// CountText is a trainee count, "-" when the server does not count them.
func CountText(n *int) string {
	if n == nil {
		return "-"
	}
	return strconv.Itoa(*n)
}

// companyView is the company's name and time zone, and what the zone
// decides.
func (s *Model) companyView() string {
	if s.company == nil {
		if s.Loading(requests.SlotCompany) {
			return s.LoadingLine("the company")
		}
		return s.NoteLine("The company could not be read: ctrl+r reads it again.")
	}
	co, th := s.company, s.Th
	var b strings.Builder
	b.WriteString("\n")
	for _, r := range [][2]string{{"Name", api.EscapeText(co.Name)}, {"Time zone", api.EscapeText(co.TimeZone)},
		{"Created", s.Stamp(co.CreatedAt)}} {
		b.WriteString("  " + th.Label.Render(layout.PadRight(r[0], 12)) + r[1] + "\n")
	}
	b.WriteString("\n")
	text := "The time zone is the company's day: who is expired today, who expires this week and who is new follow it, " +
		"as do the automations' days. e edits the name and the time zone."
	if !s.administers() {
		text = strings.Replace(text, "e edits", "An admin key edits", 1)
	}
	for _, l := range layout.WrapWords(text, max(s.Width-4, 20)) {
		b.WriteString("  " + th.Dim.Render(l) + "\n")
	}
	return b.String()
}
