package keymap

import (
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
