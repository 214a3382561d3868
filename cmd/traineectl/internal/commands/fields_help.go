package commands

import (
	"strings"

	"github.com/traineed/traineed/api"
)

// The help's lists of the trainee's fields are written from the field
// table (api.CreateFields), so that a field added there is in create's,
// export's and apply's help with no change here; fieldsHelp puts each
// list in its paragraph (a "{name}" placeholder) and wraps it.

// helpWidth is the width help paragraphs are wrapped to.
const helpWidth = 76

// fieldsHelp is text with its placeholders replaced by the field lists:
// {createColumns} (create -f's columns with their other names, then
// requestId), {exportColumns} (the columns export writes), {clearable}
// (the fields an empty cell clears in apply -f). Each paragraph that held
// one is wrapped again at helpWidth.
func fieldsHelp(text string) string {
	lists := map[string]string{
		"{createColumns}": createColumnsProse(),
		"{exportColumns}": joinProse(exportColumns(), "and"),
		"{clearable}":     joinProse(clearableColumns(), "or"),
	}
	paras := strings.Split(text, "\n\n")
	for i, p := range paras {
		changed := false
		for k, v := range lists {
			if strings.Contains(p, k) {
				p, changed = strings.ReplaceAll(p, k, v), true
			}
		}
		if changed {
			p = wrapWords(p, helpWidth)
		}
		paras[i] = p
	}
	return strings.Join(paras, "\n\n")
}

// createColumnsProse: "name, email, password, phoneNumber or phone, ...,
// weightUnit, and an optional requestId".
func createColumnsProse() string {
	var cols []string
	for _, pf := range api.CreateFields {
		n := pf.Name
		if alias := pf.Flag; alias != "" && !strings.Contains(alias, "-") && !strings.EqualFold(alias, pf.Name) {
			n += " or " + alias
		}
		cols = append(cols, n)
	}
	return strings.Join(cols, ", ") + ", and an optional requestId"
}

// exportColumns are the create fields export writes (never a password).
func exportColumns() []string {
	var out []string
	for _, pf := range api.CreateFields {
		if !pf.WriteOnly {
			out = append(out, pf.Name)
		}
	}
	return out
}

// clearableColumns are the create fields whose empty cell clears them.
func clearableColumns() []string {
	var out []string
	for _, pf := range api.CreateFields {
		if pf.Nullable {
			out = append(out, pf.Name)
		}
	}
	return out
}

// joinProse: "a, b and c" (or "or").
func joinProse(items []string, last string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + last + " " + items[len(items)-1]
}

// wrapWords wraps a paragraph's words at width columns.
func wrapWords(p string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(p) {
		switch {
		case n == 0:
		case n+1+len(w) > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
