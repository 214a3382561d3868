package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/traineed/traineed/api"
)

// ResponseTimestamp is the envelope's timestamp in either variant of
// interface.md: integer (variant B, what traineed sends: Unix seconds) or a
// dd-MM-yyyy string (variant A).
type ResponseTimestamp struct {
	Unix   int64
	Date   api.Date // set for variant A
	IsDate bool     // variant A
	Raw    string   // the value as received
}

// UnmarshalJSON accepts an integer, a dd-MM-yyyy string, or null. Another
// string is kept in Raw only: the timestamp is informational.
func (t *ResponseTimestamp) UnmarshalJSON(b []byte) error {
	*t = ResponseTimestamp{Raw: string(b)}
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		return nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		t.Raw = s
		if d, err := api.ParseDate(s); err == nil {
			t.Date, t.IsDate = d, true
		}
		return nil
	default:
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("timestamp: want an integer or a dd-MM-yyyy string, got %s", b)
		}
		if i, err := n.Int64(); err == nil {
			t.Unix = i
			return nil
		}
		f, err := n.Float64()
		if err != nil {
			return fmt.Errorf("timestamp: %w", err)
		}
		t.Unix = int64(f)
		return nil
	}
}

// MarshalJSON writes the form that was received.
func (t ResponseTimestamp) MarshalJSON() ([]byte, error) {
	if t.IsDate {
		return json.Marshal(t.Date)
	}
	return json.Marshal(t.Unix)
}

type clientEnvelope struct {
	Timestamp ResponseTimestamp `json:"timestamp"`
	Trainee   *api.Trainee      `json:"trainee"`
}

// DecodeTraineeEnvelope reads a single-trainee body in either variant of
// interface.md.
func DecodeTraineeEnvelope(body []byte) (*api.Trainee, ResponseTimestamp, error) {
	var env clientEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, ResponseTimestamp{}, fmt.Errorf("decode trainee response: %w", err)
	}
	if env.Trainee == nil {
		return nil, env.Timestamp, errors.New("decode trainee response: no trainee in the body")
	}
	return env.Trainee, env.Timestamp, nil
}
