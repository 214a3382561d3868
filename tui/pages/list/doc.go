// Package list is the trainee list: a searchable (debounced), sortable,
// paged table of one status tab, with marks for the bulk actions and the
// live feed's changes marked in its gutter.
package list
