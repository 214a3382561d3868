// Package common is what the root model and every page share (soft-serve's
// common.Common): the client (Client) and the options the pages read, the
// theme and key map, the screen's size, the company's trainers, the key
// in use, the live feed's state, and the two components every page writes
// to (the requests in flight and the status line). It also declares the
// Page interface the root routes to, the Router interface a page asks the
// root through (to show another page, to open a dialog), the Modal
// interface and the screens' names. Pages and components above it import
// it; it imports api, api/client and the leaf components (theme, keymap,
// layout, requests, statusline), never a page.
package common
