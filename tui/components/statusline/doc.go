// Package statusline is the status line under every page: a message of a
// kind (info, ok, error), where it belongs (StatusPlace: it is cleared
// when the screen or the trainee changes), what an API error means in
// words (Describe), and the background text of live mode. It imports api,
// api/client (for its error types), layout and theme.
package statusline
