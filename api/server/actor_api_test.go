package server_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/traineed/traineed/api"
)

// The feed says who made each change: two keys of one company show as two
// actors, by id and name; an automation's disable shows the automation;
// renaming a key renames it in the feed (the name is read with the
// event); a deleted key keeps its id without a name; another company's
// key never shows. The payloads stay the deliveries' bodies: no actor.
func TestEventFeedActors(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		anna, ben := api.GenerateKey(), api.GenerateKey()
		ka, err := e.store.CreateKey(ctx, e.companyA, "coach-anna", api.HashKey(anna), api.KeyDisplayPrefix(anna))
		must(t, err)
		kb, err := e.store.CreateKey(ctx, e.companyA, "coach-ben", api.HashKey(ben), api.KeyDisplayPrefix(ben))
		must(t, err)

		ada := e.create(anna, newTraineeBody("Ada Park"))
		path := "/public-api/trainees/" + strconv.FormatInt(ada.ID, 10)
		e.do("PUT", path, ben, map[string]any{"name": "Ada Lovelace"}).expect(t, 200)
		auto := e.createAutomation(anna, `{"name": "Archive on update", "trigger": {"type": "TRAINEE_UPDATED"}, "actionType": "DISABLE_TRAINEE"}`)
		e.do("PUT", path, ben, map[string]any{"name": "Ada King"}).expect(t, 200)

		var feed api.EventPage
		e.do("GET", api.PathEvents, anna, nil).expect(t, 200).JSON(t, &feed)
		want := []struct {
			typ   string
			actor api.Actor
		}{
			{api.EventTraineeCreated, api.Actor{Type: api.ActorKey, ID: ka.ID, Name: "coach-anna"}},
			{api.EventTraineeUpdated, api.Actor{Type: api.ActorKey, ID: kb.ID, Name: "coach-ben"}},
			{api.EventTraineeUpdated, api.Actor{Type: api.ActorKey, ID: kb.ID, Name: "coach-ben"}},
			{api.EventTraineeDeleted, api.Actor{Type: api.ActorAutomation, ID: auto.ID, Name: "Archive on update"}},
		}
		if len(feed.Events) != len(want) {
			t.Fatalf("%d events, want %d", len(feed.Events), len(want))
		}
		for i, w := range want {
			ev := feed.Events[i]
			if ev.Type != w.typ || ev.Actor == nil || *ev.Actor != w.actor {
				t.Errorf("event %d: %s by %+v, want %s by %+v", i, ev.Type, ev.Actor, w.typ, w.actor)
			}
			var body map[string]json.RawMessage
			must(t, json.Unmarshal(ev.Payload, &body))
			if _, ok := body["actor"]; ok {
				t.Errorf("event %d: the payload carries the actor: %s", i, ev.Payload)
			}
		}
		// The wire shape.
		raw := e.do("GET", api.PathEvents+"?limit=1", anna, nil).expect(t, 200)
		var page struct {
			Events []map[string]json.RawMessage `json:"events"`
		}
		raw.JSON(t, &page)
		if got := string(page.Events[0]["actor"]); got != `{"type":"key","id":`+strconv.FormatInt(ka.ID, 10)+`,"name":"coach-anna"}` {
			t.Errorf("actor on the wire: %s", got)
		}

		// Names are read with the events: a deleted key keeps its id.
		must(t, e.store.DeleteKey(ctx, kb.ID))
		var after api.EventPage
		e.do("GET", api.PathEvents, anna, nil).expect(t, 200).JSON(t, &after)
		if a := after.Events[1].Actor; a == nil || *a != (api.Actor{Type: api.ActorKey, ID: kb.ID}) {
			t.Errorf("a deleted key's event: actor %+v", a)
		}

		// Company B's feed shows its own key, never A's.
		e.create(e.keyB, newTraineeBody("Bea Ray"))
		var feedB api.EventPage
		e.do("GET", api.PathEvents, e.keyB, nil).expect(t, 200).JSON(t, &feedB)
		if len(feedB.Events) != 1 || feedB.Events[0].Actor == nil || feedB.Events[0].Actor.Type != api.ActorKey || feedB.Events[0].Actor.Name != "test" {
			t.Errorf("company B's feed: %+v", feedB.Events)
		}
	})
}
