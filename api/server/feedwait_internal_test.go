package server

import (
	"context"
	"log/slog"
	"testing"
	"time"
)

// Company 0 (the store's AllCompanies, after its wake listener connected
// again) wakes the waiters of every company; a company's own id wakes
// only its own.
func TestFeedWaitersWakeAll(t *testing.T) {
	f := &feedWaiters{latest: func(context.Context, int64) (int64, error) { return 0, nil }, poll: time.Hour, log: slog.New(slog.DiscardHandler)}
	for _, c := range []int64{1, 2} {
		leave, err := f.join(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		defer leave()
	}
	closed := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	one, two := f.wait(1), f.wait(2)
	f.notify(2)
	if closed(one) || !closed(two) {
		t.Fatalf("notify(2): company 1 woken %v, company 2 woken %v", closed(one), closed(two))
	}
	one, two = f.wait(1), f.wait(2)
	f.notify(0)
	if !closed(one) || !closed(two) {
		t.Fatalf("notify(0): company 1 woken %v, company 2 woken %v", closed(one), closed(two))
	}
}
