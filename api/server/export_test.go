package server

// WithAfterIdempotentCommit sets a function called after an idempotent
// request's transaction committed and before its answer is written (the
// kill -9 test kills the process there).
func WithAfterIdempotentCommit(fn func()) Option {
	return func(h *Handler) { h.afterIdempotentCommit = fn }
}
