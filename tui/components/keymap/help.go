package keymap

import (
	"slices"

	"charm.land/bubbles/v2/key"
)

func (k KeyMap) AutomationsHelp() HelpKeys {
	open := k.Open
	open.SetHelp("enter", "runs")
	return HelpKeys{
		Short: []key.Binding{open, k.Up, k.Down, k.Refresh, k.Back, k.Help, k.Quit},
		Full:  [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, {open, k.Refresh}, {k.Help, k.Back, k.Quit}},
	}
}

func (k KeyMap) CommandHelp() HelpKeys {
	run := key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run"))
	tab := key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete"))
	esc := key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close"))
	return HelpKeys{Short: []key.Binding{run, tab, esc}, Full: [][]key.Binding{{run, tab, esc}}}
}

// HomeHelp is the dashboard's key map; whose is the trainees it counts
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

func (k KeyMap) RunsHelp() HelpKeys {
	return HelpKeys{
		Short: []key.Binding{k.Up, k.Down, k.Refresh, k.Back, k.Help, k.Quit},
		Full:  [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, {k.Refresh}, {k.Help, k.Back, k.Quit}},
	}
}
