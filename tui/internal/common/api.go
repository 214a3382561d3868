package common

import (
	"errors"

	"github.com/traineed/traineed/api/client"
)

// Apply puts the filter in a search's parameters.
func (f ListFilter) Apply(p *client.SearchParams) {
	p.ExpiresWithin, p.InactiveFor, p.CreatedWithin = f.ExpiresWithin, f.InactiveFor, f.CreatedWithin
}

// IsPreconditionFailed reports whether err is a 412: the trainee changed
// since the version the request named.
func IsPreconditionFailed(err error) bool {
	var pf *client.PreconditionFailedError
	return errors.As(err, &pf)
}

// ErrorCode is the API's errorCode of a refused request (0: none).
func ErrorCode(err error) int {
	var rej *client.RejectedError
	if errors.As(err, &rej) {
		return rej.ErrorCode
	}
	return 0
}
