package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/components/keymap"
	"github.com/traineed/traineed/tui/components/requests"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/components/table"
	"github.com/traineed/traineed/tui/internal/common"
	"github.com/traineed/traineed/tui/pages/form"
)

// Never overwrite a colleague: the edit form reads the trainee with its
// ETag when it opens and saves with If-Match. When the trainee changed on
// the server meanwhile (412), the form reads it again and shows, field by
// field, what it was when the form opened, what it is on the server now,
// and the coach's edit: a re-applies the edit over the server's version
// (the new ETag), d discards it, esc goes back to editing.

// formRead is the trainee and its ETag, read when the form opens or after
// a 412.
type formRead struct {
	t        *api.Trainee
	etag     string
	conflict bool // read after a 412
}

// readForEdit reads t with its ETag for the form (or, conflict, after a
// 412).
func (m *Model) readForEdit(id int64, conflict bool) tea.Cmd {
	c := m.C
	return m.Call(requests.SlotForm, func(ctx context.Context) (any, error) {
		var resp client.Response
		t, err := c.Trainee(ctx, id, client.WithResponse(&resp))
		etag := resp.ETag
		return formRead{t: t, etag: etag, conflict: conflict}, err
	})
}

// formReadResult keeps the ETag; a trainee read at the opening that
// differs from the one the form shows opens the form again on it while
// nothing was typed; after a 412 the conflict shows.
func (m *Model) formReadResult(msg requests.ResultMsg) tea.Cmd {
	r, ok := msg.Val.(formRead)
	f := &m.form
	if !f.Open || f.Orig == nil || (ok && r.t != nil && r.t.ID != f.Orig.ID) {
		return nil
	}
	if msg.Err != nil {
		f.Sending = false
		m.SetError(msg.Err)
		return nil
	}
	if r.conflict {
		f.Sending = false
		p, changed := f.Changes()
		m.modal = &conflictModal{Common: m.Common, m: m, base: f.Orig, server: r.t, etag: r.etag, mine: p, names: changed}
		return nil
	}
	if len(api.ChangedFields(f.Orig, r.t)) > 0 && !f.Dirty() {
		focus, back := f.Focus, f.Back
		cmd := m.OpenForm(r.t, back)
		m.form.Etag = r.etag
		return tea.Batch(cmd, m.form.FocusOn(focus))
	}
	f.Etag = r.etag
	return nil
}

// conflictModal is the 412's question over the form.
type conflictModal struct {
	*common.Common
	m      *Model
	base   *api.Trainee // as the form opened on it
	server *api.Trainee // as it is now
	etag   string       // the server's version's
	mine   api.TraineePatch
	names  []string // the fields the coach changed
}

func (cm *conflictModal) Key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := cm.Keys
	switch {
	case key.Matches(msg, k.Reapply):
		return cm.m.reapply(cm.server, cm.etag, cm.mine, cm.names), true
	case key.Matches(msg, k.Discard):
		f := &cm.m.form
		t := cm.server
		f.Close(fmt.Sprintf("Your edit was discarded: %s is shown as it is on the server.", api.EscapeText(t.Name)))
		cm.m.list.Replace(t)
		if cm.m.trainee.T != nil && cm.m.trainee.T.ID == t.ID {
			cm.m.trainee.T = t
		}
		return nil, true
	case key.Matches(msg, k.Back):
		cm.SetStatus(statusline.StatusInfo, "Still editing: ctrl+s saves over the server's version only after a or d.")
		return nil, true
	}
	return nil, false
}

// reapply sends the coach's edit over the server's version: the fields
// the coach changed, with the server's ETag.
func (m *Model) reapply(server *api.Trainee, etag string, mine api.TraineePatch, names []string) tea.Cmd {
	p := mine.Without(server)
	f := &m.form
	f.Orig, f.Etag = server, etag
	changed := p.Names()
	if len(changed) == 0 {
		f.Close("The server already has your edit: nothing was sent.")
		return nil
	}
	f.Sending = true
	m.SetStatus(statusline.StatusInfo, "Saving %s over the server's version…", strings.Join(changed, ", "))
	return f.Save(server.ID, etag, p, changed)
}

func (cm *conflictModal) Body(keymap.HelpKeys) string {
	th := cm.Th
	var b strings.Builder
	b.WriteString(th.ErrText.Render(fmt.Sprintf("%s changed on the server while you edited.", api.EscapeText(cm.server.Name))) + "\n")
	b.WriteString(th.Dim.Render("Nothing was saved. Compare, then re-apply your edit or discard it.") + "\n\n")
	t := table.FitCols(cm.Width, conflictCols)
	b.WriteString(th.Header.Render(t.Header()) + "\n")
	theirs := api.ChangedFields(cm.base, cm.server)
	fields := slices.Clone(theirs)
	for _, n := range cm.names {
		if !slices.Contains(fields, n) {
			fields = append(fields, n)
		}
	}
	for _, name := range fields {
		pf := api.PatchFieldNamed(name)
		if pf == nil {
			continue
		}
		mine := th.Dim.Render("(unchanged)")
		if slices.Contains(cm.names, name) {
			mine = cm.shown(pf, patchValue(pf, &cm.mine))
		}
		server := cm.shown(pf, pf.Of(cm.server))
		if slices.Contains(theirs, name) {
			server = th.WarnText.Render(server)
		}
		b.WriteString(t.Row(name, cm.shown(pf, pf.Of(cm.base)), server, mine) + "\n")
	}
	return b.String()
}

var conflictCols = []table.ColSpec{table.Col("FIELD", 11, 15, 0), table.Col("WHEN YOU OPENED", 12, 24, 0), table.Col("ON THE SERVER NOW", 12, 24, 0), table.Col("YOUR EDIT", 12, 0, 0)}

// patchValue is the value a patch sets a field to (nil: cleared).
func patchValue(pf *api.PatchField, p *api.TraineePatch) any {
	if pf.WriteOnly {
		return "(new)"
	}
	_, null, v := pf.Get(p)
	if null {
		return nil
	}
	return v
}

// shown is a field's value as the conflict shows it (escaped; a trainer
// by name).
func (cm *conflictModal) shown(pf *api.PatchField, v any) string {
	switch x := v.(type) {
	case nil:
		return "-"
	case int64:
		if pf.Name == form.FTrainerID {
			return common.TrainerName(cm.Trainers, &x)
		}
	}
	return api.EscapeText(fmt.Sprint(v))
}

func (cm *conflictModal) Help(keymap.HelpKeys) keymap.HelpKeys {
	k := cm.Keys
	back := k.Back
	back.SetHelp("esc", "keep editing")
	return keymap.HelpKeys{Short: []key.Binding{k.Reapply, k.Discard, back}, Full: [][]key.Binding{{k.Reapply, k.Discard, back}}}
}
