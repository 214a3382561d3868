package tui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
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
	sectionTrainers
	sectionCompany
	sectionCount
)

var sectionNames = [sectionCount]string{"Keys", "Trainers", "Company"}

// settingsModel is the Settings page.
type settingsModel struct {
	*common

	back    screen
	section int
	cursor  [sectionCount]int
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

// openSettings shows the Settings page and reads it anew; esc goes back
// to the page it was opened from.
func (m *Model) openSettings() tea.Cmd {
	if m.screen != screenSettings {
		m.settings.back = m.screen
	}
	m.screen = screenSettings
	return m.settings.reload()
}

// ask opens a dialog over the page; the status line of an earlier action
// goes (a note the same key press wrote stays: it says why the dialog
// opens).
func (m *Model) ask(d modal) {
	m.clearStale()
	m.modal = d
}

func (m *Model) dialog() modal { return m.modal }

func (m *Model) closeDialog(d modal) {
	if m.modal == d {
		m.modal = nil
	}
}

// administers reports whether the page shows the keys and offers its
// changes: the key is an admin key, or its scope is not known and the
// server has not refused it.
func (s *settingsModel) administers() bool {
	admin, known := s.isAdmin()
	return (admin || !known) && !s.refused
}

// reload reads the keys (for a key that may administer the company), the
// trainers and the company.
func (s *settingsModel) reload() tea.Cmd {
	if !s.administers() {
		return tea.Batch(s.reloadStaff(), s.reloadCompany())
	}
	return tea.Batch(s.reloadKeys(), s.reloadStaff(), s.reloadCompany())
}

func (s *settingsModel) reloadKeys() tea.Cmd {
	c := s.c
	return s.call(slotKeys, func(ctx context.Context) (any, error) { return c.Keys(ctx, "") })
}

func (s *settingsModel) reloadStaff() tea.Cmd {
	c := s.c
	return s.call(slotStaff, func(ctx context.Context) (any, error) { return c.TrainersCounted(ctx) })
}

func (s *settingsModel) reloadCompany() tea.Cmd {
	c := s.c
	return s.call(slotCompany, func(ctx context.Context) (any, error) { return c.Company(ctx) })
}

// update takes what the page read, and the answers to its changes.
func (s *settingsModel) update(msg tea.Msg) tea.Cmd {
	r, ok := msg.(resultMsg)
	switch {
	case !ok:
		return nil
	case r.slot == slotAdmin:
		return s.changed(r)
	case r.err != nil:
		s.refused = s.refused || errorCode(r.err) == api.CodeAdminScope
		s.setError(r.err)
		return nil
	}
	switch r.slot {
	case slotKeys:
		s.apiKeys, s.keysRead = r.val.([]*api.APIKey), true
	case slotStaff:
		s.staff, s.staffRead = r.val.([]api.TrainerSummary), true
	case slotCompany:
		s.company = r.val.(*api.Company)
	}
	s.cursor[sectionKeys] = clamp(s.cursor[sectionKeys], 0, len(s.apiKeys)-1)
	s.cursor[sectionTrainers] = clamp(s.cursor[sectionTrainers], 0, len(s.staff)-1)
	return nil
}

func (s *settingsModel) selectedKey() *api.APIKey {
	if i := s.cursor[sectionKeys]; s.section == sectionKeys && i < len(s.apiKeys) {
		return s.apiKeys[i]
	}
	return nil
}

func (s *settingsModel) selectedTrainer() *api.TrainerSummary {
	if i := s.cursor[sectionTrainers]; s.section == sectionTrainers && i < len(s.staff) {
		return &s.staff[i]
	}
	return nil
}

// ownKey reports whether k is the key this TUI uses.
func (s *settingsModel) ownKey(k *api.APIKey) bool { return s.opt.Key != nil && s.opt.Key.ID == k.ID }

// settingsHelp is the page's key map in a section; admin says whether the
// key may change anything (the changes are off when it may not), toggle
// what e does to the selected key ("enable" or "disable").
func settingsHelp(k keyMap, section int, admin bool, toggle string) helpKeys {
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
	case sectionTrainers:
		add.SetHelp("n", "new")
		rot.SetHelp("r", "reassign")
		del.SetHelp("d", "deactivate")
		act.SetHelp("u", "activate")
	}
	add.SetEnabled(admin && section != sectionCompany)
	rot.SetEnabled(admin && section != sectionCompany)
	del.SetEnabled(admin && section != sectionCompany)
	act.SetEnabled(admin && section == sectionTrainers)
	edit.SetEnabled(admin && (section == sectionCompany || section == sectionKeys && toggle != ""))
	return helpKeys{
		short: []key.Binding{add, rot, del, act, edit, sw, k.Back, k.Help, k.Quit},
		full: [][]key.Binding{
			{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
			{sw, prev, num, k.Refresh},
			{add, rot, del, act, edit},
			{k.Help, k.Back, k.Quit},
		},
	}
}

func (s *settingsModel) help() helpKeys {
	return settingsHelp(s.keys, s.section, s.administers(), toggleWord(s.selectedKey()))
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

func (s *settingsModel) takesKeys() bool { return false }

func (s *settingsModel) shows() (*api.Trainee, int) { return nil, s.section }

func (s *settingsModel) key(msg tea.KeyPressMsg) tea.Cmd {
	if cmd, ok := s.backOrReload(msg, s.back, s.reload, slotKeys, slotStaff, slotCompany); ok {
		return cmd
	}
	hk := s.help()
	k := s.keys
	switch {
	case key.Matches(msg, k.NextTab):
		s.openSection((s.section + 1) % sectionCount)
	case key.Matches(msg, k.PrevTab):
		s.openSection((s.section + sectionCount - 1) % sectionCount)
	case key.Matches(msg, hk.full[1][2]): // 1-3
		s.openSection(int(msg.String()[0] - '1'))
	case !s.administers():
		s.move(msg) // the trainers are read-only
	case s.section == sectionCompany:
		if key.Matches(msg, k.Edit) {
			return s.editCompany()
		}
	case key.Matches(msg, k.New):
		return s.add()
	case key.Matches(msg, k.Range):
		return s.rotateOrReassign()
	case key.Matches(msg, k.Delete):
		return s.revokeOrDeactivate()
	case key.Matches(msg, k.Restore) && s.section == sectionTrainers:
		return s.activate()
	case key.Matches(msg, k.Edit) && s.section == sectionKeys:
		return s.toggleKey()
	default:
		s.move(msg)
	}
	return nil
}

// openSection shows section i; the status line of what was done in
// another section goes.
func (s *settingsModel) openSection(i int) {
	if i != s.section {
		s.section = i
		s.clearStale()
	}
}

// move moves the cursor of the section's table.
func (s *settingsModel) move(msg tea.KeyPressMsg) {
	n := len(s.apiKeys)
	if s.section == sectionTrainers {
		n = len(s.staff)
	} else if s.section != sectionKeys {
		return
	}
	if d, ok := s.step(msg, max(s.tableRows()-1, 1)); ok {
		s.cursor[s.section] = clamp(s.cursor[s.section]+d, 0, n-1)
	}
}

// tableRows is how many rows of the section's table show: what is left
// of the body after its header and, for the keys, the selected key's
// details.
func (s *settingsModel) tableRows() int {
	if s.section == sectionKeys {
		return max(s.contentHeight()-4, 1)
	}
	return max(s.contentHeight()-3, 1)
}

func (s *settingsModel) view() (top, sub, body string) {
	th := s.th
	count := ""
	switch {
	case s.section == sectionKeys && s.keysRead && s.administers():
		count = plural(len(s.apiKeys), "key")
	case s.section == sectionTrainers && s.staffRead:
		count = plural(len(s.staff), "trainer")
	}
	top = s.topBar(th.title.Render("Settings"), s.spinnerView()+" "+count+" ")
	var tabs []string
	for i, n := range sectionNames {
		tabs = append(tabs, tabLabel(th, n, i == s.section))
	}
	sub = strings.Join(tabs, " ")
	switch {
	case s.section == sectionKeys && !s.administers():
		body = s.notAdminView()
	case s.section == sectionKeys:
		body = s.keysView()
	case s.section == sectionTrainers:
		body = s.trainersView()
	default:
		body = s.companyView()
	}
	return top, sub, body
}

// notAdminView is the Keys section of a key that is not an admin key:
// why it shows no keys, and what the key can do on the page.
func (s *settingsModel) notAdminView() string {
	which := "This key"
	if k := s.opt.Key; k != nil {
		which = fmt.Sprintf("This key, %s (%s),", api.EscapeText(k.Name), api.EscapeText(k.Scope))
	}
	texts := []string{which + " cannot see or change the company's keys: an admin key of the company can, " +
		"on this page or with traineectl keys.",
		"It can read the trainers (2) and the company (3) here; an admin key changes them."}
	var b strings.Builder
	b.WriteString("\n  " + s.th.accent.Render("Keys are for admin keys.") + "\n")
	for _, text := range texts {
		b.WriteString("\n")
		for _, l := range wrapWords(text, max(s.width-4, 20)) {
			b.WriteString("  " + l + "\n")
		}
	}
	return b.String()
}

// Columns of the keys and of the trainers, each sized by its content; on
// a narrow terminal the trainer's column goes first, then the last use,
// then the e-mail. The prefix tells apart keys of one name.
var (
	keyCols = []colSpec{col("NAME", 6, 24, 0), col("PREFIX", 8, 8, 0), col("SCOPE", 5, 5, 0), col("TRAINER", 7, 20, 2), col("LAST USED", 9, 16, 1),
		col("EXPIRES", 7, 16, 0), col("STATE", 6, 8, 0)}
	trainerCols = []colSpec{col("NAME", 8, 28, 0), col("E-MAIL", 10, 36, 1), col("TRAINEES", 8, 8, 0), col("STATE", 8, 8, 0)}
)

// keysView is the keys' table (the key this TUI uses marked *) and the
// selected key's details.
func (s *settingsModel) keysView() string {
	if body, ok := s.emptyBody(s.keysRead, len(s.apiKeys), "keys", "No keys."); ok {
		return body
	}
	rows := s.keyRows(false)
	if tableWidth(contentCols(keyCols, rows)) > s.width-2 {
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
	if k := s.selectedKey(); k != nil {
		lines := wrapWords(s.keyDetails(k), max(s.width-4, 20))
		b.WriteString("\n")
		for _, l := range lines[:min(2, len(lines))] {
			b.WriteString("  " + s.th.dim.Render(l) + "\n")
		}
	}
	return b.String()
}

// keyRows are the cells of the keys' table; byDay shows the last use as
// its day only (to the minute, it may not leave room for the rest).
func (s *settingsModel) keyRows(byDay bool) [][]string {
	rows := make([][]string, len(s.apiKeys))
	for i, k := range s.apiKeys {
		last := s.when(k.LastUsedAt)
		if byDay && k.LastUsedAt != nil {
			last = k.LastUsedAt.In(s.zone()).Format(time.DateOnly)
		}
		rows[i] = []string{api.EscapeText(k.Name), api.EscapeText(k.Prefix), api.EscapeText(k.Scope), s.keyTrainer(k), last,
			s.when(k.ExpiresAt), api.EscapeText(k.State)}
	}
	return rows
}

// tableWidth is the width of a row of specs each at its widest.
func tableWidth(specs []colSpec) int {
	n := -1
	for _, c := range specs {
		n += c.max + 1
	}
	return n
}

// table lays rows out in cols sized by their content, after each row's
// gutter, the selected row highlighted and the rows scrolled to it.
func (s *settingsModel) table(cols []colSpec, rows [][]string, gutter func(i int) string) string {
	th := s.th
	// fitCols counts a space after every column; a row has none after
	// its last: the gutter's two cells leave width-1.
	t := fitCols(s.width-1, contentCols(cols, rows))
	n := s.tableRows()
	cur := s.cursor[s.section]
	s.offset[s.section] = clamp(s.offset[s.section], cur-n+1, cur)
	off := s.offset[s.section]
	var b strings.Builder
	b.WriteString(th.header.Render("  "+t.header()) + "\n")
	for i := off; i < min(off+n, len(rows)); i++ {
		line := gutter(i) + t.row(rows[i]...)
		if i == cur {
			line = th.selected.Render(line)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// keyTrainer is the trainer a key acts as, by name ("-": none).
func (s *settingsModel) keyTrainer(k *api.APIKey) string {
	if k.TrainerName != nil {
		return api.EscapeText(*k.TrainerName)
	}
	return trainerName(s.trainers, k.TrainerID)
}

// when is an instant of the tables, "never" for none.
func (s *settingsModel) when(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return s.stamp(*t)
}

// keyDetails is what the table does not say of a key: who made it and
// when, whether it is limited to its trainer's trainees, until when its
// previous secret works, and whether this TUI uses it.
func (s *settingsModel) keyDetails(k *api.APIKey) string {
	parts := []string{fmt.Sprintf("%s: created %s", api.EscapeText(k.Name), s.stamp(k.CreatedAt))}
	if by := k.CreatedBy.Label(); by != "" {
		parts[0] += " by " + api.EscapeText(by)
	}
	if k.OwnTraineesOnly {
		parts = append(parts, "limited to its trainer's trainees")
	}
	if p := k.PreviousSecretExpiresAt; p != nil {
		parts = append(parts, "its previous secret works until "+s.stamp(*p))
	}
	if s.ownKey(k) {
		parts = append(parts, "* this TUI uses it")
	}
	return strings.Join(parts, " · ")
}

// trainersView is the trainers' table with their trainee counts.
func (s *settingsModel) trainersView() string {
	if body, ok := s.emptyBody(s.staffRead, len(s.staff), "trainers", "No trainers: n adds one."); ok {
		return body
	}
	rows := make([][]string, len(s.staff))
	for i, t := range s.staff {
		state := "active"
		if !t.Active {
			state = "inactive"
		}
		rows[i] = []string{api.EscapeText(t.Name), api.EscapeText(t.Email), padLeft(countText(t.Trainees), 8), state}
	}
	note := "r moves a trainer's trainees · d deactivates (the trainees are moved first)"
	if !s.administers() {
		note = "Read-only: an admin key adds, moves and deactivates trainers."
	}
	return s.table(trainerCols, rows, func(int) string { return "  " }) + "\n" + s.th.dim.Render(trunc("  "+note, s.width))
}

// countText is a trainee count, "-" when the server does not count them.
func countText(n *int) string {
	if n == nil {
		return "-"
	}
	return strconv.Itoa(*n)
}

// companyView is the company's name and time zone, and what the zone
// decides.
func (s *settingsModel) companyView() string {
	if s.company == nil {
		if s.loading(slotCompany) {
			return s.loadingLine("the company")
		}
		return s.noteLine("The company could not be read: ctrl+r reads it again.")
	}
	co, th := s.company, s.th
	var b strings.Builder
	b.WriteString("\n")
	for _, r := range [][2]string{{"Name", api.EscapeText(co.Name)}, {"Time zone", api.EscapeText(co.TimeZone)},
		{"Created", s.stamp(co.CreatedAt)}} {
		b.WriteString("  " + th.label.Render(padRight(r[0], 12)) + r[1] + "\n")
	}
	b.WriteString("\n")
	text := "The time zone is the company's day: who is expired today, who expires this week and who is new follow it, " +
		"as do the automations' days. e edits the name and the time zone."
	if !s.administers() {
		text = strings.Replace(text, "e edits", "An admin key edits", 1)
	}
	for _, l := range wrapWords(text, max(s.width-4, 20)) {
		b.WriteString("  " + th.dim.Render(l) + "\n")
	}
	return b.String()
}
