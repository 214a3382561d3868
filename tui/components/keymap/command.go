package keymap

import (
	"charm.land/bubbles/v2/key"
)

func (k KeyMap) CommandHelp() HelpKeys {
	run := key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run"))
	tab := key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete"))
	esc := key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close"))
	return HelpKeys{Short: []key.Binding{run, tab, esc}, Full: [][]key.Binding{{run, tab, esc}}}
}
