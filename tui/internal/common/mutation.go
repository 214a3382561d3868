package common

import (
	"github.com/traineed/traineed/api"
)

// The changes of a trainee that more than one page follows: the root sends
// the delete question and the restore the list and trainee pages ask for,
// and takes every answer of a create, update, delete or restore (the form
// closes, the list and the trainee page show the new state).

// Mutation is the answer to a create, update, delete or restore.
type Mutation struct {
	Kind    string // created, updated, deleted, restored
	T       *api.Trainee
	Changed []string // updated: the fields sent
}
