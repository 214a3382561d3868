package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// modal is a page the root draws over the body of the page on screen: the
// key map (?), the dialogs (dialog.go: the question before a delete...). It takes every key while
// it is open (ctrl+c still quits); the page's title lines stay, and the
// page goes on under it (its answers arrive, it may even change).
type modal interface {
	// key handles a key press; closed closes the modal.
	key(msg tea.KeyPressMsg) (cmd tea.Cmd, closed bool)
	// body is drawn instead of the page's; under is the page's key map.
	body(under helpKeys) string
	// help is the key map of the modal over a page whose map is under.
	help(under helpKeys) helpKeys
}

// keysModal is the key map page (?): every key of the page under it, in
// columns, and the server the TUI talks to.
type keysModal struct {
	*common
	hv *help.Model // the root's help, styled with the theme
}

func (km *keysModal) key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, km.keys.Help, km.keys.Back):
		return nil, true
	case key.Matches(msg, km.keys.Quit):
		return tea.Quit, false
	}
	return nil, false
}

func (km *keysModal) body(under helpKeys) string {
	body := km.th.accent.Render("Keys") + "\n\n" + km.columns(under)
	if km.opt.Server != "" {
		body += "\n\n" + km.th.dim.Render("Server: "+km.opt.Server)
	}
	return body
}

// columns lays the key map's groups side by side while they fit the
// width, and under one another when they do not: no key is cut.
func (km *keysModal) columns(under helpKeys) string {
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
		if len(row) > 0 && w+4+bw > km.width {
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

// help is the page's: the help line stays as it was.
func (km *keysModal) help(under helpKeys) helpKeys { return under }
