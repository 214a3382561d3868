// Package requests tracks the TUI's requests in flight: every network
// call runs as a tea.Cmd in a slot (Slot), tagged with a sequence number,
// and only the latest answer of a slot is accepted (ResultMsg); the
// spinner turns while any is in flight. It imports nothing of the
// project.
package requests
