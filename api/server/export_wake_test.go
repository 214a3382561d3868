package server

// FeedWaiters is how many feed requests of the company wait on h (their
// long-poll joined its waiters).
func FeedWaiters(h *Handler, companyID int64) int {
	h.feed.mu.Lock()
	defer h.feed.mu.Unlock()
	if c := h.feed.companies[companyID]; c != nil {
		return c.waiters
	}
	return 0
}
