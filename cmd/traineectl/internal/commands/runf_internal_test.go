package commands

import (
	"errors"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

// The runF seam, as cli/cli tests it: a command line becomes the Options
// its run function gets (the flags given recorded as Set markers), and no
// request is made; a command line RunE refuses never reaches the run.

// runfFactory is a factory whose client cannot be made: a run function
// that is reached by mistake fails.
func runfFactory() *cmdutil.Factory {
	ios, _, _ := iostreams.Test("")
	return &cmdutil.Factory{IOStreams: ios,
		Now: func() time.Time { return time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC) }}
}

// execute runs cmd alone with args, its output discarded.
func execute(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.Execute()
}

// optionsOf runs the command that newCmd makes with args and returns the
// Options its runF got (nil when it was not called) and Execute's error.
func optionsOf[O any](t *testing.T, newCmd func(*cmdutil.Factory, func(*O) error) *cobra.Command, args ...string) (*O, error) {
	t.Helper()
	var got *O
	err := execute(newCmd(runfFactory(), func(o *O) error { got = o; return nil }), args...)
	return got, err
}

func TestSearchFlagsBecomeOptions(t *testing.T) {
	o, err := optionsOf(t, newSearchCmd, "ada", "park", "--status", "expired", "--size", "50", "--limit", "200", "--sort", "name", "--mine")
	if err != nil || o == nil {
		t.Fatalf("search: options %v, error %v", o, err)
	}
	p := o.Params
	if p.Query != "ada park" || p.Status != "expired" || p.Size != 50 || p.Sort != "name" || !o.Mine {
		t.Errorf("search: params %+v mine %v", p, o.Mine)
	}
	if !o.SizeSet || !o.LimitSet || o.Limit != 200 || o.PageSet || o.All {
		t.Errorf("search: SizeSet %v LimitSet %v Limit %d PageSet %v All %v; want --size and --limit 200 set, --page and --all not",
			o.SizeSet, o.LimitSet, o.Limit, o.PageSet, o.All)
	}

	o, err = optionsOf(t, newSearchCmd)
	if err != nil || o == nil || o.SizeSet || o.LimitSet || o.PageSet || o.Params.Query != "" {
		t.Errorf("search alone: %+v, %v; want nothing set", o, err)
	}

	// RunE checks what it recorded: --size out of range and --all with
	// --page never reach the run.
	for _, args := range [][]string{{"--size", "500"}, {"--all", "--page", "2"}, {"--limit", "0"}} {
		if o, err := optionsOf(t, newSearchCmd, args...); o != nil || !isUsage(err) {
			t.Errorf("search %v: options %+v, error %v; want a usage error and no run", args, o, err)
		}
	}
}

func TestUpdateFlagsBecomeOptions(t *testing.T) {
	o, err := optionsOf(t, newUpdateCmd, "41", "--expires", "31-12-2027", "--phone", "none", "--trainer", "Maya Brooks", "--password-stdin")
	if err != nil || o == nil {
		t.Fatalf("update: options %v, error %v", o, err)
	}
	want := api.TraineePatch{ExpirationDate: api.Val(api.Date{Year: 2027, Month: time.December, Day: 31}),
		PhoneNumber: api.Optional[string]{Set: true, Null: true}}
	if o.ID != 41 || o.Many || !o.PasswordStdin || o.TrainerName != "Maya Brooks" || !reflect.DeepEqual(o.Patch, want) {
		t.Errorf("update: ID %d Many %v PasswordStdin %v TrainerName %q Patch %+v; want 41, one, stdin, the name, %+v",
			o.ID, o.Many, o.PasswordStdin, o.TrainerName, o.Patch, want)
	}

	// --expiration-date is --expires; a trainer's id is the patch's.
	o, err = optionsOf(t, newUpdateCmd, "--ids", "1,2,3", "--expiration-date", "01-02-2027", "--trainer", "7", "--dry-run")
	if err != nil || o == nil {
		t.Fatalf("update --ids: options %v, error %v", o, err)
	}
	want = api.TraineePatch{ExpirationDate: api.Val(api.Date{Year: 2027, Month: time.February, Day: 1}), TrainerID: api.Val[int64](7)}
	if !o.Many || !reflect.DeepEqual(o.Bulk.IDs, []int64{1, 2, 3}) || !o.Bulk.DryRun || o.TrainerName != "" || !reflect.DeepEqual(o.Patch, want) {
		t.Errorf("update --ids: Many %v IDs %v DryRun %v TrainerName %q Patch %+v; want many, 1,2,3, a dry run, %+v",
			o.Many, o.Bulk.IDs, o.Bulk.DryRun, o.TrainerName, o.Patch, want)
	}
	// A flag only an action has makes one too, without --ids (whose
	// trainees the run then asks for).
	if o, err := optionsOf(t, newUpdateCmd, "--extend", "30d"); err != nil || o == nil || !o.Many || o.Extend != "30d" || o.ID != 0 {
		t.Errorf("update --extend 30d: %+v, %v; want an action of --extend 30d", o, err)
	}
	if o, err := optionsOf(t, newUpdateCmd, "41", "--disable", "--enable"); o != nil || !isUsage(err) {
		t.Errorf("update --disable --enable: %+v, %v; want a usage error and no run", o, err)
	}
}

func TestAutomationFlagsGivenAreRecorded(t *testing.T) {
	o, err := optionsOf(t, newAutomationsCreateCmd, "--name", "Idle", "--days", "14", "--trainer", "none", "--disabled")
	if err != nil || o == nil {
		t.Fatalf("automations create: options %v, error %v", o, err)
	}
	a := o.Flags
	if a.Name != "Idle" || a.Days != "14" || a.Trainer != "none" || !a.Disabled {
		t.Errorf("automations create: values %+v", a)
	}
	if !a.NameSet || !a.DaysSet || !a.TrainerSet || !a.DisabledSet || a.TriggerSet || a.StatusSet || a.ActionSet || a.URLSet {
		t.Errorf("automations create: set markers %+v; want name, days, trainer and disabled only", a)
	}
	// The body follows the markers: a flag given empty is sent, one not
	// given is not.
	body, err := a.body(runfFactory())
	if err != nil {
		t.Fatal(err)
	}
	wantBody := map[string]any{"name": "Idle", "enabled": false,
		"trigger": map[string]any{"days": 14}, "conditions": map[string]any{"trainerId": nil}}
	if !reflect.DeepEqual(body, wantBody) {
		t.Errorf("automations create: body %v, want %v", body, wantBody)
	}

	u, err := optionsOf(t, newAutomationsUpdateCmd, "7", "--status", "none", "--url", "")
	if err != nil || u == nil {
		t.Fatalf("automations update: options %v, error %v", u, err)
	}
	if u.ID != 7 || !u.Flags.StatusSet || !u.Flags.URLSet || u.Flags.NameSet || u.Flags.DisabledSet {
		t.Errorf("automations update: ID %d markers %+v; want 7 with status and url set", u.ID, u.Flags)
	}
}

func TestEnableDisableDeleteOptions(t *testing.T) {
	disable := func(f *cmdutil.Factory, runF func(*WebhooksEnableOptions) error) *cobra.Command {
		return newWebhooksEnableCmd(f, false, runF)
	}
	w, err := optionsOf(t, disable, "3", "4")
	if err != nil || w == nil || w.Enable || !reflect.DeepEqual(w.IDs, []int64{3, 4}) {
		t.Errorf("webhooks disable 3 4: %+v, %v", w, err)
	}
	enable := func(f *cmdutil.Factory, runF func(*AutomationsEnableOptions) error) *cobra.Command {
		return newAutomationsEnableCmd(f, true, runF)
	}
	a, err := optionsOf(t, enable, "8")
	if err != nil || a == nil || !a.Enable || !reflect.DeepEqual(a.IDs, []int64{8}) {
		t.Errorf("automations enable 8: %+v, %v", a, err)
	}

	d, err := optionsOf(t, newDeleteCmd, "41", "42", "--yes")
	if err != nil || d == nil || d.Many || !d.Yes || !reflect.DeepEqual(d.IDs, []int64{41, 42}) {
		t.Errorf("delete 41 42 --yes: %+v, %v", d, err)
	}
	d, err = optionsOf(t, newDeleteCmd, "--ids", "5,6", "--parallel", "8")
	if err != nil || d == nil || !d.Many || d.IDs != nil || !reflect.DeepEqual(d.Bulk.IDs, []int64{5, 6}) || d.Bulk.Parallel != 8 {
		t.Errorf("delete --ids 5,6: %+v, %v", d, err)
	}
	if d, err := optionsOf(t, newDeleteCmd, "7", "--ids", "5"); d != nil || !isUsage(err) {
		t.Errorf("delete 7 --ids 5: %+v, %v; want a usage error and no run", d, err)
	}
	wd, err := optionsOf(t, newWebhooksDeleteCmd, "9")
	if err != nil || wd == nil || wd.ID != 9 || wd.Yes {
		t.Errorf("webhooks delete 9: %+v, %v", wd, err)
	}
}

func TestPagingFlagsGivenAreRecorded(t *testing.T) {
	o, err := optionsOf(t, newWebhooksDeliveriesCmd, "3", "--size", "10", "--all")
	if err != nil || o == nil || o.ID != 3 || o.Size != 10 || !o.SizeSet || !o.All || o.LimitSet {
		t.Errorf("webhooks deliveries 3 --size 10 --all: %+v, %v", o, err)
	}
	if o, err := optionsOf(t, newWebhooksDeliveriesCmd, "3", "--size", "0"); o != nil || !isUsage(err) {
		t.Errorf("webhooks deliveries --size 0: %+v, %v; want a usage error and no run", o, err)
	}
}

func TestCreateOneOrManyOptions(t *testing.T) {
	o, err := optionsOf(t, newCreateCmd, "--name", "Ada", "--email", "ada@example.com", "--phone", "")
	if err != nil || o == nil || o.Bulk != nil {
		t.Fatalf("create: %+v, %v", o, err)
	}
	if want := map[string]string{"name": "Ada", "email": "ada@example.com", "phone": ""}; !reflect.DeepEqual(o.Values, want) {
		t.Errorf("create: values %v, want %v (the flags given only)", o.Values, want)
	}
	o, err = optionsOf(t, newCreateCmd, "-f", "clients.csv", "--dry-run", "--parallel", "2")
	if err != nil || o == nil || o.Bulk == nil || o.Values != nil {
		t.Fatalf("create -f: %+v, %v", o, err)
	}
	if o.Bulk.File != "clients.csv" || !o.Bulk.DryRun || o.Bulk.Parallel != 2 {
		t.Errorf("create -f: bulk %+v", o.Bulk)
	}
}

// isUsage reports whether err is a usage error (exit status 2).
func isUsage(err error) bool {
	var u *cmdutil.UsageError
	return errors.As(err, &u)
}
