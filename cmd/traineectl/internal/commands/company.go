package commands

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// `traineectl company ...`: the company's own settings.

func newCompanyCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "company <command>",
		Short: "Show or change your company's name and time zone",
		Long: `Your company's settings: its name and its time zone (an IANA name such as
Europe/London), the zone whose calendar day says who has expired "today".
Every key may show them; changing them needs an admin key (another key
exits 7, errorCode 1029).`,
		Example: `  traineectl company get
  traineectl company update --time-zone America/New_York`,
	}
	c.AddCommand(newCompanyGetCmd(f, nil), newCompanyUpdateCmd(f, nil))
	return c
}

// companyView prints the company: id, name, time zone, created.
func companyView(co *api.Company) output.View {
	return output.View{Value: co,
		CSVHeader: []string{"id", "name", "timeZone", "createdAt"},
		CSVRows:   [][]string{{id(co.ID), co.Name, co.TimeZone, output.Instant(co.CreatedAt)}},
		Columns: []output.Column{{Header: "ID", Field: "id", Right: true}, {Header: "NAME", Field: "name", Flex: true},
			{Header: "TIME ZONE", Field: "timeZone"}, {Header: "CREATED", Field: "createdAt"}},
		Rows: [][]string{{id(co.ID), co.Name, co.TimeZone, output.Stamp(co.CreatedAt)}}}
}

// CompanyGetOptions are the inputs of `traineectl company get` (none).
type CompanyGetOptions struct{}

func newCompanyGetCmd(f *cmdutil.Factory, runF func(*CompanyGetOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:     "get",
		Short:   "Show your company: id, name, time zone",
		Example: `  traineectl company get -o json`,
		Args:    cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o := &CompanyGetOptions{}
			return runWith(cmd.Context(), f, o, runF, runCompanyGet)
		},
	}
}

func runCompanyGet(ctx context.Context, f *cmdutil.Factory, _ *CompanyGetOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	co, err := c.Company(ctx)
	if err != nil {
		return err
	}
	return f.Print(companyView(co))
}

// CompanyUpdateOptions are the inputs of `traineectl company update`.
type CompanyUpdateOptions struct {
	Patch api.CompanyPatch
}

func newCompanyUpdateCmd(f *cmdutil.Factory, runF func(*CompanyUpdateOptions) error) *cobra.Command {
	var o CompanyUpdateOptions
	var name, zone string
	cmd := &cobra.Command{
		Use:   "update [--name NAME] [--time-zone ZONE]",
		Short: "Rename your company or change its time zone (admin key)",
		Long: `Change the company's name or time zone; sends only the flags given. The zone is
an IANA name (Europe/London, America/New_York, UTC), checked before anything
is sent; a zone the system lists in another case ("europe/dublin") is
refused with the name to give ("did you mean Europe/Dublin?"). From the
change on, the company's "today" (who has expired) is the day in the new
zone. Needs an admin key: another key exits 7 (errorCode 1029).`,
		Example: `  traineectl company update --name "Demo Fitness Ltd"
  traineectl company update --time-zone Europe/Dublin`,
		Args: cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Patch.Name = ifChanged(cmd.Flags(), "name", &name)
			o.Patch.TimeZone = ifChanged(cmd.Flags(), "time-zone", &zone)
			if o.Patch.Name == nil && o.Patch.TimeZone == nil {
				return nothingChanged("--name or --time-zone")
			}
			return runWith(cmd.Context(), f, &o, runF, runCompanyUpdate)
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the company's new name")
	cmd.Flags().StringVar(&zone, "time-zone", "", "the company's new time zone: an IANA name such as Europe/London")
	_ = cmd.RegisterFlagCompletionFunc("name", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("time-zone", completeTimeZones)
	return cmd
}

func runCompanyUpdate(ctx context.Context, f *cmdutil.Factory, o *CompanyUpdateOptions) error {
	if z := o.Patch.TimeZone; z != nil && api.CheckTimeZone(*z) != nil {
		if hint := zoneSuggestion(*z); hint != "" {
			return cmdutil.Usagef("--time-zone: %v%s", api.CheckTimeZone(*z), hint)
		}
	}
	parse := func(b []byte) error { _, err := api.ParseCompanyPatch(b); return err }
	if err := checkBody(o.Patch, parse, map[string]string{"timeZone": "time-zone"}); err != nil {
		return err
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	co, err := c.UpdateCompany(ctx, o.Patch)
	if err != nil {
		return err
	}
	noteDone(f, "Updated", "company", co.ID, co.Name)
	return f.Print(companyView(co))
}

// completeTimeZones offers the zones of systemZones that start with what
// was typed.
func completeTimeZones(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, z := range systemZones() {
		if strings.HasPrefix(z, toComplete) {
			out = append(out, z)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// systemZones are the IANA zones the system lists (zone1970.tab of
// $ZONEINFO or /usr/share/zoneinfo), sorted, and UTC; UTC alone when the
// system has no list.
func systemZones() []string {
	zones := []string{"UTC"}
	for _, dir := range []string{os.Getenv("ZONEINFO"), "/usr/share/zoneinfo"} {
		if dir == "" {
			continue
		}
		fh, err := os.Open(filepath.Join(dir, "zone1970.tab"))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			if cols := strings.Split(sc.Text(), "\t"); len(cols) >= 3 && !strings.HasPrefix(cols[0], "#") {
				zones = append(zones, cols[2])
			}
		}
		fh.Close()
		break
	}
	slices.Sort(zones)
	return slices.Compact(zones)
}

// zoneSuggestion is " (did you mean Europe/Dublin?)" for a zone that is
// one of systemZones in another case ("europe/dublin"), else "".
func zoneSuggestion(zone string) string {
	zone = strings.TrimSpace(zone)
	for _, z := range systemZones() {
		if strings.EqualFold(z, zone) {
			return fmt.Sprintf(" (did you mean %s?)", z)
		}
	}
	return ""
}
