package output

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/traineed/traineed/cmd/internal/textout"
)

// Omit returns v as JSON (and so YAML) without the named members of its
// top-level object, the others in their order; a v that is not an object
// is left as it is. Tracked data prints without its "timestamp" this way.
func Omit(v any, members ...string) any { return omitted{v, members} }

type omitted struct {
	v       any
	members []string
}

func (o omitted) MarshalJSON() ([]byte, error) {
	b, err := textout.Marshal(o.v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return b, nil
	}
	out := []byte{'{'}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		if slices.Contains(o.members, key) {
			continue
		}
		k, err := textout.Marshal(key)
		if err != nil {
			return nil, err
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, k...), ':'), raw...)
	}
	return append(out, '}'), nil
}
