package server

import (
	"context"
	"testing"
	"time"
)

// A company holds at most n slots; another company is not held up by it;
// a waiter whose context ends gives up; a company's slot is forgotten
// once nobody holds or waits for it.
func TestCompanySlots(t *testing.T) {
	c := &companySlots{n: 2}
	ctx := context.Background()
	r1, _ := c.acquire(ctx, 1)
	r2, _ := c.acquire(ctx, 1)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := c.acquire(short, 1); err == nil {
		t.Fatal("a third slot of company 1")
	}
	r3, err := c.acquire(ctx, 2)
	if err != nil {
		t.Fatalf("company 2 held up by company 1: %v", err)
	}
	got := make(chan struct{})
	go func() {
		r, err := c.acquire(ctx, 1)
		if err == nil {
			r()
		}
		close(got)
	}()
	r1()
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("a freed slot was not taken")
	}
	r2()
	r3()
	if len(c.m) != 0 {
		t.Fatalf("%d companies still remembered", len(c.m))
	}
}
