package common

// ListFilter narrows the list beyond its status tab: what a count of the
// dashboard opens. The zero value is no filter.
type ListFilter struct {
	Label         string // as the list's second line names it
	ExpiresWithin int    // days
	InactiveFor   int    // days
	CreatedWithin int    // days, today included
}
