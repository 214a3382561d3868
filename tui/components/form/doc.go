// Package form is the small entry form opened as a modal (the Settings
// page's new key, new trainer and company): text and choice entries, each
// checked as typed with the API's own rules (Verdicts), a refusal of the
// server put back by its entry. The trainee form is a page
// (pages/form). It imports the components and internal/common.
package form
