package server_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
)

// TestLookAlikeEmails: "twin@alpha.example", "tw\u200bin@alpha.example"
// and "twin\ufeff@alpha.example" look the same everywhere; only the first
// becomes a trainee, the other two are a 400 1002 on email and leave
// nothing behind (no trainee, no user, no event), on both databases. An
// update to a look-alike address is refused too.
func TestLookAlikeEmails(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		body := func(email string) map[string]any {
			return map[string]any{"name": "Twin", "email": email, "password": "correct horse"}
		}
		first := e.create(e.keyA, body("twin@alpha.example"))
		for _, email := range []string{"tw\u200bin@alpha.example", "twin\ufeff@alpha.example", "twin@alpha.example\u2028", "\u2060twin@alpha.example"} {
			b := e.do("POST", "/public-api/trainees", e.keyA, body(email)).expectError(t, api.CodeInvalidEmail, "email")
			if !strings.Contains(b.Message, "must not contain") {
				t.Errorf("%+q: message %q", email, b.Message)
			}
		}
		var page api.TraineePage
		e.do("GET", "/public-api/trainees/search?status=all&q=twin", e.keyA, nil).expect(t, 200).JSON(t, &page)
		if len(page.Content) != 1 || page.Content[0].ID != first.ID || page.Content[0].Email != "twin@alpha.example" {
			t.Errorf("trainees named twin: %+v", page.Content)
		}
		var users int
		err := storetest.DB(t, e.store).NewSelect().Table("users").ColumnExpr("count(*)").Where("email LIKE ?", "%alpha.example%").Scan(context.Background(), &users)
		must(t, err)
		if users != 1 {
			t.Errorf("%d users at alpha.example, want 1", users)
		}
		var feed api.EventPage
		e.do("GET", "/public-api/events?type=trainee.created", e.keyA, nil).expect(t, 200).JSON(t, &feed)
		created := 0
		for _, ev := range feed.Events {
			if strings.Contains(string(ev.Payload), "alpha.example") {
				created++
			}
		}
		if created != 1 {
			t.Errorf("%d trainee.created events at alpha.example, want 1", created)
		}
		// Another trainee cannot move to a look-alike address either.
		other := e.create(e.keyA, body("other@alpha.example"))
		path := fmt.Sprintf("/public-api/trainees/%d", other.ID)
		e.do("PUT", path, e.keyA, map[string]any{"email": "twin\u200d@alpha.example"}).expectError(t, api.CodeInvalidEmail, "email")
		if got := e.do("GET", path, e.keyA, nil).expect(t, 200).trainee(t); got.Email != "other@alpha.example" {
			t.Errorf("e-mail changed to %+q", got.Email)
		}
	})
}

// TestInvisibleNamesAndPhones: over the API, on both databases, an
// invisible character is a 1006 in a phone number and a 1016 in a
// trainee's or a trainer's name (create and update), a trainer's e-mail a
// 1002; a joiner inside a Devanagari or Persian word is part of the name
// and stored as sent; free text (an automation's name) keeps emoji
// sequences and direction marks.
func TestInvisibleNamesAndPhones(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		tr := e.create(e.keyA, newTraineeBody("Clean Name"))
		path := fmt.Sprintf("/public-api/trainees/%d", tr.ID)
		for _, c := range []string{"\u200b", "\u200d", "\ufeff", "\u00ad", "\u200e", "\u2028", "\u2029", "\U000E0041"} {
			b := newTraineeBody("Invisible Row")
			b["name"] = "Clean" + c + "Name"
			e.do("POST", "/public-api/trainees", e.keyA, b).expectError(t, api.CodeControlChar, "name")
			e.do("PUT", path, e.keyA, map[string]any{"name": "Clean" + c + "Name"}).expectError(t, api.CodeControlChar, "name")
			b = newTraineeBody("Invisible Row")
			b["phoneNumber"] = "+447700900" + c + "123"
			e.do("POST", "/public-api/trainees", e.keyA, b).expectError(t, api.CodeInvalidPhone, "phoneNumber")
			e.do("PUT", path, e.keyA, map[string]any{"phoneNumber": "+447700900123" + c}).expectError(t, api.CodeInvalidPhone, "phoneNumber")
		}
		e.expectUnchanged(t, path, 1)

		for _, name := range []string{"क्\u200dष Sharma", "می\u200cخواهم"} {
			b := newTraineeBody("Joined")
			b["name"] = name
			if got := e.create(e.keyA, b); got.Name != name {
				t.Errorf("name %+q stored as %+q", name, got.Name)
			}
		}

		admin := e.adminKey(e.companyA)
		e.do("POST", api.PathTrainers, admin, map[string]any{"name": "Sam\u200bCoach", "email": "sam@a.example"}).expectError(t, api.CodeControlChar, "name")
		e.do("POST", api.PathTrainers, admin, map[string]any{"name": "Sam Coach", "email": "sam\ufeff@a.example"}).expectError(t, api.CodeInvalidEmail, "email")
		tpath := fmt.Sprintf("%s/%d", api.PathTrainers, e.trainerA[0])
		e.do("PATCH", tpath, admin, map[string]any{"name": "Coach\u200d 1"}).expectError(t, api.CodeControlChar, "name")
		e.do("PATCH", tpath, admin, map[string]any{"email": "coach1\u200b@a.example"}).expectError(t, api.CodeInvalidEmail, "email")
		var list api.TrainerList
		e.do("GET", api.PathTrainers, e.keyA, nil).expect(t, 200).JSON(t, &list)
		if len(list.Trainers) != 2 || list.Trainers[0].Name != "Coach 1" || list.Trainers[0].Email != "coach1@a.example" {
			t.Errorf("trainers after the refusals: %+v", list.Trainers)
		}

		a := e.createAutomation(e.keyA, `{"name": "Family 👨\u200d👩\u200d👧 \u200fRTL\u200e", "trigger": {"type": "TRAINEE_CREATED"}, "actionType": "WEBHOOK", "action": {"url": "https://crm.example.com/hook"}}`)
		if a.Name != "Family 👨\u200d👩\u200d👧 \u200fRTL\u200e" {
			t.Errorf("automation name stored as %+q", a.Name)
		}
		// A search for a look-alike finds nothing and is no error.
		if got := e.search(e.keyA, url.Values{"q": {"Clean\u200bName"}}); len(got.Content) != 0 {
			t.Errorf("search with U+200B: %+v", got.Content)
		}
	})
}
