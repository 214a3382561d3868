package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/internal/textout"
	"github.com/traineed/traineed/store"
)

func newMigrateCmd(e *env) *cobra.Command {
	var status bool
	c := &cobra.Command{
		Use:   "migrate [--status]",
		Short: "Run the schema migrations and exit, or list them (--status)",
		Long: `Runs the schema migrations under the migration lock and prints nothing on success,
but what a data migration reports (a stored phone number it could not bring to E.164)
on stderr, once. Every command that opens the database does the same first
(serve logs those reports as warnings).

A database a newer traineed migrated (it has applied migrations this build does not
know) is refused, by this and every command, and left as it is: run the newer
release. An older instance restarted during a rolling upgrade may use it with
--allow-newer-schema, migrations being expand-only (docs/server.md).

--status applies nothing: it lists every migration, oldest first, with when it was
applied or "pending", and those a newer traineed applied ("applied, newer than
this traineed").`,
		Example: `  traineed migrate
  traineed migrate --status`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if !status {
				return e.withStore(func(*store.Store) error { return nil })
			}
			s, err := store.Open(e.ctx, e.db, store.WithoutMigrating())
			if err != nil {
				return err
			}
			defer s.Close()
			ms, err := s.MigrationStatus(e.ctx)
			if err != nil {
				return err
			}
			return printMigrations(e, ms)
		},
	}
	c.Flags().BoolVar(&status, "status", false, "list the applied and pending migrations; apply nothing")
	return c
}

// printMigrations writes `migrate --status`'s table: tab-separated off
// a terminal, for scripts (.ci/upgrade-check reads it).
func printMigrations(e *env, ms []store.MigrationState) error {
	rows := make([][]string, len(ms))
	for i, m := range ms {
		state, at := "applied", "-"
		switch {
		case m.Pending():
			state = "pending"
		case !m.Known:
			state = "applied, newer than this traineed"
		}
		if !m.Pending() {
			at = stamp(m.AppliedAt)
		}
		rows[i] = []string{m.Name, state, at}
	}
	return textout.WriteTable(e.out, e.width, []textout.Column{{Header: "MIGRATION"}, {Header: "STATE", Flex: true}, {Header: "APPLIED"}}, rows)
}

func newCompanyCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "company", Short: "Create and list companies (tenants)"}
	var name, zone string
	create := &cobra.Command{
		Use:     "create --name NAME [--time-zone ZONE]",
		Short:   "Create a company and print its id",
		Example: `  traineed company create --name "Acme Gym" --time-zone Europe/Berlin`,
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return e.withStore(func(s *store.Store) error {
				co, err := s.CreateCompany(e.ctx, name, zone)
				if err != nil {
					return err
				}
				fmt.Fprintln(e.out, co.ID)
				return nil
			})
		},
	}
	create.Flags().StringVar(&name, "name", "", "company name (required)")
	create.Flags().StringVar(&zone, "time-zone", "UTC", "IANA time zone that decides the company's \"today\"")
	_ = create.MarkFlagRequired("name")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the companies",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := checkOutput(e); err != nil {
				return err
			}
			return e.withStore(func(s *store.Store) error {
				cos, err := s.Companies(e.ctx)
				if err != nil {
					return err
				}
				return e.print(cos, []textout.Column{idColumn, {Header: "NAME", Flex: true}, {Header: "TIME ZONE"}, {Header: "CREATED"}}, func(row func(...any)) {
					for _, co := range cos {
						row(co.ID, co.Name, co.TimeZone, stamp(co.CreatedAt))
					}
				})
			})
		},
	}
	addOutputFlag(list, e)
	c.AddCommand(create, list)
	return c
}

func newTrainerCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "trainer", Short: "Create and list a company's trainers"}
	var company int64
	var name, email string
	create := &cobra.Command{
		Use:     "create --company ID --name NAME --email EMAIL",
		Short:   "Create a trainer and print its id",
		Example: `  traineed trainer create --company 1 --name "Sam Coach" --email sam@acme.example`,
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return e.withStore(func(s *store.Store) error {
				t, err := s.CreateTrainer(e.ctx, company, name, email)
				if err != nil {
					return err
				}
				fmt.Fprintln(e.out, t.ID)
				return nil
			})
		},
	}
	create.Flags().Int64Var(&company, "company", 0, "company id (required)")
	create.Flags().StringVar(&name, "name", "", "trainer's name (required)")
	create.Flags().StringVar(&email, "email", "", "trainer's e-mail (required)")
	for _, f := range []string{"company", "name", "email"} {
		_ = create.MarkFlagRequired(f)
	}
	list := &cobra.Command{
		Use:   "list --company ID",
		Short: "List a company's trainers",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := checkOutput(e); err != nil {
				return err
			}
			return e.withStore(func(s *store.Store) error {
				ts, err := s.Trainers(e.ctx, company)
				if err != nil {
					return err
				}
				return e.print(ts, []textout.Column{idColumn, {Header: "NAME", Flex: true}, {Header: "EMAIL", Flex: true}, {Header: "CREATED"}}, func(row func(...any)) {
					for _, t := range ts {
						row(t.ID, t.Name, t.Email, stamp(t.CreatedAt))
					}
				})
			})
		},
	}
	list.Flags().Int64Var(&company, "company", 0, "company id (required)")
	_ = list.MarkFlagRequired("company")
	addOutputFlag(list, e)
	c.AddCommand(create, list)
	return c
}

func newKeyCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "key", Short: "Create, list, disable, enable and delete API keys",
		Long: "An API key gives access to one company's trainees, webhooks and events: a full key (the\ndefault) to everything but administration, a read key (--scope read) to every GET and nothing\nelse, an admin key (--scope admin) to everything, the company's keys, trainers and settings\nincluded. The operator makes a company's first admin key; the company then runs itself over\nthe API (traineectl keys, trainers, company). A key is shown once, when it is created; only its\nSHA-256 is stored. Disabling or deleting a key takes effect on the very next request, on every\nserver instance."}
	c.AddCommand(newKeyCreateCmd(e), newKeyListCmd(e),
		idAction(e, "key", "disable", "Disable a key: refused from the next request on", func(s *store.Store, id int64) error {
			return s.SetKeyDisabled(e.ctx, id, true)
		}),
		idAction(e, "key", "enable", "Enable a disabled key again", func(s *store.Store, id int64) error {
			return s.SetKeyDisabled(e.ctx, id, false)
		}),
		idAction(e, "key", "delete", "Delete a key for good", func(s *store.Store, id int64) error {
			return s.DeleteKey(e.ctx, id)
		}))
	return c
}

func newKeyCreateCmd(e *env) *cobra.Command {
	var company int64
	var name, scope string
	create := &cobra.Command{
		Use:   "create --company ID --name NAME [--scope admin|full|read]",
		Short: "Create a key and print it: the only time it is ever shown",
		Example: `  traineed key create --company 1 --name "Owner" --scope admin
  traineed key create --company 1 --name "CRM sync"
  traineed key create --company 1 --name "BI dashboard" --scope read`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if !api.ValidKeyScope(scope) {
				return usageError{fmt.Errorf("--scope must be admin, full or read, not %q", scope)}
			}
			return e.withStore(func(s *store.Store) error {
				key := api.GenerateKey()
				if _, err := s.CreateScopedKey(e.ctx, company, name, scope, api.HashKey(key), api.KeyDisplayPrefix(key)); err != nil {
					return err
				}
				fmt.Fprintln(e.out, key)
				return nil
			})
		},
	}
	create.Flags().Int64Var(&company, "company", 0, "company id (required)")
	create.Flags().StringVar(&name, "name", "", "a name that says who uses the key (required)")
	create.Flags().StringVar(&scope, "scope", api.KeyScopeFull, "admin (every route, keys, trainers and settings included: a company's first key), full (every route but administration) or read (GET only: any write is a 403, errorCode 1014)")
	_ = create.MarkFlagRequired("company")
	_ = create.MarkFlagRequired("name")
	return create
}

func newKeyListCmd(e *env) *cobra.Command {
	var company int64
	list := &cobra.Command{
		Use:   "list --company ID",
		Short: "List a company's keys (never the keys themselves)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := checkOutput(e); err != nil {
				return err
			}
			return e.withStore(func(s *store.Store) error {
				ks, err := s.Keys(e.ctx, company)
				if err != nil {
					return err
				}
				return e.print(operatorKeys(ks), keyColumns, func(row func(...any)) {
					for _, k := range ks {
						used, expires, trainer := "never", "", ""
						if k.LastUsedAt != nil {
							used = stamp(*k.LastUsedAt)
						}
						if k.ExpiresAt != nil {
							expires = stamp(*k.ExpiresAt)
						}
						if k.TrainerName != nil {
							trainer = *k.TrainerName
						}
						row(k.ID, k.Name, k.Prefix, k.Scope, trainer, stamp(k.CreatedAt), used, expires, k.State)
					}
				})
			})
		},
	}
	list.Flags().Int64Var(&company, "company", 0, "company id (required)")
	_ = list.MarkFlagRequired("company")
	addOutputFlag(list, e)
	return list
}

// operatorKey is a key as `key list -o json` prints it: the contract's
// fields (commands.md) and the scope, its state active or disabled (an
// expired key is disabled); the API's GET /keys shows the rest.
type operatorKey struct {
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	State      string     `json:"state"`
	Scope      string     `json:"scope"`
}

func operatorKeys(ks []*api.APIKey) []operatorKey {
	out := make([]operatorKey, len(ks))
	for i, k := range ks {
		state := api.KeyActive
		if k.State != api.KeyActive {
			state = api.KeyDisabled
		}
		out[i] = operatorKey{ID: k.ID, Name: k.Name, Prefix: k.Prefix, CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt, State: state, Scope: k.Scope}
	}
	return out
}

// idColumn is the first column of the operator's tables.
var idColumn = textout.Column{Header: "ID", Right: true}

// keyColumns are the columns of `key list`: on a narrow terminal the
// creation and expiry go first, then the names are shortened.
var keyColumns = []textout.Column{idColumn, {Header: "NAME", Flex: true}, {Header: "PREFIX"}, {Header: "SCOPE"},
	{Header: "TRAINER", Flex: true}, {Header: "CREATED", Drop: 1}, {Header: "LAST USED"}, {Header: "EXPIRES", Drop: 2}, {Header: "STATE"}}

// print writes v as JSON with -o json, else a table of the rows fill
// adds, through the writer traineectl prints with (cmd/internal/textout):
// fitted to the terminal, tab-separated lines off one. Whatever a
// company's text (a name, a URL) or a receiver's (a delivery's error or
// response) holds, nothing of it commands the operator's terminal or
// breaks a row: a table shows every cell escaped (api.EscapeText: a
// newline as \u000a), JSON writes such characters as \u escapes, which
// read back as the stored text.
func (e *env) print(v any, cols []textout.Column, fill func(row func(...any))) error {
	if e.output == "json" {
		return textout.WriteJSON(e.out, v)
	}
	var rows [][]string
	fill(func(cells ...any) {
		row := make([]string, len(cells))
		for i, c := range cells {
			row[i] = fmt.Sprint(c)
		}
		rows = append(rows, row)
	})
	return textout.WriteTable(e.out, e.width, cols, rows)
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04Z") }
