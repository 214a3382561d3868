package common

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// RefusalFields are the problems a refusal names, each with its field
// (a 400's list, or the one error of another refusal); none for another
// error.
func RefusalFields(err error) []api.FieldError {
	var rej *client.RejectedError
	if !errors.As(err, &rej) {
		return nil
	}
	if len(rej.Errors) == 0 && rej.ErrorCode != 0 {
		return []api.FieldError{{ErrorCode: rej.ErrorCode, Message: rej.Message, Field: rej.Field}}
	}
	return rej.Errors
}

// TrainerText is how the form shows trainer id: its name when the
// company's trainers are known and the name is theirs alone, else the id.
func (c *Common) TrainerText(id int64) string {
	for _, t := range c.TrainerList {
		if t.ID == id {
			if n, err := c.TrainerByText(t.Name); err == nil && n == id {
				return t.Name
			}
		}
	}
	return strconv.FormatInt(id, 10)
}

func (c *Common) TrainerByText(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	if len(c.TrainerList) == 0 {
		return 0, fmt.Errorf("%d trainerId must be a whole number", api.CodeBadJSON)
	}
	var exact, prefix []int64
	for _, t := range c.TrainerList {
		switch {
		case strings.EqualFold(t.Name, s):
			exact = append(exact, t.ID)
		case len(s) <= len(t.Name) && strings.EqualFold(t.Name[:len(s)], s):
			prefix = append(prefix, t.ID)
		}
	}
	switch {
	case len(exact) == 1:
		return exact[0], nil
	case len(exact) == 0 && len(prefix) == 1:
		return prefix[0], nil
	case len(exact)+len(prefix) > 1:
		return 0, fmt.Errorf("%d more than one trainer is named %s: give the id", api.CodeBadJSON, api.EscapeText(s))
	}
	return 0, fmt.Errorf("%d no trainer is named %s", api.CodeBadJSON, api.EscapeText(s))
}
