package keymap

import (
	"slices"

	"charm.land/bubbles/v2/key"
)

// homeHelp is the dashboard's key map; whose is the trainees it counts
// for a key bound to a trainer (m switches), limited whether the key is
// limited to its trainer's trainees (w and a need a company-wide key),
// admin whether the key may administer the company (S says the Settings
// page is read-only when it may not).
func (k KeyMap) HomeHelp(whose string, limited, admin bool) HelpKeys {
	open, list, cmd, settings := k.Open, k.List, k.Command, k.Settings
	open.SetHelp("enter", "open")
	cmd.SetHelp(":", "cmd")
	if !admin {
		settings.SetHelp("S", "settings (read-only)")
	}
	pages, short := k.companyPages(limited)
	// S settings is the last hint before ? help: the first to give way
	// on a narrow terminal.
	return HelpKeys{
		Short: slices.Concat([]key.Binding{open, list, cmd}, short, []key.Binding{k.Settings, k.Help, k.Quit}),
		Full: [][]key.Binding{
			{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, open},
			slices.Concat([]key.Binding{list, k.mine(whose, limited)}, pages, []key.Binding{settings, k.Refresh}),
			{k.Help, k.Quit},
		},
	}
}
