package common

import (
	"strings"

	"github.com/traineed/traineed/tui/components/layout"
)

// What the dialogs (components/dialog, components/form, the root's bulk
// and conflict dialogs) share: each is drawn in a box centred over the
// page.

// DialogBox is text in the dialog's box, centred in the page's body.
func (c *Common) DialogBox(text string) string {
	return layout.PlaceCenter(c.Th.Dialog.Render(text), c.Width, c.ContentHeight())
}

// DialogWidth is the width of a dialog's text: what its box (a border
// and two spaces each side) leaves of the screen, at most 72.
func (c *Common) DialogWidth() int { return min(max(c.Width-8, 20), 72) }

// WrapDialog wraps text to lines of a dialog, after indent cells.
func (c *Common) WrapDialog(text string, indent int) string {
	return strings.Join(layout.WrapWords(text, max(c.DialogWidth()-indent, 10)), "\n"+strings.Repeat(" ", indent))
}

// DimLines are notes in the dim style, each wrapped to the dialog's
// width.
func (c *Common) DimLines(notes []string) string {
	var lines []string
	for _, n := range notes {
		for _, l := range layout.WrapWords(n, c.DialogWidth()) {
			lines = append(lines, c.Th.Dim.Render(l))
		}
	}
	return strings.Join(lines, "\n")
}
