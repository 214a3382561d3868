package commands

import (
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

// Every create field of api.TraineePatch is a flag of `traineectl create`
// with its createHelp, refused with -f, and every field with a flag is one
// of `traineectl update` with its help.
func TestCreateAndUpdateFlagsComeFromTheTable(t *testing.T) {
	ios, _, _ := iostreams.Test("")
	f := &cmdutil.Factory{IOStreams: ios}
	create, update := newCreateCmd(f, nil), newUpdateCmd(f, nil)
	for _, pf := range api.TraineePatchFields {
		if pf.Flag == "" {
			continue
		}
		if fl := update.Flags().Lookup(pf.Flag); fl == nil || fl.Usage != pf.Help {
			t.Errorf("update --%s: %+v, want the help %q", pf.Flag, fl, pf.Help)
		}
		fl := create.Flags().Lookup(pf.Flag)
		switch {
		case pf.Create == "" && fl != nil:
			t.Errorf("create has --%s, but %s is no create field", pf.Flag, pf.Name)
		case pf.Create != "" && (fl == nil || fl.Usage != pf.CreateHelp):
			t.Errorf("create --%s: %+v, want the help %q", pf.Flag, fl, pf.CreateHelp)
		}
	}
	for _, pf := range api.CreateFields {
		found := false
		for _, n := range oneFlags {
			found = found || n == pf.Flag
		}
		if !found {
			t.Errorf("--%s is not refused with -f", pf.Flag)
		}
	}
	if fl := create.Flags().Lookup("trainer"); fl == nil || fl.Value.Type() != "string" {
		t.Errorf("create --trainer is %+v, want a text flag (an id or a name)", fl)
	}
}
