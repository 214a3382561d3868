package bulkimport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/traineed/traineed/api"
)

// readJSONL reads JSON Lines: a create body per line.
func (rd *reader) readJSONL(r io.Reader) ([]Row, error) {
	br := bufio.NewReader(r)
	var rows []Row
	for num := 1; ; num++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if len(line) == 0 && err != nil {
			return rows, nil
		}
		line = bytes.TrimSpace(line)
		if num == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		if len(line) > 0 {
			if len(line) > maxLine {
				rows = append(rows, Row{Num: num, Errors: []api.FieldError{{ErrorCode: api.CodeBadJSON,
					Message: fmt.Sprintf("line longer than %d bytes", maxLine)}}})
			} else {
				rows = append(rows, rd.jsonRow(num, line))
			}
		}
		if err != nil {
			return rows, nil
		}
	}
}

// jsonRow validates one JSON Lines line: a create body as the API takes it
// (its members named as the CSV columns may be, or by the map), with an
// optional requestId member.
func (rd *reader) jsonRow(num int, line []byte) Row {
	var in map[string]json.RawMessage
	if json.Unmarshal(line, &in) != nil || in == nil {
		_, err := api.ParseCreate(line, rd.o.Today) // the server's own 1000
		return Row{Num: num, Errors: fieldErrors(err)}
	}
	m, errs := rd.renameMembers(in)
	var rid string
	if raw, ok := m["requestId"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &rid) != nil || rid == "" {
			return Row{Num: num, Errors: []api.FieldError{{Field: "requestId",
				Message: "requestId must be a non-empty string"}}}
		}
	}
	delete(m, "requestId")
	if rd.o.GeneratePasswords {
		if raw, ok := m["password"]; !ok || string(raw) == "null" || string(raw) == `""` {
			delete(m, "password")
		}
	}
	row := validate(num, m, rid, rd.o)
	if len(errs) > 0 {
		row.Errors = append(errs, row.Errors...)
	}
	return row
}

// renameMembers gives each member of a JSON object the field name it
// fills (through the map, or any case as for CSV), dropping the ignored
// ones and reading dates with a map's layout. An unknown member without a
// map is left for the server's rules (which ignore it).
func (rd *reader) renameMembers(in map[string]json.RawMessage) (map[string]json.RawMessage, []api.FieldError) {
	out := make(map[string]json.RawMessage, len(in))
	from := map[string]string{}
	var errs []api.FieldError
	for _, k := range sortedKeys(in) {
		raw := in[k]
		c, ok := rd.resolve(k)
		if !ok {
			rd.ignore(k)
			continue
		}
		if c.field == "" {
			continue
		}
		if prev, dup := from[c.field]; dup {
			errs = append(errs, api.FieldError{ErrorCode: api.CodeBadJSON, Field: c.field,
				Message: fmt.Sprintf("%q and %q both give %s", prev, k, c.field)})
			continue
		}
		from[c.field] = k
		var s string
		if c.entry != nil && c.entry.goLayout != "" && json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
			d, err := c.entry.parseDate(strings.TrimSpace(s))
			if err != nil {
				errs = append(errs, api.FieldError{ErrorCode: api.CodeInvalidDate, Field: c.field, Message: err.Error()})
				continue
			}
			raw, _ = json.Marshal(d)
		}
		out[c.field] = raw
	}
	return out, errs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// readYAML reads YAML: a sequence of trainees (mappings of field: value),
// or a stream of documents, each a trainee or a sequence of them.
func (rd *reader) readYAML(r io.Reader) ([]Row, error) {
	dec := yaml.NewDecoder(r)
	var rows []Row
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, inputErrorf("YAML: %v", err)
		}
		root := &doc
		if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
			root = root.Content[0]
		}
		if root.Kind == yaml.ScalarNode && root.Tag == "!!null" || root.Kind == yaml.DocumentNode {
			continue // an empty document
		}
		items := []*yaml.Node{root}
		if root.Kind == yaml.SequenceNode {
			items = root.Content
		}
		for _, it := range items {
			row, err := rd.yamlRow(it)
			if err != nil {
				return nil, err
			}
			rows = append(rows, row)
		}
	}
}

// yamlRow reads one trainee of a YAML input; its number is its line.
func (rd *reader) yamlRow(n *yaml.Node) (Row, error) {
	num := n.Line
	if n.Kind != yaml.MappingNode {
		return Row{Num: num, Errors: []api.FieldError{{ErrorCode: api.CodeBadJSON,
			Message: "a trainee must be a mapping of field: value"}}}, nil
	}
	var cells []cell
	var errs []api.FieldError
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		c, ok := rd.resolve(k.Value)
		if !ok {
			return Row{}, inputErrorf("YAML line %d: unknown field %q; the fields are %s (any case), or give a column map (--map)", k.Line, k.Value, ColumnNames)
		}
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if v.Kind != yaml.ScalarNode {
			if c.field != "" {
				errs = append(errs, api.FieldError{ErrorCode: api.CodeBadJSON, Field: c.field,
					Message: c.field + " must be a single value"})
			}
			continue
		}
		var val *string
		if v.Tag != "!!null" {
			s := v.Value
			val = &s
		}
		cells = append(cells, cell{col: c, name: k.Value, val: val})
	}
	body, berrs := rd.body(cells)
	return rd.row(num, body, append(errs, berrs...)), nil
}

// placeholderRaw is placeholderPassword as JSON.
var placeholderRaw = json.RawMessage(`"` + placeholderPassword + `"`)
