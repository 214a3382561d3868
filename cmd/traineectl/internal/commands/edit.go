package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// EditOptions are the inputs of `traineectl edit`.
type EditOptions struct {
	ID   int64
	File string // --file: an edit kept after a 412, to start from
}

func newEditCmd(f *cmdutil.Factory, runF func(*EditOptions) error) *cobra.Command {
	var o EditOptions
	cmd := &cobra.Command{
		Use:   "edit ID",
		Short: "Edit a trainee in your editor",
		Long: `Open a trainee in your editor as YAML ($EDITOR, else $VISUAL, else vi), as
kubectl edit does. Change the fields, save and quit: the changes are checked
with the API's own rules, and only the fields you changed are sent, with
If-Match, so a change someone else made after the trainee was read is never
overwritten (nothing is changed then, and your edit is kept in a file:
--file FILE starts from it again).

--file FILE opens your kept edit over the trainee as it is on the server now:
the fields you changed carry your values, the others the server's (a field
a colleague changed too is named at the top). Save to send it: only the
fields that differ from the server's version are sent, with its If-Match.

When a change is invalid, the file opens again with the errors as comments
at the top; quit without changing it to give up. A file saved unchanged, or
emptied, changes nothing ("Edit cancelled, no changes made."). Lines that
begin with # are ignored. The password is not shown: use
"traineectl update ID --password-stdin".`,
		Example: `  traineectl edit 41
  EDITOR="code --wait" traineectl edit 41
  traineectl edit 41 --file /tmp/traineectl-edit-41-123.yaml   # after a conflict`,
		Args:              cmdutil.ExactArgs(1, "a trainee id"),
		ValidArgsFunction: completeTraineeIDs(f, api.StatusAll, false),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.ID, err = cmdutil.ParseID(args[0]); err != nil {
				return err
			}
			return runWith(cmd.Context(), f, &o, runF, runEdit)
		},
	}
	cmd.Flags().StringVarP(&o.File, "file", "f", "", "start from an edit kept after a conflict (the file the conflict's message names)")
	_ = cmd.MarkFlagFilename("file", "yaml")
	return cmd
}

// runEdit reads the trainee, lets the editor change it until it is valid
// or unchanged, and sends the changed fields with If-Match.
func runEdit(ctx context.Context, f *cmdutil.Factory, o *EditOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	var read client.Response
	t, err := c.Trainee(ctx, o.ID, client.WithResponse(&read))
	if err != nil {
		return err
	}
	etag := read.ETag
	dir, err := os.MkdirTemp("", "traineectl-edit-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, fmt.Sprintf("trainee-%d.yaml", t.ID))
	original := editDocument(t, etag, nil)
	start := original
	if o.File != "" {
		if start, err = resumeDocument(o.File, t, etag); err != nil {
			return err
		}
	}
	patch, edited, err := editLoop(f, path, start, original, t)
	if err != nil || patch == nil {
		return err
	}
	u, err := c.UpdateTrainee(ctx, t.ID, *patch, client.IfMatch(etag))
	var pf *client.PreconditionFailedError
	if errors.As(err, &pf) {
		kept := keepEdit(t, edited)
		return &cmdutil.StatusError{Code: cmdutil.ExitRejected, Err: fmt.Errorf(
			"trainee %d changed meanwhile: someone updated it after it was read, and nothing was changed; your edit is kept in %s: run \"traineectl edit %d --file %s\" to apply it over the new version", t.ID, kept, t.ID, kept)}
	}
	if err != nil {
		return err
	}
	noteTrainee(f, "Edited", u)
	return printTrainees(ctx, f, []*api.Trainee{u}, true)
}

// editLoop opens the document in the editor, starting from start, until
// what is saved is valid (the patch of its changes from t), the same as
// original (t's document) or empty (nil: cancelled, said on stderr); an
// error is shown at the top of the file, which opens again. It returns
// the patch and the edited text. Saved without a change after an error,
// it gives up (exit status 2, every error said).
func editLoop(f *cmdutil.Factory, path, start, original string, t *api.Trainee) (*api.TraineePatch, []byte, error) {
	content := start
	var lastErr error
	for {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			return nil, nil, err
		}
		if err := runEditor(f, path); err != nil {
			return nil, nil, err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		if lastErr != nil && string(b) == content {
			return nil, nil, &cmdutil.StatusError{Code: cmdutil.ExitUsage, Err: fmt.Errorf("the edit was not saved: %w", lastErr)}
		}
		body := stripComments(string(b))
		if strings.TrimSpace(body) == "" || body == stripComments(original) {
			fmt.Fprintln(f.IOStreams.ErrOut, "Edit cancelled, no changes made.")
			return nil, nil, nil
		}
		p, err := editPatch(body, t, f.Today())
		if err == nil && p.IsEmpty() {
			fmt.Fprintln(f.IOStreams.ErrOut, "Edit cancelled, no changes made.")
			return nil, nil, nil
		}
		if err == nil {
			return p, b, nil
		}
		lastErr = err
		content = errorHeader(err) + body
	}
}

// editorCommand is $EDITOR, else $VISUAL, else vi.
func editorCommand(f *cmdutil.Factory) string {
	for _, name := range []string{"EDITOR", "VISUAL"} {
		if e := strings.TrimSpace(f.Getenv(name)); e != "" {
			return e
		}
	}
	return "vi"
}

// runEditor runs the editor on path with the command's streams; the
// editor's command may carry arguments ("code --wait").
func runEditor(f *cmdutil.Factory, path string) error {
	words := strings.Fields(editorCommand(f))
	cmd := exec.Command(words[0], append(words[1:], path)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = f.IOStreams.In, f.IOStreams.Out, f.IOStreams.ErrOut
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the editor %q failed: %w; nothing was changed", words[0], err)
	}
	return nil
}

// editDocument is the trainee as the file the editor opens: every field
// an update can set, in the API's form (the value in mine instead, for a
// field it holds), then the read-only ones as comments.
func editDocument(t *api.Trainee, etag string, mine map[string]any) string {
	return editDocumentBeside(t, etag, mine, nil)
}

// editDocumentBeside is editDocument with, under each field of server
// (the fields both you and someone else changed since your edit began),
// the server's value as a comment, as the TUI shows it beside yours.
func editDocumentBeside(t *api.Trainee, etag string, mine map[string]any, server map[string]bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Edit trainee %d and save; lines beginning with # are ignored, and an\n", t.ID)
	if len(mine) == 0 {
		b.WriteString("# empty file (or one saved unchanged) cancels the edit. Only the fields you\n")
		b.WriteString("# change are sent, with If-Match: " + etag + ". null clears a field that can be empty.\n")
	} else { // a kept edit (--file): saved as it is, it is sent
		b.WriteString("# empty file cancels the edit; saved as it is, the fields that differ from the\n")
		b.WriteString("# server's are sent, with If-Match: " + etag + ". null clears a field that can be empty.\n")
	}
	b.WriteString("# Dates are dd-MM-yyyy.\n")
	for i := range api.TraineePatchFields {
		pf := &api.TraineePatchFields[i]
		if pf.WriteOnly {
			continue
		}
		v, ok := mine[pf.Name]
		if !ok {
			v = pf.Of(t)
		}
		b.WriteString(yamlLine(pf.Name, v))
		if server[pf.Name] {
			b.WriteString("#   the server's, changed meanwhile: " + strings.TrimSpace(yamlLine(pf.Name, pf.Of(t))) + "\n")
		}
	}
	fmt.Fprintf(&b, "# Read-only: id %d, userId %d, createdByType %s, lastTrained %s\n",
		t.ID, t.UserID, t.CreatedByType, dateText(t.LastTrained))
	return b.String()
}

func dateText(d *api.Date) string {
	if d == nil {
		return "null"
	}
	return d.String()
}

// yamlLine is "name: value" with the value as JSON writes it (a valid
// YAML scalar), strings quoted only when YAML needs it.
func yamlLine(name string, v any) string {
	if v == nil {
		return name + ": null\n"
	}
	if s, ok := v.(string); ok {
		out, err := yaml.Marshal(map[string]string{name: s})
		if err == nil {
			return string(out)
		}
	}
	j, _ := json.Marshal(v)
	return name + ": " + strings.Trim(string(j), `"`) + "\n"
}

// stripComments drops the lines that begin with #.
func stripComments(s string) string {
	var b strings.Builder
	for line := range strings.SplitAfterSeq(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// errorHeader is err as comments for the top of the file.
func errorHeader(err error) string {
	var b strings.Builder
	b.WriteString("# The change was not saved:\n")
	var v *api.ValidationError
	if errors.As(err, &v) {
		for _, e := range v.Errors {
			line := fmt.Sprintf("%s (%d)", e.Message, e.ErrorCode)
			if e.Field != "" {
				line = e.Field + ": " + line
			}
			b.WriteString("#   " + api.EscapeText(line) + "\n")
		}
	} else {
		b.WriteString("#   " + api.EscapeText(err.Error()) + "\n")
	}
	b.WriteString("# Fix it and save, or quit without a change to give up.\n#\n")
	return b.String()
}

// editPatch reads the edited YAML and returns the patch of the fields
// whose value differs from t, checked by the API's rules (ParseUpdate).
func editPatch(body string, t *api.Trainee, today api.Date) (*api.TraineePatch, error) {
	vals, err := editValues(body)
	if err != nil {
		return nil, err
	}
	changed := map[string]any{}
	for name, val := range vals {
		if fmt.Sprint(val) != fmt.Sprint(jsonValue(api.PatchFieldNamed(name).Of(t))) {
			changed[name] = val
		}
	}
	j, err := json.Marshal(changed)
	if err != nil {
		return nil, api.Invalid(api.CodeBadJSON, "", "%v", err)
	}
	return api.ParseUpdate(j, today)
}

// editValues reads the edited YAML: each field's value as JSON would
// carry it. Every field that is not one an edit sets, and every value
// that is not one scalar, is an error.
func editValues(body string) (map[string]any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(body), &doc); err != nil {
		return nil, api.Invalid(api.CodeBadJSON, "", "not YAML: %v", err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, api.Invalid(api.CodeBadJSON, "", "not a YAML mapping of fields (name: value, one a line)")
	}
	m := doc.Content[0].Content
	vals := map[string]any{}
	v := &api.ValidationError{}
	for i := 0; i+1 < len(m); i += 2 {
		name := m[i].Value
		pf := api.PatchFieldNamed(name)
		if pf == nil || pf.WriteOnly {
			v.Add(api.CodeInvalidParameter, name, "%s is not a field you can edit here", name)
			continue
		}
		val, err := scalarOf(m[i+1], pf)
		if err != nil {
			v.Add(api.CodeBadJSON, name, "%s: %v", name, err)
			continue
		}
		vals[name] = val
	}
	return vals, v.Err()
}

// scalarOf is a field's YAML value as JSON would carry it: null, the text
// of a text or date field as it was typed (+447700900123 stays text), a
// number or a boolean.
func scalarOf(n *yaml.Node, pf *api.PatchField) (any, error) {
	if n.Kind != yaml.ScalarNode {
		return nil, errors.New("want one value")
	}
	if n.Tag == "!!null" {
		return nil, nil
	}
	if pf.Kind == api.KindString || pf.Kind == api.KindDate {
		return n.Value, nil
	}
	var out any
	if err := n.Decode(&out); err != nil {
		return nil, err
	}
	if i, ok := out.(int); ok {
		return float64(i), nil
	}
	return out, nil
}

// jsonValue is v as JSON reads it back (a date as its string).
func jsonValue(v any) any {
	if v == nil {
		return nil
	}
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// keptBaseLine begins the comment of a kept edit that holds the values
// the edit started from (JSON), so that --file tells the fields the edit
// changed from those it left.
const keptBaseLine = "# traineectl-edit-base: "

// keepEdit saves an edit the server refused with 412, for edit --file:
// the edited fields, after a comment with t's values (the edit's base).
func keepEdit(t *api.Trainee, edited []byte) string {
	fh, err := os.CreateTemp("", fmt.Sprintf("traineectl-edit-%d-*.yaml", t.ID))
	if err != nil {
		return "(nowhere: " + err.Error() + ")"
	}
	defer fh.Close()
	base := map[string]any{}
	for i := range api.TraineePatchFields {
		if pf := &api.TraineePatchFields[i]; !pf.WriteOnly {
			base[pf.Name] = jsonValue(pf.Of(t))
		}
	}
	j, _ := json.Marshal(base)
	fmt.Fprintf(fh, "# Your edit of trainee %d, kept after a conflict: traineectl edit %d --file %s\n", t.ID, t.ID, fh.Name())
	fmt.Fprintf(fh, "%s%s\n", keptBaseLine, j)
	_, _ = fh.WriteString(stripComments(string(edited)))
	return fh.Name()
}

// resumeDocument is the document edit --file opens: the edit kept in path
// over t, the server's version now. A kept edit with its base carries
// only the fields it changed; without one (a file written by hand) every
// field of the file is taken. A file that does not read as fields opens
// as it is, with the error on top.
func resumeDocument(path string, t *api.Trainee, etag string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", cmdutil.Usagef("--file: %v", err)
	}
	vals, err := editValues(stripComments(string(b)))
	if err != nil {
		return errorHeader(err) + stripComments(string(b)), nil
	}
	base, hasBase := keptBase(string(b))
	mine := map[string]any{}
	var yours, both, theirs []string
	for i := range api.TraineePatchFields {
		pf := &api.TraineePatchFields[i]
		v, ok := vals[pf.Name]
		now := fmt.Sprint(jsonValue(pf.Of(t)))
		serverChanged := hasBase && fmt.Sprint(base[pf.Name]) != now
		switch {
		case ok && (!hasBase || fmt.Sprint(base[pf.Name]) != fmt.Sprint(v)):
			mine[pf.Name] = v
			yours = append(yours, pf.Name)
			if serverChanged && fmt.Sprint(v) != now {
				both = append(both, pf.Name)
			}
		case serverChanged:
			theirs = append(theirs, pf.Name)
		}
	}
	var h strings.Builder
	fmt.Fprintf(&h, "# Your edit from %s, over trainee %d as it is on the server now.\n", api.EscapeText(path), t.ID)
	fmt.Fprintf(&h, "# Your fields: %s. Saving sends those that differ from the server's version.\n", listOrNone(yours))
	if len(theirs)+len(both) > 0 {
		fmt.Fprintf(&h, "# Changed on the server meanwhile: %s", listOrNone(append(theirs, both...)))
		if len(both) > 0 {
			fmt.Fprintf(&h, " (yours kept for %s: check them)", strings.Join(both, ", "))
		}
		h.WriteString(".\n")
	}
	server := map[string]bool{}
	for _, name := range both {
		server[name] = true
	}
	return h.String() + editDocumentBeside(t, etag, mine, server), nil
}

// keptBase is the base of a kept edit, if the file has one.
func keptBase(s string) (map[string]any, bool) {
	for line := range strings.SplitSeq(s, "\n") {
		if j, ok := strings.CutPrefix(line, keptBaseLine); ok {
			var m map[string]any
			if json.Unmarshal([]byte(j), &m) == nil {
				return m, true
			}
		}
	}
	return nil, false
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
