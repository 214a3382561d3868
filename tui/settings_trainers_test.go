package tui

import (
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
)

// r on a trainer moves their trainees to a trainer picked (active ones
// only), after a question that counts the live ones and says the
// soft-deleted ones go too; the result counts what the answer moved.
func TestSettingsReassignsTrainees(t *testing.T) {
	d, f := settingsDriver(t, adminKey)
	seen := 0
	d.press("2", "r")
	d.expect(t, "Move Maya Brooks's 20 live trainees and any soft-deleted ones to:", "Tomás Rivera (18 trainees)", "Hannah Okoye (17 trainees)")
	d.expectNot(t, "Leo Park (")
	d.press("down", "enter")
	expectWrapped(t, d, "Move Maya Brooks's 20 live trainees and any soft-deleted ones to Hannah Okoye?", "stays active, and so do their keys")
	d.press("y")
	expectChanges(t, f, &seen, "ReassignTrainees 1 to 3")
	d.expect(t, "✓ Moved 24 trainees from Maya Brooks to Hannah Okoye.")
	if got := *f.trainer(3).Trainees; got != 37 {
		t.Errorf("Hannah has %d trainees", got)
	}
	d.press("r")
	d.expect(t, "Maya Brooks has no trainees to move.")
	d.press("down", "r", "esc")
	d.expect(t, "Nothing was moved.")
	expectChanges(t, f, &seen)
}

// d deactivates a trainer: one with trainees hands them over to a trainer
// picked, in the same change; u activates again; n adds a trainer.
func TestSettingsDeactivatesAndAddsTrainers(t *testing.T) {
	d, f := settingsDriver(t, adminKey)
	seen := 0
	d.press("2", "down", "d")
	d.expect(t, "Tomás Rivera has trainees: who takes them over?")
	d.press("enter")
	expectWrapped(t, d, "Deactivate Tomás Rivera and move their 18 live trainees (and any soft-deleted ones) to Maya Brooks?")
	d.expectNot(t, "disable")
	d.press("y")
	expectChanges(t, f, &seen, "DeactivateTrainer 2 to 1")
	d.expect(t, "✓ Deactivated Tomás Rivera: moved 18 trainees to Maya Brooks.", "inactive")
	d.press("d")
	d.expect(t, "Tomás Rivera is inactive already: u activates them again.")
	d.press("u")
	expectChanges(t, f, &seen, "UpdateTrainer 2 active true")
	d.expect(t, "✓ Activated Tomás Rivera.")
	d.press("d")
	d.expect(t, "Deactivate Tomás Rivera?", "They take no new trainees")
	d.press("y")
	expectChanges(t, f, &seen, "DeactivateTrainer 2")
	d.expect(t, "✓ Deactivated Tomás Rivera.")
	d.press("n")
	d.expect(t, "New trainer", "E-mail")
	d.typeText("Leo Tran")
	d.press("tab")
	d.typeText("not-an-email")
	d.press("ctrl+s")
	d.expect(t, "✗ 1002")
	expectChanges(t, f, &seen)
	for range len("not-an-email") {
		d.send(kp("backspace"))
	}
	d.typeText("leo.tran@demo-fitness.example")
	d.press("enter")
	expectChanges(t, f, &seen, "CreateTrainer 11")
	d.expect(t, "✓ Added trainer Leo Tran (#11).", "5 trainers", "leo.tran@demo-fitness.example")
	// The trainers read are the TUI's: the forms know the new one.
	if d.m.Trainers[11] != "Leo Tran" {
		t.Errorf("the TUI's trainers: %v", d.m.Trainers)
	}
}

// e edits the company: a new time zone is explained and confirmed first,
// a new name alone is saved at once, an unknown zone is refused before
// anything is sent.
func TestSettingsEditsTheCompany(t *testing.T) {
	d, f := settingsDriver(t, adminKey)
	seen := 0
	d.press("3", "e")
	d.expect(t, "The company", "Demo Fitness", "Europe/London")
	d.press("tab", "ctrl+u")
	d.typeText("Mars/Olympus")
	d.press("ctrl+s")
	d.expect(t, "✗ Time zone is not right", "unknown time zone")
	expectChanges(t, f, &seen)
	d.press("ctrl+u")
	d.typeText("America/New_York")
	d.press("ctrl+s")
	d.expect(t, "Change the time zone from Europe/London to America/New_York?", "Who is expired today",
		"follows the new zone from then on", "there now")
	checkFits(t, d, 80, 24, "the time zone question")
	d.press("y")
	expectChanges(t, f, &seen, "UpdateCompany 1 zone America/New_York")
	d.expect(t, "✓ Saved the company: Demo Fitness, time zone America/New_York.", "America/New_York")
	d.press("e")
	for range len("Fitness") {
		d.send(kp("backspace"))
	}
	d.typeText("Gym")
	d.press("ctrl+s")
	expectChanges(t, f, &seen, "UpdateCompany 1 name Demo Gym")
	d.expect(t, "✓ Saved the company: Demo Gym, time zone America/New_York.")
	d.press("e", "ctrl+s")
	d.expect(t, "Nothing changed: nothing was sent.")
	expectChanges(t, f, &seen)
}

// Deactivating a trainer disables the keys bound to them: the question
// says so, the result names the keys the answer says were disabled, and
// the keys are read again; activating the trainer again says their keys
// stay disabled.
func TestSettingsDeactivationDisablesTheTrainersKeys(t *testing.T) {
	d, f := settingsDriver(t, adminKey)
	seen := 0
	second := f.keys[2]
	twin := *second
	twin.ID, twin.Name, twin.Prefix = 4, "maya-tablet", "pk_maya4"
	f.keys = append(f.keys, &twin)
	d.press("ctrl+r", "2", "d")
	d.expect(t, "Maya Brooks has trainees: who takes them over?")
	d.press("down", "enter")
	expectWrapped(t, d, "Deactivate Maya Brooks, move their 20 live trainees (and any soft-deleted ones) to Hannah Okoye, and disable their 2 keys?",
		"A disabled key is refused until e on the Keys section enables it again.", "their keys stay disabled")
	checkFits(t, d, 80, 24, "the deactivation's question")
	d.press("y")
	expectChanges(t, f, &seen, "DeactivateTrainer 1 to 3")
	expectWrapped(t, d, "✓ Deactivated Maya Brooks: moved 24 trainees to Hannah Okoye and disabled their 2 keys (maya-phone, maya-tablet).")
	d.press("1")
	if got := strings.Count(d.screen(), "disabled"); got != 2 {
		t.Errorf("%d keys show disabled:\n%s", got, d.screen())
	}
	d.press("2", "u")
	expectChanges(t, f, &seen, "UpdateTrainer 1 active true")
	expectWrapped(t, d, "✓ Activated Maya Brooks; their 2 keys stay disabled: e on the Keys section enables each.")
	// One key, no trainees.
	f.key(4).State = api.KeyActive
	d.press("ctrl+r", "d")
	expectWrapped(t, d, "Deactivate Maya Brooks and disable their key maya-tablet?")
	d.press("y")
	expectChanges(t, f, &seen, "DeactivateTrainer 1")
	d.expect(t, "✓ Deactivated Maya Brooks: disabled their key maya-tablet.")
}
