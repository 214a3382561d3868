package common

import (
	"github.com/traineed/traineed/api"
)

// Mutation is the answer to a create, update, delete or restore.
type Mutation struct {
	Kind    string // created, updated, deleted, restored
	T       *api.Trainee
	Changed []string // updated: the fields sent
}
