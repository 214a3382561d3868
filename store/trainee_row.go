package store

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// traineeRow is a trainees row together with the columns of its user that
// traineeQuery joins in (scanonly). Calendar dates are YYYYMMDD integers.
//
// The api tag names the field of api.Trainee a column holds. The select
// list, toAPI, clone, applyPatch and the columns an update writes all
// follow the tags, so a new updatable field (a field of api.TraineePatch)
// needs its column here, in the migrations, and nothing else in the store.
type traineeRow struct {
	bun.BaseModel `bun:"table:trainees,alias:t"`

	ID                  int64      `bun:"id,pk,autoincrement" api:"id"`
	CompanyID           int64      `bun:"company_id" api:"companyId"`
	UserID              int64      `bun:"user_id" api:"userId"`
	TrainerID           *int64     `bun:"trainer_id" api:"trainerId"`
	DateOfBirth         *int       `bun:"date_of_birth" api:"dateOfBirth"`
	ExpirationDate      *int       `bun:"expiration_date" api:"expirationDate"`
	LastTrained         *int       `bun:"last_trained" api:"lastTrained"`
	Enabled             bool       `bun:"enabled" api:"enabled"`
	CreatedByType       string     `bun:"created_by_type" api:"createdByType"`
	ForcePasswordChange bool       `bun:"force_password_change" api:"forcePasswordChange"`
	WeightUnit          string     `bun:"weight_unit" api:"weightUnit"`
	CreatedAt           time.Time  `bun:"created_at"`
	UpdatedAt           time.Time  `bun:"updated_at"`
	DeletedAt           *time.Time `bun:"deleted_at"`
	// Version is bumped by every write of the row (its ETag, issue 28):
	// 1 for a new trainee.
	Version int64 `bun:"version"`

	// Copies of the user's columns that search matches and sorts by
	// (mirror): written to both tables in one transaction, read from
	// trainees. SearchName is searchName(Name), set by the writes.
	Email      string  `bun:"email" api:"email" mirror:"users"`
	Phone      *string `bun:"phone" api:"phoneNumber" mirror:"users"`
	SearchName string  `bun:"search_name"`

	// From users, through the join in traineeQuery.
	Name string `bun:"name,scanonly" api:"name"`
}

// traineeColumn is one field of traineeRow as its tags describe it.
type traineeColumn struct {
	row     int    // field index in traineeRow
	name    string // the column: trainees' own, or users' when user
	user    bool   // a users column (scanonly in traineeRow)
	mirror  bool   // a trainees column that copies the users column of its name
	trainee int    // field index in api.Trainee, -1 for none
	patch   *api.PatchField
}

var (
	traineeRowType = reflect.TypeFor[traineeRow]()
	apiTraineeType = reflect.TypeFor[api.Trainee]()
	apiDateType    = reflect.TypeFor[api.Date]()

	// traineeMap is every column of traineeRow, in order.
	traineeMap = traineeColumnsOf()
	// traineeColumns is what traineeQuery selects: every column of traineeRow.
	traineeColumns = func() string {
		cols := make([]string, len(traineeMap))
		for i, c := range traineeMap {
			alias := "t."
			if c.user {
				alias = "u."
			}
			cols[i] = alias + c.name
		}
		return strings.Join(cols, ", ")
	}()
	// traineeUpdateColumns are the trainees columns an update writes:
	// every updatable one (mirrors included), search_name, and the times.
	traineeUpdateColumns = func() []string {
		var out []string
		for _, c := range traineeMap {
			if c.patch != nil && !c.user {
				out = append(out, c.name)
			}
		}
		return append(out, "search_name", "updated_at", "deleted_at", "version")
	}()
)

func traineeColumnsOf() []traineeColumn {
	byJSON := map[string]int{}
	for i := range apiTraineeType.NumField() {
		name, _, _ := strings.Cut(apiTraineeType.Field(i).Tag.Get("json"), ",")
		byJSON[name] = i
	}
	var out []traineeColumn
	for i := range traineeRowType.NumField() {
		f := traineeRowType.Field(i)
		tag, ok := f.Tag.Lookup("bun")
		if !ok || f.Anonymous {
			continue
		}
		opts := strings.Split(tag, ",")
		c := traineeColumn{row: i, name: opts[0], user: slices.Contains(opts[1:], "scanonly"), trainee: -1,
			mirror: f.Tag.Get("mirror") == "users"}
		if name := f.Tag.Get("api"); name != "" {
			ti, ok := byJSON[name]
			if !ok {
				panic(fmt.Sprintf("store: traineeRow.%s: api.Trainee has no field %q", f.Name, name))
			}
			c.trainee = ti
			c.patch = api.PatchFieldNamed(name)
		}
		out = append(out, c)
	}
	// Every readable field of the patch must have its column.
	for i := range api.TraineePatchFields {
		pf := &api.TraineePatchFields[i]
		if !pf.WriteOnly && !slices.ContainsFunc(out, func(c traineeColumn) bool { return c.patch == pf }) {
			panic(fmt.Sprintf("store: traineeRow has no column for the updatable field %q", pf.Name))
		}
	}
	return out
}

// toAPI is the trainee a row holds, in the API's representation.
func (r *traineeRow) toAPI() *api.Trainee {
	t := &api.Trainee{Username: r.Email, Authorities: slices.Clone(api.TraineeAuthorities)}
	rv, tv := reflect.ValueOf(r).Elem(), reflect.ValueOf(t).Elem()
	for _, c := range traineeMap {
		if c.trainee >= 0 {
			setConverted(tv.Field(c.trainee), rv.Field(c.row))
		}
	}
	return t
}

// clone is a deep copy of r.
func (r *traineeRow) clone() *traineeRow {
	c := *r
	cv := reflect.ValueOf(&c).Elem()
	for _, col := range traineeMap {
		f := cv.Field(col.row)
		if f.Kind() == reflect.Pointer && !f.IsNil() {
			p := reflect.New(f.Type().Elem())
			p.Elem().Set(f.Elem())
			f.Set(p)
		}
	}
	return &c
}

// patchedRow returns before with the fields p sets, normalised; before is
// left alone. Null clears nullable fields only.
func patchedRow(before *traineeRow, p api.TraineePatch) *traineeRow {
	r := before.clone()
	rv := reflect.ValueOf(r).Elem()
	p.Normalize()
	for _, c := range traineeMap {
		if c.patch == nil {
			continue
		}
		set, null, v := c.patch.Get(&p)
		if !set || null && !c.patch.Nullable {
			continue
		}
		dst := rv.Field(c.row)
		if v == nil {
			dst.SetZero()
			continue
		}
		setConverted(dst, reflect.ValueOf(v))
	}
	return r
}

// userChanged reports whether the users columns (mirrors included) of a
// and b differ.
func userChanged(a, b *traineeRow) bool {
	av, bv := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for _, c := range traineeMap {
		if (c.user || c.mirror) && !reflect.DeepEqual(av.Field(c.row).Interface(), bv.Field(c.row).Interface()) {
			return true
		}
	}
	return false
}

// setUserColumns adds a SET for every users column of r (mirrors
// included) to q.
func setUserColumns(q *bun.UpdateQuery, r *traineeRow) *bun.UpdateQuery {
	rv := reflect.ValueOf(r).Elem()
	for _, c := range traineeMap {
		if c.user || c.mirror {
			q = q.Set(c.name+" = ?", rv.Field(c.row).Interface())
		}
	}
	return q.Set("search_name = ?", searchName(r.Name))
}

// setConverted sets dst to src, converting between the store's and the
// API's forms: a pointer and its value (nil is the zero value), a
// YYYYMMDD integer and an api.Date; pointers are copied, never shared.
func setConverted(dst, src reflect.Value) {
	if src.Kind() == reflect.Pointer {
		if src.IsNil() {
			dst.SetZero()
			return
		}
		src = src.Elem()
	}
	if dst.Kind() == reflect.Pointer {
		p := reflect.New(dst.Type().Elem())
		setConverted(p.Elem(), src)
		dst.Set(p)
		return
	}
	switch {
	case dst.Type() == src.Type():
		dst.Set(src)
	case dst.Type() == apiDateType && src.Kind() == reflect.Int:
		dst.Set(reflect.ValueOf(api.DateFromInt(int(src.Int()))))
	case src.Type() == apiDateType && dst.Kind() == reflect.Int:
		dst.SetInt(int64(src.Interface().(api.Date).Int()))
	default:
		panic(fmt.Sprintf("store: cannot convert %s to %s", src.Type(), dst.Type()))
	}
}

// newTraineeOptions are what the API cannot choose but demo data can.
type newTraineeOptions struct {
	forcePasswordChange bool
}

// writeRows writes a change's rows: after over before, or a new
// trainee's (before nil), and reports whether the change alters anything
// (one that does not writes nothing). An update is written here; a
// create's statements are returned, for the change's batch to run with its
// event (runSteps): the new trainee's ids (and its trainer, when the
// company's first is taken) are their answers, so ch.After holds them
// only when the batch has run.
func (s *Store) writeRows(ctx context.Context, tx bun.Tx, before, after *traineeRow, passwordHash string, now time.Time) (*traineeChange, bool, []hotStep, error) {
	if before == nil {
		steps := insertTrainee(after, passwordHash, now)
		ch := &traineeChange{After: after.toAPI()}
		ch.Fields = api.CreatedFields(ch.After, passwordHash != "")
		return ch, true, steps, nil
	}
	ch := &traineeChange{Before: before.toAPI(), After: after.toAPI()}
	ch.Fields = api.ChangedFields(ch.Before, ch.After)
	if passwordHash != "" {
		ch.Fields = append(ch.Fields, "password")
	}
	if len(ch.Fields) == 0 {
		return ch, false, nil, nil
	}
	if err := s.writeUpdate(ctx, tx, before, after, passwordHash, now); err != nil {
		return nil, false, nil, err
	}
	ch.After = after.toAPI()
	return ch, true, nil, nil
}

// insertTrainee is the statements of a new trainee: the company's first
// active trainer when row has none (held FOR SHARE on PostgreSQL, as
// checkTrainer holds a given one; a company with none refuses the create,
// 1034), its user, and its trainee row, which get their ids from them.
// row gets its times, and a trainer pointer for the first statement to
// fill.
func insertTrainee(row *traineeRow, passwordHash string, now time.Time) []hotStep {
	user := &userRow{
		Email:        row.Email,
		Phone:        row.Phone,
		Name:         row.Name,
		SearchName:   searchName(row.Name),
		PasswordHash: passwordHash,
		CreatedAt:    now,
	}
	row.SearchName = user.SearchName // the mirrors (Email, Phone) are row's own
	row.CreatedAt, row.UpdatedAt = now, now
	row.Version = 1
	if !row.Enabled {
		row.DeletedAt = &now
	}
	steps := make([]hotStep, 0, 3)
	if row.TrainerID == nil {
		row.TrainerID = new(int64)
		steps = append(steps, hotStep{q: firstTrainerQuery, args: []any{row.CompanyID}, dest: row.TrainerID, one: true,
			none: api.Invalid(api.CodeNoActiveTrainer, "trainerId", noActiveTrainer)})
	}
	return append(steps, hotStep{insert: user, keyTo: &row.UserID}, hotStep{insert: row})
}

// writeUpdate writes after over before: the user's columns when they
// (or the password) changed, and the trainee's updatable columns with the
// times of the change (deleted_at follows enabled).
func (s *Store) writeUpdate(ctx context.Context, tx bun.Tx, before, after *traineeRow, passwordHash string, now time.Time) error {
	switch {
	case before.Enabled && !after.Enabled:
		after.DeletedAt = &now
	case after.Enabled:
		after.DeletedAt = nil
	}
	after.UpdatedAt = now
	after.Version = before.Version + 1
	after.SearchName = searchName(after.Name)
	if userChanged(before, after) || passwordHash != "" {
		q := setUserColumns(tx.NewUpdate().Model((*userRow)(nil)), after).
			Where("u.id = ?", after.UserID)
		if passwordHash != "" {
			q = q.Set("password_hash = ?", passwordHash)
		}
		if _, err := q.Exec(ctx); err != nil {
			return dbError(err)
		}
	}
	_, err := tx.NewUpdate().
		Model(after).
		Column(traineeUpdateColumns...).
		Where("t.id = ? AND t.company_id = ?", after.ID, after.CompanyID).
		Exec(ctx)
	return dbError(err)
}

// searchName is what users.search_name and trainees.search_name hold: the name lower-cased by Go,
// identically for both databases.
func searchName(name string) string { return api.SearchName(name) }
