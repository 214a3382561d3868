// Package home is the dashboard, the TUI's first screen: counts that need
// the coach's attention, each opening the list filtered to it, and the
// recent changes of the event feed.
package home
