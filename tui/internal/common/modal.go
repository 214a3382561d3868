package common

import (
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/tui/components/keymap"
)

// Modal is a page the root draws over the body of the page on screen: the
// key map (?), the dialogs (components/dialog: the question before a
// delete...), the entry form (components/form), the : line
// (components/commandline), and the root's bulk and conflict dialogs. It
// takes every key while it is open (ctrl+c still quits); the page's title lines stay, and the
// page goes on under it (its answers arrive, it may even change).
type Modal interface {
	// Key handles a key press; closed closes the modal.
	Key(msg tea.KeyPressMsg) (cmd tea.Cmd, closed bool)
	// Body is drawn instead of the page's; under is the page's key map.
	Body(under keymap.HelpKeys) string
	// Help is the key map of the modal over a page whose map is under.
	Help(under keymap.HelpKeys) keymap.HelpKeys
}
