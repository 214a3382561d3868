package theme

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	lipgloss "charm.land/lipgloss/v2"
)

// Theme holds every style the screens use. It is built for a light or a
// dark background (the terminal is asked with tea.RequestBackgroundColor),
// and without any colour under NO_COLOR, where selection and the active tab
// are still shown with reverse video, bold and brackets.
type Theme struct {
	noColor bool
	isDark  bool

	Title     lipgloss.Style // the title bar's name
	Dim       lipgloss.Style // secondary text
	Accent    lipgloss.Style // active tab, sort marker, headings
	Tab       lipgloss.Style // inactive tab
	Label     lipgloss.Style // field labels
	ErrText   lipgloss.Style // errors
	OkText    lipgloss.Style // confirmations
	WarnText  lipgloss.Style // warnings
	active    lipgloss.Style // badge: active
	expired   lipgloss.Style // badge: expired
	deleted   lipgloss.Style // badge: deleted
	Selected  lipgloss.Style // the table row under the cursor
	Header    lipgloss.Style // table headers
	ChartLine lipgloss.Style // the weight line
	Dialog    lipgloss.Style // the confirmation box
	Protein   lipgloss.Style // macro bars
	Carbs     lipgloss.Style
	Fat       lipgloss.Style
}

func NewTheme(isDark, noColor bool) Theme {
	ld := lipgloss.LightDark(isDark)
	c := func(light, dark string) color.Color {
		if noColor {
			return lipgloss.NoColor{}
		}
		return ld(lipgloss.Color(light), lipgloss.Color(dark))
	}
	fg := func(light, dark string) lipgloss.Style { return lipgloss.NewStyle().Foreground(c(light, dark)) }
	t := Theme{noColor: noColor, isDark: isDark}
	t.Title = fg("#5A3FC0", "#B9A6FF").Bold(true)
	t.Dim = fg("#6C6C6C", "#8A8A8A")
	t.Accent = fg("#5A3FC0", "#B9A6FF").Bold(true)
	t.Tab = fg("#4A4A4A", "#BDBDBD")
	t.Label = fg("#555555", "#9E9E9E")
	t.ErrText = fg("#B00020", "#FF6B6B").Bold(true)
	t.OkText = fg("#1B7F3B", "#7CDB8A")
	t.WarnText = fg("#8A5A00", "#F2C94C")
	t.active = fg("#1B7F3B", "#7CDB8A")
	t.expired = fg("#8A5A00", "#F2C94C")
	t.deleted = fg("#B00020", "#FF6B6B")
	t.Header = fg("#333333", "#E0E0E0").Bold(true)
	t.Selected = lipgloss.NewStyle().Bold(true).Reverse(true)
	if !noColor {
		t.Selected = lipgloss.NewStyle().Bold(true).
			Foreground(c("#FFFFFF", "#FFFFFF")).Background(c("#5A3FC0", "#4B3A9E"))
	}
	t.ChartLine = fg("#1565C0", "#64B5F6")
	t.Dialog = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(c("#B00020", "#FF6B6B")).Padding(0, 2)
	t.Protein = fg("#1565C0", "#64B5F6")
	t.Carbs = fg("#8A5A00", "#F2C94C")
	t.Fat = fg("#B00020", "#FF8A80")
	if noColor {
		t.Accent = lipgloss.NewStyle().Bold(true).Underline(true)
	}
	return t
}

// HelpStyles are the bubbles help styles of the theme.
func (t Theme) HelpStyles() help.Styles {
	if t.noColor {
		plain := lipgloss.NewStyle()
		return help.Styles{ShortKey: plain.Bold(true), ShortDesc: plain, ShortSeparator: plain, Ellipsis: plain,
			FullKey: plain.Bold(true), FullDesc: plain, FullSeparator: plain}
	}
	return help.DefaultStyles(t.isDark)
}

// InputStyles are a text input's styles in the theme: a cursor that does
// not blink, the prompt in the accent; no colour under NO_COLOR.
func (t Theme) InputStyles() textinput.Styles {
	st := textinput.DefaultStyles(t.isDark)
	if t.noColor {
		st = textinput.Styles{}
	}
	st.Cursor.Blink = false
	st.Focused.Prompt = t.Accent
	return st
}

// Badge renders a status: active, expired or deleted.
func (t Theme) Badge(status string) string {
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
