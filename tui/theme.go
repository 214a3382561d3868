package tui

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
)

// theme holds every style the screens use. It is built for a light or a
// dark background (the terminal is asked with tea.RequestBackgroundColor),
// and without any colour under NO_COLOR, where selection and the active tab
// are still shown with reverse video, bold and brackets.
type theme struct {
	noColor bool
	isDark  bool

	title     lipgloss.Style // the title bar's name
	dim       lipgloss.Style // secondary text
	accent    lipgloss.Style // active tab, sort marker, headings
	tab       lipgloss.Style // inactive tab
	label     lipgloss.Style // field labels
	errText   lipgloss.Style // errors
	okText    lipgloss.Style // confirmations
	warnText  lipgloss.Style // warnings
	active    lipgloss.Style // badge: active
	expired   lipgloss.Style // badge: expired
	deleted   lipgloss.Style // badge: deleted
	selected  lipgloss.Style // the table row under the cursor
	header    lipgloss.Style // table headers
	chartLine lipgloss.Style // the weight line
	dialog    lipgloss.Style // the confirmation box
	protein   lipgloss.Style // macro bars
	carbs     lipgloss.Style
	fat       lipgloss.Style
}

func newTheme(isDark, noColor bool) theme {
	ld := lipgloss.LightDark(isDark)
	c := func(light, dark string) color.Color {
		if noColor {
			return lipgloss.NoColor{}
		}
		return ld(lipgloss.Color(light), lipgloss.Color(dark))
	}
	fg := func(light, dark string) lipgloss.Style { return lipgloss.NewStyle().Foreground(c(light, dark)) }
	t := theme{noColor: noColor, isDark: isDark}
	t.title = fg("#5A3FC0", "#B9A6FF").Bold(true)
	t.dim = fg("#6C6C6C", "#8A8A8A")
	t.accent = fg("#5A3FC0", "#B9A6FF").Bold(true)
	t.tab = fg("#4A4A4A", "#BDBDBD")
	t.label = fg("#555555", "#9E9E9E")
	t.errText = fg("#B00020", "#FF6B6B").Bold(true)
	t.okText = fg("#1B7F3B", "#7CDB8A")
	t.warnText = fg("#8A5A00", "#F2C94C")
	t.active = fg("#1B7F3B", "#7CDB8A")
	t.expired = fg("#8A5A00", "#F2C94C")
	t.deleted = fg("#B00020", "#FF6B6B")
	t.header = fg("#333333", "#E0E0E0").Bold(true)
	t.selected = lipgloss.NewStyle().Bold(true).Reverse(true)
	if !noColor {
		t.selected = lipgloss.NewStyle().Bold(true).
			Foreground(c("#FFFFFF", "#FFFFFF")).Background(c("#5A3FC0", "#4B3A9E"))
	}
	t.chartLine = fg("#1565C0", "#64B5F6")
	t.dialog = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(c("#B00020", "#FF6B6B")).Padding(0, 2)
	t.protein = fg("#1565C0", "#64B5F6")
	t.carbs = fg("#8A5A00", "#F2C94C")
	t.fat = fg("#B00020", "#FF8A80")
	if noColor {
		t.accent = lipgloss.NewStyle().Bold(true).Underline(true)
	}
	return t
}

// helpStyles are the bubbles help styles of the theme.
func (t theme) helpStyles() help.Styles {
	if t.noColor {
		plain := lipgloss.NewStyle()
		return help.Styles{ShortKey: plain.Bold(true), ShortDesc: plain, ShortSeparator: plain, Ellipsis: plain,
			FullKey: plain.Bold(true), FullDesc: plain, FullSeparator: plain}
	}
	return help.DefaultStyles(t.isDark)
}

// inputStyles are a text input's styles in the theme: a cursor that does
// not blink, the prompt in the accent; no colour under NO_COLOR.
func (t theme) inputStyles() textinput.Styles {
	st := textinput.DefaultStyles(t.isDark)
	if t.noColor {
		st = textinput.Styles{}
	}
	st.Cursor.Blink = false
	st.Focused.Prompt = t.accent
	return st
}

// badge renders a status: active, expired or deleted.
func (t theme) badge(status string) string {
	switch status {
	case "active":
		return t.active.Render(status)
	case "expired":
		return t.expired.Render(status)
	case "deleted":
		return t.deleted.Render(status)
	}
	return status
}
