package server

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// feedWaiters holds the feed requests waiting for events, by company. A
// waiter takes its company's channel before it reads the feed; the channel
// is closed (and replaced) when the company gets an event: at once when
// this process committed it, or another instance did and the store's
// wake listener heard it (notify, through store.OnEvent), else when the
// company's poller sees the company's latest event id change. One poller runs per company with
// waiters, whatever their number, and stops with the last waiter.
//
// A company's event ids are taken in commit order (see store.Events), so
// its latest id changes exactly when an event of it commits.
type feedWaiters struct {
	mu        sync.Mutex
	companies map[int64]*companyFeed
	latest    func(ctx context.Context, companyID int64) (int64, error)
	poll      time.Duration
	log       *slog.Logger
}

type companyFeed struct {
	ch      chan struct{}
	waiters int
	stop    chan struct{}
}

func (f *feedWaiters) company(id int64) *companyFeed {
	if f.companies == nil {
		f.companies = map[int64]*companyFeed{}
	}
	c := f.companies[id]
	if c == nil {
		c = &companyFeed{ch: make(chan struct{})}
		f.companies[id] = c
	}
	return c
}

// join registers a waiter of the company, starting its poller (which reads
// the latest id before join returns, so that nothing committed after the
// waiter's first read is missed); leave unregisters it.
func (f *feedWaiters) join(ctx context.Context, companyID int64) (leave func(), err error) {
	f.mu.Lock()
	c := f.company(companyID)
	c.waiters++
	start := c.waiters == 1
	if start {
		c.stop = make(chan struct{})
	}
	stop := c.stop
	f.mu.Unlock()
	leave = func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		c.waiters--
		if c.waiters == 0 {
			close(c.stop)
			delete(f.companies, companyID)
			close(c.ch) // nobody waits on it any more
		}
	}
	if start {
		last, err := f.latest(ctx, companyID)
		if err != nil {
			leave()
			return nil, err
		}
		go f.pollCompany(companyID, last, stop)
	}
	return leave, nil
}

// pollCompany notifies the company's waiters whenever its latest event id
// changes, until stop.
func (f *feedWaiters) pollCompany(companyID, last int64, stop chan struct{}) {
	t := time.NewTicker(f.poll)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		n, err := f.latest(ctx, companyID)
		cancel()
		switch {
		case err != nil:
			f.log.Warn("event feed: polling for new events", "company_id", companyID, "error", err)
		case n != last:
			last = n
			f.notify(companyID)
		}
	}
}

// wait returns the channel closed at the company's next event.
func (f *feedWaiters) wait(companyID int64) <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.company(companyID).ch
}

// notify wakes the company's waiters; company 0, every company's (the
// store's AllCompanies: after its cross-instance listener reconnected).
func (f *feedWaiters) notify(companyID int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if companyID == 0 {
		for _, c := range f.companies {
			close(c.ch)
			c.ch = make(chan struct{})
		}
		return
	}
	c := f.companies[companyID]
	if c == nil {
		return
	}
	close(c.ch)
	c.ch = make(chan struct{})
}
