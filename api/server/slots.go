package server

import (
	"context"
	"sync"
)

// TestPingsPerCompany is how many webhook test pings one company may have
// in flight at once on one instance; more wait for a slot. The pings are
// sent at once, outside the dispatcher and its per-company bound, so they
// have their own.
const TestPingsPerCompany = 2

// companySlots bounds what each company does at once: at most n per
// company, the others waiting (until their request's context ends).
type companySlots struct {
	n  int
	mu sync.Mutex
	m  map[int64]*slot
}

type slot struct {
	sem   chan struct{}
	users int // holding or waiting: the slot is forgotten at 0
}

// acquire waits for a slot of company; release gives it back.
func (c *companySlots) acquire(ctx context.Context, company int64) (release func(), err error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[int64]*slot{}
	}
	s := c.m[company]
	if s == nil {
		s = &slot{sem: make(chan struct{}, c.n)}
		c.m[company] = s
	}
	s.users++
	c.mu.Unlock()
	done := func() {
		c.mu.Lock()
		if s.users--; s.users == 0 {
			delete(c.m, company)
		}
		c.mu.Unlock()
	}
	select {
	case s.sem <- struct{}{}:
		return func() { <-s.sem; done() }, nil
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
}
