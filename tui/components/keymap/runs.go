package keymap

import (
	"charm.land/bubbles/v2/key"
)

func (k KeyMap) RunsHelp() HelpKeys {
	return HelpKeys{
		Short: []key.Binding{k.Up, k.Down, k.Refresh, k.Back, k.Help, k.Quit},
		Full:  [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, {k.Refresh}, {k.Help, k.Back, k.Quit}},
	}
}
