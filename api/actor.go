package api

import (
	"context"
	"strconv"
)

// Who made a change, as the event feed shows it (Event.Actor).
const (
	// ActorKey is a request made with one of the company's API keys.
	ActorKey = "key"
	// ActorAutomation is an automation's action: its DISABLE_TRAINEE's
	// trainee.deleted, its automation.fired.
	ActorAutomation = "automation"
	// ActorSystem is the server itself: the evaluator's trainee.expired,
	// an endpoint it disabled (webhook.disabled), the operator's commands.
	ActorSystem = "system"
)

// Actor is who made the change an event records. ID is the key's or the
// automation's id (0, left out, for the system). Name is read when the
// event is: the key's or automation's name now, left out when it has since
// been deleted (and for the system).
//
// A key bound to a trainer acts as that person: its actor is the key
// (Type key, ID the key's id) with Name the trainer's name and TrainerID
// the trainer's id.
type Actor struct {
	Type      string `json:"type"`
	ID        int64  `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	TrainerID *int64 `json:"trainerId,omitempty"`
}

// Label is the actor in a few words for a person: the key's name, the
// automation's name after "⚙ ", "system"; the id when the name is gone
// ("key #3", "⚙ #5"); "" for no actor (an event written before actors
// were recorded).
func (a *Actor) Label() string {
	if a == nil {
		return ""
	}
	name := a.Name
	if name == "" {
		name = "#" + strconv.FormatInt(a.ID, 10)
	}
	switch a.Type {
	case ActorKey:
		if a.Name == "" {
			return "key " + name
		}
		return name
	case ActorAutomation:
		return "⚙ " + name
	default:
		return a.Type
	}
}

type actorCtxKey struct{}

// WithActor returns ctx carrying a: the server puts the authenticated
// key there, and the store records it on the events the request writes.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorCtxKey{}, a)
}

// ActorFrom returns the actor ctx carries (WithActor), the system when it
// carries none.
func ActorFrom(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorCtxKey{}).(Actor); ok {
		return a
	}
	return Actor{Type: ActorSystem}
}
