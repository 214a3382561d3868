package dialog

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	lipgloss "charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/traineed/traineed/tui/components/keymap"
	"github.com/traineed/traineed/tui/internal/common"
)

// Keys is the key map page (?): every key of the page under it, in
// columns, and the server the TUI talks to.
type Keys struct {
	*common.Common
	hv *help.Model // the root's help, styled with the theme
}

// NewKeys is the key map page; hv is the root's help (its styles).
func NewKeys(c *common.Common, hv *help.Model) *Keys { return &Keys{Common: c, hv: hv} }

// Key closes the page on ? or esc; q quits.
func (km *Keys) Key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, km.Keys.Help, km.Keys.Back):
		return nil, true
	case key.Matches(msg, km.Keys.Quit):
		return tea.Quit, false
	}
	return nil, false
}

// Body is the key map of the page under it, and the server.
func (km *Keys) Body(under keymap.HelpKeys) string {
	body := km.Th.Accent.Render("Keys") + "\n\n" + km.columns(under)
	if km.Opt.Server != "" {
		body += "\n\n" + km.Th.Dim.Render("Server: "+km.Opt.Server)
	}
	return body
}

// columns lays the key map's groups side by side while they fit the
// width, and under one another when they do not: no key is cut.
func (km *Keys) columns(under keymap.HelpKeys) string {
	h := *km.hv
	h.ShowAll = true
	h.SetWidth(0)
	var rows []string
	var row []string
	w := 0
	for _, group := range under.FullHelp() {
		block := h.FullHelpView([][]key.Binding{group})
		if strings.TrimSpace(ansi.Strip(block)) == "" {
			continue // every key of the group is off
		}
		bw := lipgloss.Width(block)
		if len(row) > 0 && w+4+bw > km.Width {
			rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
			row, w = nil, 0
		}
		if len(row) > 0 {
			row = append(row, "    ")
			w += 4
		}
		row = append(row, block)
		w += bw
	}
	if len(row) > 0 {
		rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
	}
	return strings.Join(rows, "\n\n")
}

// Help is the page's: the help line stays as it was.
func (km *Keys) Help(under keymap.HelpKeys) keymap.HelpKeys { return under }
