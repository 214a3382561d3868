package server_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// Two servers on one PostgreSQL: a feed long-poll waiting on instance B,
// whose database poll is an hour away, is answered with an event
// committed through instance A, by B's wake listener.
func TestEventFeedLongPollAcrossInstances(t *testing.T) {
	dsn := storetest.PostgresURL(t)
	ctx := context.Background()
	a, b := storetest.Open(t, dsn), storetest.Open(t, dsn)
	co, err := a.CreateCompany(ctx, "Shared", "UTC")
	must(t, err)
	storetest.MustTrainer(t, a, co.ID, "Coach", "coach@shared.example")
	key := api.GenerateKey()
	_, err = a.CreateKey(ctx, co.ID, "shared", api.HashKey(key), api.KeyDisplayPrefix(key))
	must(t, err)
	hA := server.NewHandler(a, server.WithHasher(cheapHasher))
	a.OnEvent(hA.NotifyEvent)
	hB := server.NewHandler(b, server.WithHasher(cheapHasher), server.WithFeedPoll(time.Hour))
	b.OnEvent(hB.NotifyEvent)
	l, err := b.Listen(store.ListenConfig{})
	must(t, err)
	t.Cleanup(l.Close)
	srvA, srvB := httptest.NewServer(hA), httptest.NewServer(hB)
	t.Cleanup(srvA.Close)
	t.Cleanup(srvB.Close)
	for l.Connects() == 0 {
		time.Sleep(5 * time.Millisecond)
	}

	// B's connections warm (a first read on a new one is slower than A's
	// create): its long-polls read before A commits.
	doOn(t, srvB.URL, "GET", api.PathEvents, key, nil, nil).expect(t, 200)
	after := ""
	for i := range 3 {
		path := api.PathEvents + "?wait=30"
		if after != "" {
			path += "&after=" + after
		}
		got := make(chan *resp, 1)
		go func() { got <- doOn(t, srvB.URL, "GET", path, key, nil, nil) }()
		for server.FeedWaiters(hB, co.ID) == 0 {
			time.Sleep(time.Millisecond)
		}
		var created struct{ Trainee api.Trainee }
		doOn(t, srvA.URL, "POST", "/public-api/trainees", key, newTraineeBody("Ada Park"), nil).expect(t, 200).JSON(t, &created)
		var page api.EventPage
		select {
		case r := <-got:
			r.expect(t, 200).JSON(t, &page)
		case <-time.After(20 * time.Second):
			t.Fatalf("round %d: B's long-poll not answered 20 s after the commit on A", i)
		}
		if len(page.Events) != 1 {
			t.Fatalf("round %d: %+v", i, page)
		}
		var ev api.WebhookEvent
		must(t, json.Unmarshal(page.Events[0].Payload, &ev))
		if ev.Data.Trainee.ID != created.Trainee.ID {
			t.Fatalf("round %d: event of trainee %d, want %d", i, ev.Data.Trainee.ID, created.Trainee.ID)
		}
		after = page.Next
	}
}
