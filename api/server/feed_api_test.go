package server_test

import (
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store/storetest"
)

// The feed: the company's events in order with their webhook ids and
// payloads, a cursor, a type filter, pages, and refusals.
func TestEventFeedAPI(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		rc := storetest.NewReceiver(t, nil)
		var wh api.WebhookEnvelope
		e.do("POST", api.PathWebhooks, e.keyA, map[string]any{"url": rc.URL}).expect(t, 200).JSON(t, &wh)
		startDispatcher(t, e.store)

		ada := e.create(e.keyA, newTraineeBody("Ada Park"))
		path := "/public-api/trainees/" + strconv.FormatInt(ada.ID, 10)
		e.do("PUT", path, e.keyA, map[string]any{"name": "Ada Lovelace"}).expect(t, 200)
		e.do("DELETE", path, e.keyA, nil).expect(t, 200)
		e.do("PUT", path, e.keyA, map[string]any{"enabled": true}).expect(t, 200)
		e.create(e.keyB, newTraineeBody("Bea Ray"))

		var feed api.EventPage
		e.do("GET", api.PathEvents, e.keyA, nil).expect(t, 200).JSON(t, &feed)
		types := []string{}
		for _, ev := range feed.Events {
			types = append(types, ev.Type)
		}
		if len(feed.Events) != 4 || feed.HasMore || feed.Next != feed.Events[3].ID ||
			types[0] != "trainee.created" || types[1] != "trainee.updated" || types[2] != "trainee.deleted" || types[3] != "trainee.restored" {
			t.Fatalf("feed %v next %s more %v", types, feed.Next, feed.HasMore)
		}
		// The same ids and bytes as the webhook deliveries.
		got := rc.Wait(t, 4, 10*time.Second)
		byID := map[string]string{}
		for _, g := range got {
			byID[g.ID] = string(g.Body)
		}
		for _, ev := range feed.Events {
			if byID[ev.ID] != string(ev.Payload) {
				t.Fatalf("event %s: feed payload %s, delivered %s", ev.ID, ev.Payload, byID[ev.ID])
			}
			var p api.WebhookEvent
			must(t, json.Unmarshal(ev.Payload, &p))
			if p.Type != ev.Type || p.Data.Trainee.ID != ada.ID {
				t.Fatalf("payload %s", ev.Payload)
			}
		}

		// Pages follow the cursor.
		var p1, p2, p3 api.EventPage
		e.do("GET", api.PathEvents+"?limit=2", e.keyA, nil).expect(t, 200).JSON(t, &p1)
		e.do("GET", api.PathEvents+"?limit=2&after="+p1.Next, e.keyA, nil).expect(t, 200).JSON(t, &p2)
		e.do("GET", api.PathEvents+"?limit=2&after="+p2.Next, e.keyA, nil).expect(t, 200).JSON(t, &p3)
		if len(p1.Events) != 2 || !p1.HasMore || p1.Events[0].ID != feed.Events[0].ID ||
			len(p2.Events) != 2 || p2.HasMore || p2.Events[1].ID != feed.Events[3].ID ||
			len(p3.Events) != 0 || p3.Next != p2.Next {
			t.Fatalf("pages %+v / %+v / %+v", p1, p2, p3)
		}
		// Types.
		var f api.EventPage
		e.do("GET", api.PathEvents+"?type=trainee.deleted,trainee.restored", e.keyA, nil).expect(t, 200).JSON(t, &f)
		if len(f.Events) != 2 || f.Events[0].Type != "trainee.deleted" || f.Events[1].Type != "trainee.restored" {
			t.Fatalf("type filter %+v", f.Events)
		}
		e.do("GET", api.PathEvents+"?type=trainee.updated&after="+feed.Events[1].ID, e.keyA, nil).expect(t, 200).JSON(t, &f)
		if len(f.Events) != 0 {
			t.Fatalf("type filter after the update %+v", f.Events)
		}
		// Refusals.
		e.do("GET", api.PathEvents+"?after=nope", e.keyA, nil).expectError(t, api.CodeInvalidParameter, "after")
		e.do("GET", api.PathEvents+"?after=evt_000000000000000000000000", e.keyA, nil).expectError(t, api.CodeInvalidParameter, "after")
		e.do("GET", api.PathEvents+"?type=trainee.exploded", e.keyA, nil).expectError(t, api.CodeInvalidParameter, "type")
		e.do("GET", api.PathEvents+"?limit=0", e.keyA, nil).expectError(t, api.CodeInvalidParameter, "limit")
		e.do("GET", api.PathEvents+"?limit=501", e.keyA, nil).expectError(t, api.CodeInvalidParameter, "limit")
		e.do("GET", api.PathEvents+"?wait=31", e.keyA, nil).expectError(t, api.CodeInvalidParameter, "wait")
	})
}

// A long-poll is woken by a commit of its own process (its database poll
// is an hour away, so nothing else could answer it with the event within
// its 30 s), and one on another instance finds the event by its poll.
func TestEventFeedLongPoll(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		local := server.NewHandler(e.store, server.WithHasher(cheapHasher), server.WithFeedPoll(time.Hour))
		e.store.OnEvent(local.NotifyEvent)
		other := server.NewHandler(e.store, server.WithHasher(cheapHasher), server.WithFeedPoll(20*time.Millisecond))
		srvLocal, srvOther := httptest.NewServer(local), httptest.NewServer(other)
		t.Cleanup(srvLocal.Close)
		t.Cleanup(srvOther.Close)

		var first api.EventPage
		doOn(t, srvLocal.URL, "GET", api.PathEvents, e.keyA, nil, nil).expect(t, 200).JSON(t, &first)
		if len(first.Events) != 0 {
			t.Fatalf("feed not empty: %+v", first)
		}
		type result struct {
			page api.EventPage
			err  string
		}
		poll := func(base string) chan result {
			ch := make(chan result, 1)
			go func() {
				r := doOn(t, base, "GET", api.PathEvents+"?wait=30", e.keyA, nil, nil)
				var p api.EventPage
				_ = json.Unmarshal(r.Body, &p)
				ch <- result{page: p, err: string(r.Body)}
			}()
			return ch
		}
		waitLocal, waitOther := poll(srvLocal.URL), poll(srvOther.URL)
		// The polls are waiting (or about to: either way they must return
		// the event). Commit a change.
		ada := e.create(e.keyA, newTraineeBody("Ada Park"))
		for name, ch := range map[string]chan result{"local": waitLocal, "other": waitOther} {
			r := <-ch
			if len(r.page.Events) != 1 || r.page.Next != r.page.Events[0].ID {
				t.Fatalf("%s long-poll returned %s", name, r.err)
			}
			var p api.WebhookEvent
			must(t, json.Unmarshal(r.page.Events[0].Payload, &p))
			if p.Data.Trainee.ID != ada.ID {
				t.Fatalf("%s long-poll: %s", name, r.page.Events[0].Payload)
			}
		}
		// Company B's long-poll is not answered with A's event: wait=1
		// returns empty.
		var b api.EventPage
		doOn(t, srvOther.URL, "GET", api.PathEvents+"?wait=1", e.keyB, nil, nil).expect(t, 200).JSON(t, &b)
		if len(b.Events) != 0 {
			t.Fatalf("company B's long-poll: %+v", b)
		}
	})
}
