package trainee

import (
	"charm.land/bubbles/v2/key"

	"github.com/traineed/traineed/tui/components/keymap"
)

// traineeHelp is the trainee page's key map for a trainee enabled or
// deleted (the short line offers d delete or u restore).
func traineeHelp(k keymap.KeyMap, tab int, readOnly, deleted bool) keymap.HelpKeys {
	left, right := k.Left, k.Right
	what := ""
	switch tab {
	case tabWeight:
		what = "range"
		left.SetHelp("←/h", "shorter range")
		right.SetHelp("→/l", "longer range")
	case tabMeasurements:
		what = "type"
		left.SetHelp("←/h", "previous type")
		right.SetHelp("→/l", "next type")
	case tabNutrition:
		what = "day"
		left.SetHelp("←/h", "previous day")
		right.SetHelp("→/l", "next day")
	default:
		left.SetEnabled(false)
		right.SetEnabled(false)
	}
	// The short line names both arrows at once.
	arrows := key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", what))
	arrows.SetEnabled(what != "")
	rng, today := k.Range, k.Today
	rng.SetEnabled(tab == tabMeasurements)
	today.SetEnabled(tab == tabNutrition)
	tabs := k.Status
	tabs.SetHelp("1-5", "tab")
	edit, del, restore := k.Edit, k.Delete, k.Restore
	for _, b := range []*key.Binding{&edit, &del, &restore} {
		b.SetEnabled(!readOnly)
	}
	change := del
	if deleted {
		change = restore
	}
	return keymap.HelpKeys{
		Short: []key.Binding{k.NextTab, arrows, edit, change, k.Back, k.Help, k.Quit},
		Full: [][]key.Binding{
			{k.NextTab, k.PrevTab, tabs, left, right, rng, today},
			{k.Up, k.Down, k.PageUp, k.PageDown, k.Top},
			{edit, del, restore, k.Refresh},
			{k.Help, k.Back, k.Quit},
		},
	}
}
