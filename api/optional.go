package api

import (
	"bytes"
	"encoding/json"
)

// Optional is a field of a patch: absent (Set false), null (Set and Null)
// or a value. It encodes and decodes itself, so that a struct of Optionals
// with `json:"name,omitzero"` tags is a PATCH-like body: an absent field is
// left out, a null one is written null, a value as T writes it; decoding
// sets Set for every member present.
type Optional[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// Val returns an Optional holding v.
func Val[T any](v T) Optional[T] { return Optional[T]{Set: true, Value: v} }

// Null returns an Optional that is null.
func Null[T any]() Optional[T] { return Optional[T]{Set: true, Null: true} }

// IsZero reports whether o is absent (what omitzero leaves out).
func (o Optional[T]) IsZero() bool { return !o.Set }

// Ptr returns the value as a pointer: nil when absent or null.
func (o Optional[T]) Ptr() *T {
	if !o.Set || o.Null {
		return nil
	}
	v := o.Value
	return &v
}

// MarshalJSON writes null or the value.
func (o Optional[T]) MarshalJSON() ([]byte, error) {
	if !o.Set || o.Null {
		return []byte("null"), nil
	}
	return json.Marshal(o.Value)
}

// UnmarshalJSON reads null or a value; either way the field is Set.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*o = Null[T]()
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*o = Val(v)
	return nil
}
