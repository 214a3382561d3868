// Package keymap holds every key binding (KeyMap), the help of each
// screen (HelpKeys: the help line and the ? page), and the key tables the
// pages route their keys through (KeyRoute, Route: the first row that
// matches wins) instead of long switches. It imports api only.
package keymap
