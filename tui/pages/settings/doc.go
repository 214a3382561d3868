// Package settings is the Settings page (S on the dashboard, :settings):
// the company's API keys, its trainers and its name and time zone, and
// with an admin key their changes, each through a dialog or an entry form
// (components/dialog, components/form).
package settings
