package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

const automationsLong = `Manage your company's automations: a trigger (a trainee created, updated,
deleted or restored; a program ending in N days; a program that ended; N days
without training), optional conditions (a trainer, a status) and an action
(WEBHOOK: a signed POST to a URL; DISABLE_TRAINEE: soft-delete the trainee).
Each firing is a run, exactly one per occurrence.

An automation id that is not one of your company's exits with status 4.`

func newAutomationsCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:     "automations <command>",
		Aliases: []string{"automation"},
		Short:   "Manage automations (triggers, conditions, actions)",
		Long:    automationsLong,
		Example: `  traineectl automations create --name "CRM: a week before the end" --trigger EXPIRATION_APPROACHING --days 7 \
      --action WEBHOOK --url https://crm.example/hooks/traineed
  traineectl automations list
  traineectl automations runs 7`,
	}
	c.AddCommand(newAutomationsListCmd(f, nil), newAutomationsGetCmd(f, nil), newAutomationsCreateCmd(f, nil), newAutomationsUpdateCmd(f, nil),
		newAutomationsEnableCmd(f, true, nil), newAutomationsEnableCmd(f, false, nil), newAutomationsDeleteCmd(f, nil),
		newAutomationsRunsCmd(f, nil), newAutomationsTestCmd(f, nil))
	return c
}

// printAutomations prints automations in the -o format; single prints the
// one automation as an object in JSON and YAML.
func printAutomations(f *cmdutil.Factory, as []*api.Automation, single bool) error {
	v := output.AutomationRows.View(as)
	if single && len(as) == 1 {
		v.Value = as[0]
	}
	return f.Print(v)
}

// noteSecret tells where a new WEBHOOK secret is: in the table format it
// goes to stderr, once (JSON and YAML carry it in "secret").
func noteSecret(f *cmdutil.Factory, a *api.Automation) {
	if a.Secret != "" && f.OutputFormat() == output.Table || a.Secret != "" && f.OutputFormat() == output.CSV {
		fmt.Fprintf(f.IOStreams.ErrOut, "Webhook secret of automation %d (shown once; keep it to verify the deliveries):\n%s\n", a.ID, api.EscapeText(a.Secret))
	}
}

// automationFlags are the flags of create and update that build a body.
type automationFlags struct {
	File     string
	Name     string
	Trigger  string
	Days     string
	Trainer  string
	Status   string
	Action   string
	URL      string
	Disabled bool

	// Which flags were given (RunE records them: recordSet).
	NameSet, TriggerSet, DaysSet, TrainerSet, StatusSet, ActionSet, URLSet, DisabledSet bool
}

// recordSet records which of the flags were given; changed is the flag
// set's Changed.
func (a *automationFlags) recordSet(changed func(name string) bool) {
	a.NameSet, a.TriggerSet, a.DaysSet, a.TrainerSet = changed("name"), changed("trigger"), changed("days"), changed("trainer")
	a.StatusSet, a.ActionSet, a.URLSet, a.DisabledSet = changed("status"), changed("action"), changed("url"), changed("disabled")
}

func (a *automationFlags) register(c *cobra.Command, create bool, trainers cobra.CompletionFunc) {
	fl := c.Flags()
	fl.StringVarP(&a.File, "file", "f", "", "read the automation (JSON or YAML) from this file, - for stdin; flags override its members")
	fl.StringVar(&a.Name, "name", "", "name (1-100 characters)")
	fl.StringVar(&a.Trigger, "trigger", "", "trigger type: "+strings.Join(api.TriggerTypes, ", "))
	fl.StringVar(&a.Days, "days", "", "days of EXPIRATION_APPROACHING (1-90) or INACTIVE (1-365)")
	fl.StringVar(&a.Trainer, "trainer", "", "condition: only trainees of this trainer: its id or its whole name (none: no condition)")
	fl.StringVar(&a.Status, "status", "", "condition: only trainees of this status: active, expired or live (none: no condition)")
	fl.StringVar(&a.Action, "action", "", "action type: WEBHOOK or DISABLE_TRAINEE")
	fl.StringVar(&a.URL, "url", "", "the URL a WEBHOOK posts to")
	if create {
		fl.BoolVar(&a.Disabled, "disabled", false, "create it disabled")
	}
	_ = c.RegisterFlagCompletionFunc("trigger", fixedValues(api.TriggerTypes...))
	_ = c.RegisterFlagCompletionFunc("action", fixedValues(api.ActionTypes...))
	_ = c.RegisterFlagCompletionFunc("status", fixedValues(append(append([]string{}, api.ConditionStatuses...), "none")...))
	_ = c.RegisterFlagCompletionFunc("trainer", trainers)
	for _, n := range []string{"name", "days", "url"} {
		_ = c.RegisterFlagCompletionFunc(n, cobra.NoFileCompletions)
	}
}

// body builds the request body: the file's members, then each flag given;
// its text is checked as the server checks it.
func (a *automationFlags) body(f *cmdutil.Factory) (map[string]any, error) {
	m := map[string]any{}
	if a.File != "" {
		var err error
		if m, err = readAutomationFile(f, a.File); err != nil {
			return nil, err
		}
	}
	sub := func(key string) map[string]any {
		v, ok := m[key].(map[string]any)
		if !ok {
			v = map[string]any{}
			m[key] = v
		}
		return v
	}
	if a.NameSet {
		m["name"] = a.Name
	}
	if a.DisabledSet {
		m["enabled"] = !a.Disabled
	}
	if a.TriggerSet {
		sub("trigger")["type"] = a.Trigger
	}
	if a.DaysSet {
		if a.Days == "none" {
			sub("trigger")["days"] = nil
		} else {
			n, err := strconv.Atoi(a.Days)
			if err != nil {
				return nil, cmdutil.Usagef("--days must be a whole number of days (or none), not %q", a.Days)
			}
			sub("trigger")["days"] = n
		}
	}
	if a.TrainerSet && !a.trainerIsName() { // a name: nameTrainer
		if a.Trainer == "none" {
			sub("conditions")["trainerId"] = nil
		} else {
			id, err := cmdutil.ParseID(a.Trainer)
			if err != nil {
				return nil, cmdutil.Usagef("--trainer must be a trainer id (or none), not %q", a.Trainer)
			}
			sub("conditions")["trainerId"] = id
		}
	}
	if a.StatusSet {
		if a.Status == "none" {
			sub("conditions")["status"] = nil
		} else {
			sub("conditions")["status"] = a.Status
		}
	}
	if a.ActionSet {
		m["actionType"] = strings.ToUpper(a.Action)
	}
	if a.URLSet {
		sub("action")["url"] = a.URL
	}
	// Text the server would refuse (1016) is refused before sending, by
	// the server's own check.
	if b, err := json.Marshal(m); err == nil {
		if err := api.CheckAutomationText(b); err != nil {
			return nil, cmdutil.Usagef("%v", err)
		}
	}
	// So is a URL the server's one rule refuses (api.ValidateURL).
	if a.URLSet {
		if err := api.ValidateURLFlag("--url", a.URL); err != nil {
			return nil, cmdutil.Usagef("%v", err)
		}
	}
	return m, nil
}

// trainerIsName reports whether --trainer names a trainer rather than
// giving an id (or none).
func (a *automationFlags) trainerIsName() bool {
	t := strings.TrimSpace(a.Trainer)
	return a.TrainerSet && t != "" && t != "none" && !isWholeNumber(t)
}

// nameTrainer sets the trainer condition of the body m from a --trainer
// that names a trainer (resolveTrainer), once body has checked the rest.
func (a *automationFlags) nameTrainer(ctx context.Context, f *cmdutil.Factory, m map[string]any) error {
	if !a.trainerIsName() {
		return nil
	}
	text, err := resolveTrainer(ctx, f, a.Trainer)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return err
	}
	cond, ok := m["conditions"].(map[string]any)
	if !ok {
		cond = map[string]any{}
		m["conditions"] = cond
	}
	cond["trainerId"] = id
	return nil
}

// sendAutomation builds the body from the flags (refused with the usage
// error empty when it has nothing), sends it with send, and notes and
// prints the automation the server answers, as done.
func (a *automationFlags) send(ctx context.Context, f *cmdutil.Factory, empty, done string,
	send func(c *client.Client, body map[string]any) (*api.Automation, error)) error {
	body, err := a.body(f)
	if err != nil {
		return err
	}
	if err := a.nameTrainer(ctx, f, body); err != nil {
		return err
	}
	if len(body) == 0 {
		return cmdutil.Usagef("%s", empty)
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	au, err := send(c, body)
	if err != nil {
		return err
	}
	noteAutomation(f, done, au)
	noteSecret(f, au)
	return printAutomations(f, []*api.Automation{au}, true)
}

// readAutomationFile reads one JSON or YAML object.
func readAutomationFile(f *cmdutil.Factory, path string) (map[string]any, error) {
	var (
		b   []byte
		err error
	)
	if path == "-" {
		b, err = io.ReadAll(f.IOStreams.In)
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if jerr := json.Unmarshal(b, &m); jerr == nil && m != nil {
		return m, nil
	}
	if yerr := yaml.Unmarshal(b, &m); yerr != nil || m == nil {
		return nil, cmdutil.Usagef("%s: want one JSON or YAML object", path)
	}
	// YAML's integers are ints and its maps map[string]any: JSON-ready.
	return m, nil
}

// completeAutomationIDs offers the company's automation ids, with their
// names.
func completeAutomationIDs(f *cmdutil.Factory, multi bool) cobra.CompletionFunc {
	return completeListIDs(f, multi,
		func(ctx context.Context, c *client.Client) iter.Seq2[*api.Automation, error] {
			return c.ListAutomations(ctx, client.ListParams{})
		},
		func(a *api.Automation) idCandidate { return idCandidate{a.ID, a.Name} })
}

// withAutomationParams is a send of the flags' and the file's body
// through call, as the client's typed parameters.
func withAutomationParams(call func(*client.Client, client.AutomationParams) (*api.Automation, error)) func(*client.Client, map[string]any) (*api.Automation, error) {
	return func(c *client.Client, body map[string]any) (*api.Automation, error) {
		p, err := automationParams(body)
		if err != nil {
			return nil, err
		}
		return call(c, p)
	}
}

// automationParams is the body the flags and the file built, as the
// client's typed parameters. A member of the wrong type (a file's days:
// seven) is a usage error, found before anything is sent, as the flags'
// are.
func automationParams(m map[string]any) (client.AutomationParams, error) {
	var p client.AutomationParams
	b, err := json.Marshal(m)
	if err == nil {
		err = json.Unmarshal(b, &p)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return p, cmdutil.Usagef("the automation's %s has the wrong type", te.Field)
	}
	if err != nil {
		return p, cmdutil.Usagef("the automation must be one object: %v", err)
	}
	return p, nil
}
