package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
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
	c := m.c
	return m.call(slotForm, func(ctx context.Context) (any, error) {
		t, etag, err := c.TraineeWithETag(ctx, id)
		return formRead{t: t, etag: etag, conflict: conflict}, err
	})
}

// formReadResult keeps the ETag; a trainee read at the opening that
// differs from the one the form shows opens the form again on it while
// nothing was typed; after a 412 the conflict shows.
func (m *Model) formReadResult(msg resultMsg) tea.Cmd {
	r, ok := msg.val.(formRead)
	f := &m.form
	if !f.open || f.orig == nil || (ok && r.t != nil && r.t.ID != f.orig.ID) {
		return nil
	}
	if msg.err != nil {
		f.sending = false
		m.setError(msg.err)
		return nil
	}
	if r.conflict {
		f.sending = false
		p, changed := f.changes()
		m.modal = &conflictModal{common: m.common, m: m, base: f.orig, server: r.t, etag: r.etag, mine: p, names: changed}
		return nil
	}
	if len(api.ChangedFields(f.orig, r.t)) > 0 && !f.dirty() {
		focus, back := f.focus, f.back
		cmd := m.openForm(r.t, back)
		m.form.etag = r.etag
		return tea.Batch(cmd, m.form.focusOn(focus))
	}
	f.etag = r.etag
	return nil
}

// conflictModal is the 412's question over the form.
type conflictModal struct {
	*common
	m      *Model
	base   *api.Trainee // as the form opened on it
	server *api.Trainee // as it is now
	etag   string       // the server's version's
	mine   api.TraineePatch
	names  []string // the fields the coach changed
}

func (cm *conflictModal) key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := cm.keys
	switch {
	case key.Matches(msg, k.Reapply):
		return cm.m.reapply(cm.server, cm.etag, cm.mine, cm.names), true
	case key.Matches(msg, k.Discard):
		f := &cm.m.form
		t := cm.server
		f.close(fmt.Sprintf("Your edit was discarded: %s is shown as it is on the server.", api.EscapeText(t.Name)))
		cm.m.list.replace(t)
		if cm.m.trainee.t != nil && cm.m.trainee.t.ID == t.ID {
			cm.m.trainee.t = t
		}
		return nil, true
	case key.Matches(msg, k.Back):
		cm.setStatus(statusInfo, "Still editing: ctrl+s saves over the server's version only after a or d.")
		return nil, true
	}
	return nil, false
}

// reapply sends the coach's edit over the server's version: the fields
// the coach changed, with the server's ETag.
func (m *Model) reapply(server *api.Trainee, etag string, mine api.TraineePatch, names []string) tea.Cmd {
	p := mine.Without(server)
	f := &m.form
	f.orig, f.etag = server, etag
	changed := p.Names()
	if len(changed) == 0 {
		f.close("The server already has your edit: nothing was sent.")
		return nil
	}
	f.sending = true
	m.setStatus(statusInfo, "Saving %s over the server's version…", strings.Join(changed, ", "))
	return f.save(server.ID, etag, p, changed)
}

func (cm *conflictModal) body(helpKeys) string {
	th := cm.th
	var b strings.Builder
	b.WriteString(th.errText.Render(fmt.Sprintf("%s changed on the server while you edited.", api.EscapeText(cm.server.Name))) + "\n")
	b.WriteString(th.dim.Render("Nothing was saved. Compare, then re-apply your edit or discard it.") + "\n\n")
	t := fitCols(cm.width, conflictCols)
	b.WriteString(th.header.Render(t.header()) + "\n")
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
		mine := th.dim.Render("(unchanged)")
		if slices.Contains(cm.names, name) {
			mine = cm.shown(pf, patchValue(pf, &cm.mine))
		}
		server := cm.shown(pf, pf.Of(cm.server))
		if slices.Contains(theirs, name) {
			server = th.warnText.Render(server)
		}
		b.WriteString(t.row(name, cm.shown(pf, pf.Of(cm.base)), server, mine) + "\n")
	}
	return b.String()
}

var conflictCols = []colSpec{col("FIELD", 11, 15, 0), col("WHEN YOU OPENED", 12, 24, 0), col("ON THE SERVER NOW", 12, 24, 0), col("YOUR EDIT", 12, 0, 0)}

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
		if pf.Name == fTrainerID {
			return trainerName(cm.trainers, &x)
		}
	}
	return api.EscapeText(fmt.Sprint(v))
}

func (cm *conflictModal) help(helpKeys) helpKeys {
	k := cm.keys
	back := k.Back
	back.SetHelp("esc", "keep editing")
	return helpKeys{short: []key.Binding{k.Reapply, k.Discard, back}, full: [][]key.Binding{{k.Reapply, k.Discard, back}}}
}
