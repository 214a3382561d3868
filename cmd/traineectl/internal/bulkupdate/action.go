// Package bulkupdate is traineectl's action over many trainees (update
// --ids / --from-search, delete and restore with them): each trainee is
// read (its ETag), the action's change is computed from what was read,
// and sent with If-Match and an idempotency key derived from the action's
// id, several at a time, slowing down on 429 as the bulk import does. A
// journal (optional) makes a re-run resume: what was done is not sent
// again, what was sent without an answer is sent again unchanged (the
// server replays its answer), and what failed is tried again.
package bulkupdate

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"

	"github.com/traineed/traineed/api"
)

// Kinds of action beyond the patch's own fields (api's, one rule for
// the CLI and the TUI).
const (
	KindPatch   = api.BulkPatch   // set the fields of Patch
	KindExtend  = api.BulkExtend  // move the expiration date by Days
	KindDelete  = api.BulkDelete  // soft-delete (DELETE)
	KindRestore = api.BulkRestore // restore (enabled: true)
)

// Action is what a bulk run does to every trainee; its Plan is the
// change of one trainee (api.BulkAction.Plan).
type Action = api.BulkAction

// Change is an action's change of one trainee, computed from its read.
type Change = api.BulkChange

// NewActionID is a new random action id.
func NewActionID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "act-" + hex.EncodeToString(b[:])
}

// Key is the idempotency key of the attempt-th try of the action on
// trainee id: a re-run of the action sends the same key, so the server
// answers what it answered the first time instead of applying it again.
func Key(actionID string, id int64, attempt int) string {
	return actionID + ":" + strconv.FormatInt(id, 10) + ":" + strconv.Itoa(attempt)
}

// ValidActionID reports whether id can prefix an idempotency key: 1 to
// 200 printable ASCII characters.
func ValidActionID(id string) bool {
	return len(id) <= 200 && api.ValidIdempotencyKey(id)
}
