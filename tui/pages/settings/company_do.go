package settings

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/dialog"
	"github.com/traineed/traineed/tui/components/form"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/internal/common"
)

// editCompany edits the company's name and time zone; a new zone is
// explained and confirmed first.
func (s *Model) editCompany() tea.Cmd {
	co := s.company
	if co == nil {
		s.SetStatus(statusline.StatusInfo, "The company is not read yet: ctrl+r reads it.")
		return nil
	}
	entries := []form.Entry{form.TextEntry(s.Common, "Name", "the company's name", co.Name), form.TextEntry(s.Common, "Time zone", "an IANA name: Europe/London", co.TimeZone)}
	patch := func(v []string) api.CompanyPatch {
		var p api.CompanyPatch
		if v[0] != co.Name {
			p.Name = &v[0]
		}
		if v[1] != co.TimeZone {
			p.TimeZone = &v[1]
		}
		return p
	}
	check := func(v []string) form.Verdicts {
		return ruleVerdicts(patch(v), func(b []byte) error {
			_, err := api.ParseCompanyPatch(b)
			return err
		}, companyFields, form.Verdicts{})
	}
	var ef *form.EntryForm
	submit := func(v []string) tea.Cmd {
		p := patch(v)
		switch {
		case p.Name == nil && p.TimeZone == nil:
			s.SetStatus(statusline.StatusInfo, "Nothing changed: nothing was sent.")
			return nil
		case p.TimeZone != nil:
			s.Nav.Ask(s.zoneQuestion(co, p, ef))
			return nil
		}
		return s.saveCompany(p)
	}
	ef = form.NewEntryForm(s.Common, "The company", nil, entries, companyFields, check, submit, "Nothing was changed.")
	s.Nav.Ask(ef)
	return nil
}

// zoneQuestion explains what a new time zone changes, and asks; y sends
// the form's change, the form open again until the answer.
func (s *Model) zoneQuestion(co *api.Company, p api.CompanyPatch, ef *form.EntryForm) *dialog.Question {
	from, to := api.EscapeText(co.TimeZone), api.EscapeText(*p.TimeZone)
	notes := []string{"\"Who is expired today\" follows the new zone from then on: the company's day, its counts, " +
		"its lists and its automations start and end at midnight in " + to + "."}
	if loc, err := time.LoadLocation(*p.TimeZone); err == nil {
		now := time.Now().In(loc)
		notes = append(notes, "It is "+now.Format("15:04")+" on "+api.DateOf(now).String()+" there now.")
	}
	return &dialog.Question{Common: s.Common, Text: "Change the time zone from " + from + " to " + to + "?", Notes: notes,
		Yes: "change", No: "keep", NoNote: "Nothing was changed.", OnYes: func() tea.Cmd {
			s.Nav.Ask(ef)
			ef.Sending = true
			return s.saveCompany(p)
		}}
}

func (s *Model) saveCompany(p api.CompanyPatch) tea.Cmd {
	s.SetStatus(statusline.StatusInfo, "Saving the company…")
	return s.send(adminChange{kind: companySaved}, func(ctx context.Context, c common.Client, a *adminChange) error {
		co, err := c.UpdateCompany(ctx, p)
		a.company = co
		return err
	})
}
