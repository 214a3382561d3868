// Package form is the trainee form page: create (n) or edit (e) a trainee,
// each field from api.FormFields, checked with the API's rules as typed;
// ctrl+s sends only what changed (If-Match on an edit: a 412 goes to the
// root's conflict dialog).
package form
