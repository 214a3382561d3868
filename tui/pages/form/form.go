package form

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
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

// The form's fields are api.FormFields (the fields of api.TraineePatch
// with a label), each named as the API names it so that a 400's field
// lands on its input.

type FormField struct {
	Name    string
	Label   string
	Input   textinput.Model
	Initial string // the value the form opened with
	// Stored: the value the form opened with is stored text that the
	// rules refuse today, kept from before them: shown escaped
	// (api.EscapeText) when it holds a control character, as it is when
	// the field's own characters refuse it (an invisible character in a
	// name, an e-mail address or a phone number: api.PatchField.CheckText).
	// Left as it is, it is neither checked nor sent.
	Stored  bool
	touched bool
	Err     string // the API's rule, checked here before sending
	server  string // what a 400 said about the field
}

// formModel is the form page: it creates (orig nil) or edits a trainee.
type Model struct {
	*common.Common

	Open    bool
	Orig    *api.Trainee
	Back    common.Screen
	Fields  []FormField
	Focus   int
	Sending bool
	tried   bool // a save was attempted: every error shows
	// Discarding: esc was pressed on a changed form; y discards, n keeps.
	Discarding bool
	// ChangedMeanwhile: live mode saw another change of the trainee
	// since the form opened.
	ChangedMeanwhile bool
	// Etag is the version of orig the form edits (read when it opens):
	// the save sends it as If-Match.
	Etag string
	// AllowErased: the last create was refused as an erased person's
	// (409 1038); the next save creates them anyway. A create is sent
	// with Traineed-Refuse-Erased otherwise, as traineectl's is.
	AllowErased bool
	Today       func() api.Date
	Th          theme.Theme
}

// fTrainerID is the trainer's field: shown and typed by name.
const FTrainerID = "trainerId"

func (f *Model) Restyle(th theme.Theme) {
	f.Th = th
	st := th.InputStyles()
	for i := range f.Fields {
		f.Fields[i].Input.SetStyles(st)
	}
}

func (f *Model) Resize(w int) {
	for i := range f.Fields {
		f.Fields[i].Input.SetWidth(min(max(w-24, 10), 50))
	}
}

func (f *Model) Field(name string) *FormField {
	for i := range f.Fields {
		if f.Fields[i].Name == name {
			return &f.Fields[i]
		}
	}
	return nil
}

func (f *Model) value(name string) string {
	return strings.TrimSpace(f.Field(name).Input.Value())
}

// Dirty reports whether any input differs from what the form opened with.
func (f *Model) Dirty() bool {
	for _, fl := range f.Fields {
		if fl.Input.Value() != fl.Initial {
			return true
		}
	}
	return false
}

func (f *Model) FocusOn(i int) tea.Cmd {
	f.canonicalDate(&f.Fields[f.Focus])
	f.Fields[f.Focus].Input.Blur()
	f.Focus = i
	return f.Fields[i].Input.Focus()
}

// Update passes other messages (paste, cursor) to the focused input.
func (f *Model) Update(msg tea.Msg) tea.Cmd {
	if !f.Open {
		return nil
	}
	var cmd tea.Cmd
	fl := &f.Fields[f.Focus]
	fl.Input, cmd = fl.Input.Update(msg)
	return cmd
}

func (f *Model) Key(msg tea.KeyPressMsg) tea.Cmd {
	k := f.Keys
	switch {
	case f.Discarding:
		switch {
		case key.Matches(msg, k.Yes):
			f.Close("Changes discarded: nothing was sent.")
		case key.Matches(msg, k.No):
			f.Discarding = false
			f.SetStatus(statusline.StatusInfo, "Still editing: ctrl+s saves, esc leaves.")
		}
		return nil
	case key.Matches(msg, k.Back):
		if f.Dirty() && !f.Sending {
			f.Discarding = true
			f.SetStatus(statusline.StatusInfo, "Discard your changes? y discards them, n keeps editing.")
			return nil
		}
		f.Close("Cancelled: nothing was sent.")
		return nil
	case key.Matches(msg, k.Save):
		return f.submit()
	case msg.String() == "enter" && f.Focus == len(f.Fields)-1:
		return f.submit()
	case key.Matches(msg, k.NextField):
		return f.FocusOn((f.Focus + 1) % len(f.Fields))
	case key.Matches(msg, k.PrevField):
		return f.FocusOn((f.Focus + len(f.Fields) - 1) % len(f.Fields))
	}
	if f.Sending {
		return nil
	}
	fl := &f.Fields[f.Focus]
	before := fl.Input.Value()
	var cmd tea.Cmd
	fl.Input, cmd = fl.Input.Update(msg)
	if fl.Input.Value() != before {
		fl.touched = true
		fl.server = ""
		f.Check()
	}
	return cmd
}

// Close leaves the form for the page it was opened from, saying note.
func (f *Model) Close(note string) {
	f.Forget(requests.SlotMutate)
	f.SetStatus(statusline.StatusInfo, "%s", note)
	f.Leave()
}

// Leave empties the form and shows the page it was opened from.
func (f *Model) Leave() {
	back, nav := f.Back, f.Nav
	*f = Model{Common: f.Common}
	nav.Show(back)
}

func (f *Model) submit() tea.Cmd {
	if f.Sending {
		return nil
	}
	f.tried = true
	r, n := f.Check()
	if n > 0 {
		for i, fl := range f.Fields {
			if fl.Err != "" {
				f.FocusOn(i)
				break
			}
		}
		if n == 1 {
			f.SetStatus(statusline.StatusError, "1 field breaks the API's rules: fix it first. Nothing was sent.")
		} else {
			f.SetStatus(statusline.StatusError, "%d fields break the API's rules: fix them first. Nothing was sent.", n)
		}
		return nil
	}
	for i := range f.Fields {
		f.Fields[i].server = ""
	}
	c := f.C
	if f.Orig == nil {
		f.Sending = true
		f.SetStatus(statusline.StatusInfo, "Creating %s…", r.Name)
		var opts []client.RequestOption
		if !f.AllowErased {
			opts = append(opts, client.RefuseErased())
		}
		return f.Call(requests.SlotMutate, func(ctx context.Context) (any, error) {
			t, err := c.CreateTrainee(ctx, r, opts...)
			return common.Mutation{Kind: "created", T: t}, err
		})
	}
	u, changed := f.Changes()
	if len(changed) == 0 {
		f.SetStatus(statusline.StatusInfo, "Nothing changed: nothing was sent.")
		f.Leave()
		return nil
	}
	f.Sending = true
	f.SetStatus(statusline.StatusInfo, "Saving %s…", strings.Join(changed, ", "))
	return f.Save(f.Orig.ID, f.Etag, u, changed)
}

// Save sends an edit: with If-Match when the form knows the version it
// edits (a 412 then shows the conflict), else as it is.
func (f *Model) Save(id int64, etag string, u api.TraineePatch, changed []string) tea.Cmd {
	c := f.C
	return f.Call(requests.SlotMutate, func(ctx context.Context) (any, error) {
		t, err := c.UpdateTrainee(ctx, id, u, client.IfMatch(etag)) // "": no If-Match
		return common.Mutation{Kind: "updated", T: t, Changed: changed}, err
	})
}

func (f *Model) View() (top, sub, body string) {
	th := f.Th
	title := "New trainee"
	if f.Orig != nil {
		title = "Edit " + api.EscapeText(f.Orig.Name) + th.Dim.Render(fmt.Sprintf("  #%d", f.Orig.ID))
	}
	top = f.TopBar(th.Title.Render(title), f.SpinnerView()+" ")
	sub = th.Dim.Render("Each field is checked with the API's rules as you type; ctrl+s saves.")
	if f.ChangedMeanwhile {
		sub = th.WarnText.Render("⚠ Changed on the server since this form opened: ctrl+s shows what changed.")
	}
	var b strings.Builder
	for i, fl := range f.Fields {
		marker := "  "
		label := th.Label.Render(layout.PadRight(fl.Label, 14))
		if i == f.Focus {
			marker = th.Accent.Render("▸ ")
			label = th.Accent.Render(layout.PadRight(fl.Label, 14))
		}
		b.WriteString(marker + label + " " + fl.Input.View() + "\n")
		b.WriteString(strings.Repeat(" ", 17) + f.verdict(&fl) + "\n")
	}
	if f.Sending {
		b.WriteString("\n  " + f.Spin.View() + " Sending…")
	}
	return top, sub, b.String()
}

// verdict is the line under a field: the server's refusal, the check's,
// or a tick once the field was touched (or a save tried).
func (f *Model) verdict(fl *FormField) string {
	th := f.Th
	switch {
	case fl.server != "":
		return th.ErrText.Render("✗ " + fl.server + " (server)")
	case fl.Err != "" && (fl.touched || f.tried):
		return th.ErrText.Render("✗ " + fl.Err)
	case fl.Err == "" && fl.Name == FTrainerID && f.value(FTrainerID) != "":
		return th.OkText.Render("✓ " + f.trainerShown())
	case fl.Err == "" && (fl.touched || f.tried):
		return th.OkText.Render("✓")
	}
	return ""
}

func (f *Model) Help() keymap.HelpKeys {
	if f.Discarding {
		return f.Keys.ConfirmHelp()
	}
	return f.Keys.FormHelp()
}

func (f *Model) TakesKeys() bool { return true }

func (f *Model) Shows() (*api.Trainee, int) { return f.Orig, 0 }

// trainerID reads the trainer input: an id, or a trainer's name (the
// whole name or the start of one name, in any case).
func (f *Model) trainerID(s string) (int64, error) { return f.TrainerByText(s) }

// trainerShown is the trainer the input names: "Maya Brown (#1)".
func (f *Model) trainerShown() string {
	id, err := f.trainerID(f.value(FTrainerID))
	if err != nil {
		return ""
	}
	if f.Trainers[id] == "" {
		return fmt.Sprintf("#%d", id)
	}
	return f.Trainers[id] + fmt.Sprintf(" (#%d)", id)
}
