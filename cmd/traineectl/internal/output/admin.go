package output

import (
	"slices"
	"strconv"
	"time"

	"github.com/traineed/traineed/api"
)

// Company administration: keys and trainers in every format.

// KeyCSVHeader is the header of API keys in CSV: the JSON names of
// api.APIKey (createdBy as its label).
var KeyCSVHeader = []string{"id", "name", "prefix", "scope", "trainerId", "trainerName", "ownTraineesOnly", "createdAt",
	"createdBy", "lastUsedAt", "expiresAt", "previousSecretExpiresAt", "revokedAt", "state"}

// KeyCSVRow is one key in CSV: RFC 3339 instants, empty cells for nulls.
func KeyCSVRow(k *api.APIKey) []string {
	return []string{strconv.FormatInt(k.ID, 10), k.Name, k.Prefix, k.Scope, IDOr(k.TrainerID, ""), StrOr(k.TrainerName, ""),
		strconv.FormatBool(k.OwnTraineesOnly), Instant(k.CreatedAt), k.CreatedBy.Label(), InstantOr(k.LastUsedAt, ""),
		InstantOr(k.ExpiresAt, ""), InstantOr(k.PreviousSecretExpiresAt, ""), InstantOr(k.RevokedAt, ""), k.State}
}

// KeyColumns are the table columns of keys; CREATED, LAST USED and
// EXPIRES are instants (Stamp). On a narrow screen CREATED BY goes first,
// then CREATED, then PREFIX (80 columns keep ID NAME SCOPE TRAINER LAST
// USED EXPIRES STATE).
func KeyColumns() []Column {
	return []Column{{Header: "ID", Field: "id", Right: true}, {Header: "NAME", Field: "name", Flex: true, MinWidth: 10},
		{Header: "PREFIX", Field: "prefix", Drop: 3}, {Header: "SCOPE", Field: "scope"}, {Header: "TRAINER", Field: "trainerName", Flex: true},
		{Header: "CREATED", Field: "createdAt", Drop: 2}, {Header: "CREATED BY", Field: "createdBy", Flex: true, Drop: 1},
		{Header: "LAST USED", Field: "lastUsedAt"}, {Header: "EXPIRES", Field: "expiresAt"}, {Header: "STATE", Field: "state"}}
}

// KeyDetailColumns are the table columns of one key (keys get, update,
// revoke): KeyColumns and OLD SECRET UNTIL, until when the secrets rotated
// out work (previousSecretExpiresAt: the last of them). What a rotation is checked by (the prefix,
// the last use, the old secret's end) stays on a narrow screen; CREATED
// BY, CREATED, TRAINER and EXPIRES go first, in that order.
func KeyDetailColumns() []Column {
	cols := append(KeyColumns(), Column{Header: "OLD SECRET UNTIL", Field: "previousSecretExpiresAt"})
	for header, drop := range map[string]int{"PREFIX": 0, "TRAINER": 3, "EXPIRES": 4} {
		cols[slices.IndexFunc(cols, func(c Column) bool { return c.Header == header })].Drop = drop
	}
	return cols
}

// KeyDetailRow is one key in KeyDetailColumns: OLD SECRET UNTIL is "-"
// when no previous secret works at now.
func KeyDetailRow(k *api.APIKey, now time.Time) []string {
	old := "-"
	if at := k.PreviousSecretExpiresAt; at != nil && at.After(now) {
		old = Stamp(*at)
	}
	return append(KeyRow(k), old)
}

// KeyTrainerText is a key's trainer as tables show it: the name ("-" for
// a company key), "(own only)" after it for a key limited to that
// trainer's trainees.
func KeyTrainerText(name *string, id *int64, ownOnly bool) string {
	s := "-"
	switch {
	case name != nil:
		s = *name
	case id != nil:
		s = "#" + strconv.FormatInt(*id, 10)
	}
	if ownOnly {
		s += " (own only)"
	}
	return s
}

// KeyRow is one key in the table.
func KeyRow(k *api.APIKey) []string {
	by := k.CreatedBy.Label()
	if by == "" {
		by = "-"
	}
	return []string{strconv.FormatInt(k.ID, 10), k.Name, k.Prefix, k.Scope, KeyTrainerText(k.TrainerName, k.TrainerID, k.OwnTraineesOnly),
		Stamp(k.CreatedAt), by, StampOr(k.LastUsedAt, "never"), StampOr(k.ExpiresAt, "never"), k.State}
}

// KeyRows is how a list of keys prints.
var KeyRows = Rows[*api.APIKey]{CSVHeader: KeyCSVHeader, CSVRow: KeyCSVRow, Columns: KeyColumns(), Row: KeyRow}

// TrainerCSVHeader is the header of trainers in CSV.
var TrainerCSVHeader = []string{"id", "name", "email", "active", "traineeCount"}

// TrainerCSVRow is one trainer in CSV (an empty count where the key may
// not count the trainer's trainees).
func TrainerCSVRow(t api.TrainerSummary) []string {
	return []string{strconv.FormatInt(t.ID, 10), t.Name, t.Email, strconv.FormatBool(t.Active), intOr(t.Trainees, "")}
}

// TrainerColumns are the table columns of trainers.
func TrainerColumns() []Column {
	return []Column{{Header: "ID", Field: "id", Right: true}, {Header: "NAME", Field: "name", Flex: true, MinWidth: 10},
		{Header: "EMAIL", Field: "email", Flex: true, MinWidth: 12}, {Header: "ACTIVE", Field: "active"},
		{Header: "TRAINEES", Field: "traineeCount", Right: true}}
}

// TrainerRow is one trainer in the table: ACTIVE yes or no, TRAINEES the
// count of live trainees ("-" where the key may not count them).
func TrainerRow(t api.TrainerSummary) []string {
	active := "no"
	if t.Active {
		active = "yes"
	}
	return []string{strconv.FormatInt(t.ID, 10), t.Name, t.Email, active, intOr(t.Trainees, "-")}
}

// TrainerRows is how a list of trainers prints.
var TrainerRows = Rows[api.TrainerSummary]{CSVHeader: TrainerCSVHeader, CSVRow: TrainerCSVRow, Columns: TrainerColumns(), Row: TrainerRow}
