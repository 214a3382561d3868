// Package dialog holds the modals a page opens over itself through
// common.Router.Ask: a yes/no Question, a TypedQuestion (a name typed to
// confirm), a Picker of a few choices, a Notice shown once (a new key's
// secret), and the key map page (Keys, ?). Each implements common.Modal;
// the entry form is the form component's. It imports the components and
// internal/common, never a page.
package dialog
