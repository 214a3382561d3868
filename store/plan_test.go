package store_test

// TestQueryPlans holds the plan of every hot statement of the store on both
// databases, seeded as production has them: a company of several thousand
// trainees among smaller ones, analyzed as a bulk load is
// (AnalyzeTrainees: trainees and users, STAT4 samples included, on
// SQLite, where nothing analyzes the other tables; on PostgreSQL every
// table, as autovacuum would). It runs each operation of the table
// (plan_table_test.go), captures the statements the operation really ran
// (bun's query hook for bun's, the store's hot-statement trace for the
// prepared ones that run below bun), EXPLAINs each and checks it against
// its row: the indexes it must use, no read of a whole table of trainees,
// users, keys, events or deliveries, and for a point lookup no walk of a
// company's trainees. On SQLite every prepared statement is also run with
// other values, and must not be compiled again: a statement whose plan
// SQLite thinks depends on a bound value is prepared again on every call,
// which halved GET by id in issue 36 with the very same plan. On
// PostgreSQL a prepared statement is checked in its custom plan (its real
// arguments) and its generic plan (what PostgreSQL may switch to after
// five executions).

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"modernc.org/sqlite"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

func TestQueryPlans(t *testing.T) {
	skipUnderRace(t)
	storetest.EachURL(t, func(t *testing.T, url string) {
		began := time.Now()
		s := storetest.Open(t, url)
		c := &planCapture{}
		store.DB(s).AddQueryHook(c)
		store.TraceHot(s, c.hot)
		now := planNow
		store.SetNow(s, func() time.Time { return now })
		seed := seedPlans(t, s, &now)
		now = planNow
		t.Logf("seeded and analyzed in %s", time.Since(began).Round(time.Millisecond))
		ex := newExplainer(t, s, url)
		for _, op := range planOps(t, s, seed) {
			t.Run(op.name, func(t *testing.T) {
				ex.check(t, c, op)
			})
		}
		t.Logf("done in %s", time.Since(began).Round(time.Millisecond))
	})
}

// planNow is the seeded database's clock during the checks; the seed's
// trainees were created over the 100 days before it.
var planNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// planCapture records the statements of one operation.
type planCapture struct {
	mu    sync.Mutex
	on    bool
	stmts []planStatement
}

// planStatement is a statement an operation ran: bun's, with its values
// in its text, or a hot one, with $n placeholders and its arguments.
type planStatement struct {
	text string
	args []any
	hot  bool
}

func (c *planCapture) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (c *planCapture) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	c.add(planStatement{text: e.Query})
}

func (c *planCapture) hot(text string, args []any) {
	c.add(planStatement{text: text, args: slices.Clone(args), hot: true})
}

func (c *planCapture) add(st planStatement) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.on && explainable(st.text) {
		c.stmts = append(c.stmts, st)
	}
}

// run runs f and returns the statements it ran.
func (c *planCapture) run(f func() error) ([]planStatement, error) {
	c.mu.Lock()
	c.on, c.stmts = true, nil
	c.mu.Unlock()
	err := f()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = false
	return c.stmts, err
}

// explainable reports whether a statement reads or writes rows: not a
// transaction's BEGIN or COMMIT, nor PostgreSQL's advisory locks.
func explainable(text string) bool {
	t := strings.ToUpper(strings.TrimSpace(text))
	if strings.HasPrefix(t, "SELECT PG_ADVISORY_XACT_LOCK(") || strings.HasPrefix(t, "SELECT PG_TRY_ADVISORY_XACT_LOCK(") {
		return false
	}
	for _, p := range []string{"SELECT", "WITH", "INSERT", "UPDATE", "DELETE"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// planOp is one operation of the store and the statements it runs.
type planOp struct {
	name string
	// warm runs the operation once before it is captured: a read, whose
	// first call may also record a key's use in the background.
	warm  bool
	run   func() error
	stmts []planRow
}

// planRow is one statement of an operation: what it is, a regular
// expression that its text matches (quotes removed, spaces collapsed),
// and what its plan must be on each database (nil: it does not run
// there).
type planRow struct {
	what     string
	match    string
	sqlite   *planWant
	postgres *planWant
}

// planWant is what a statement's plan must hold.
type planWant struct {
	// uses are names each of which the plan must show, "a|b" for either:
	// an index, or SQLite's "INTEGER PRIMARY KEY" (a read by rowid) or
	// "VIRTUAL TABLE" (FTS5).
	uses []string
	// point: the statement reads trainees by id only, never a company's
	// trainees (SQLite: every step over trainees searches by rowid or id;
	// PostgreSQL: every scan of trainees has an index condition on id).
	point bool
	// scans are the tables (or, on SQLite, the indexes) this statement
	// may read whole although bannedScans has them; why says why.
	scans []string
	why   string
	// generic, when set, judges the generic plan of a PostgreSQL prepared
	// statement instead of this want.
	generic *planWant
}

// uses is a planWant that uses each of names ("a|b": either).
func uses(names ...string) *planWant { return &planWant{uses: names} }

// byID marks w a point lookup of trainees.
func (w *planWant) byID() *planWant { w.point = true; return w }

// scanning lets w read tables whole, for the reason why.
func (w *planWant) scanning(why string, tables ...string) *planWant {
	w.scans, w.why = tables, why
	return w
}

// orGeneric judges the generic plan of a PostgreSQL prepared statement by g.
func (w *planWant) orGeneric(g *planWant) *planWant { w.generic = g; return w }

// note says what w holds, for the test's log.
func (w *planWant) note() string {
	n := "uses " + strings.ReplaceAll(strings.Join(w.uses, ", "), "|", " or ")
	if len(w.uses) == 0 {
		n = "no index of its own"
	}
	if w.point {
		n += "; by id"
	}
	if len(w.scans) > 0 {
		n += "; may read all of " + strings.Join(w.scans, ", ") + ": " + w.why
	}
	if w.generic != nil {
		n += "; generic plan: " + w.generic.note()
	}
	return n
}

// Tables no statement may read whole (SQLite: SCAN, with or without an
// index; PostgreSQL: Seq Scan), unless its row says why.
var bannedScans = []string{"trainees", "users", "trainee_search", "api_keys", "api_key_secrets", "webhook_events", "webhook_deliveries"}

// explainer EXPLAINs statements: on SQLite over a connection of its own
// (with an authorizer that counts compilations), on PostgreSQL over one of
// the store's connections (its simple protocol writes a hot statement's
// arguments into EXECUTE).
type explainer struct {
	s       *store.Store
	dialect string
	conn    *sql.Conn
	// compiled counts the statements SQLite compiled on conn (the
	// authorizer's SELECT, INSERT, UPDATE and DELETE callbacks).
	compiled atomic.Int64
}

func newExplainer(t *testing.T, s *store.Store, url string) *explainer {
	ex := &explainer{s: s, dialect: s.Dialect()}
	var db *sql.DB
	if path, ok := strings.CutPrefix(url, "sqlite:"); ok {
		var err error
		if db, err = sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
	} else {
		db = store.DB(s).DB
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ex.conn = conn
	if ex.dialect == store.DialectSQLite {
		err := conn.Raw(func(dc any) error {
			r, ok := dc.(sqlite.AuthorizerRegisterer)
			if !ok {
				return fmt.Errorf("the SQLite driver's connection %T has no authorizer", dc)
			}
			return r.RegisterAuthorizer(func(action sqlite.AuthorizerActionCode, _, _, _, _ string) sqlite.AuthorizerReturnCode {
				switch action {
				case sqlite.AuthSelect, sqlite.AuthInsert, sqlite.AuthUpdate, sqlite.AuthDelete:
					ex.compiled.Add(1)
				}
				return sqlite.AuthorizerOK
			})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return ex
}

// check runs op, matches each statement it ran to a row of op and checks
// its plan; every row meant for this database must have been run.
func (ex *explainer) check(t *testing.T, c *planCapture, op planOp) {
	if op.warm {
		if err := op.run(); err != nil {
			t.Fatalf("%s (warm-up): %v", op.name, err)
		}
	}
	store.WaitTouches(ex.s)
	stmts, err := c.run(op.run)
	store.WaitTouches(ex.s)
	if err != nil {
		t.Fatalf("%s: %v", op.name, err)
	}
	seen := make([]bool, len(op.stmts))
	matches := make([]*regexp.Regexp, len(op.stmts))
	for i, row := range op.stmts {
		matches[i] = regexp.MustCompile(row.match)
	}
	for _, st := range stmts {
		norm := normalize(st.text)
		i := slices.IndexFunc(matches, func(re *regexp.Regexp) bool { return re.MatchString(norm) })
		plan, problems := ex.explain(t, st)
		if i < 0 {
			t.Errorf("%s ran a statement that is not in the table (add a row with what its plan must be):\n%s", op.name, show(st, plan))
			continue
		}
		row := op.stmts[i]
		seen[i] = true
		want := row.sqlite
		if ex.dialect == store.DialectPostgres {
			want = row.postgres
		}
		if want == nil {
			t.Errorf("%s: %s ran on %s, where the table says it does not:\n%s", op.name, row.what, ex.dialect, show(st, plan))
			continue
		}
		problems = append(problems, ex.judge(st, plan, want)...)
		if len(problems) > 0 {
			t.Errorf("%s: %s: %s\n%s", op.name, row.what, strings.Join(problems, "; "), show(st, plan))
			continue
		}
		t.Logf("%s: %s", row.what, want.note())
	}
	for i, row := range op.stmts {
		want := row.sqlite
		if ex.dialect == store.DialectPostgres {
			want = row.postgres
		}
		if want != nil && !seen[i] {
			t.Errorf("%s: the table expects %s (/%s/), which the operation did not run", op.name, row.what, row.match)
		}
	}
}

// normalize is a statement's text as the table's expressions match it:
// without quotes, its spaces collapsed.
func normalize(text string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(text, `"`, "")), " ")
}

// show prints a statement and its plan for a failure message.
func show(st planStatement, plan *explained) string {
	var b strings.Builder
	b.WriteString("  statement")
	if st.hot {
		fmt.Fprintf(&b, " (prepared, arguments %s)", showArgs(st.args))
	}
	b.WriteString(":\n    " + normalize(st.text) + "\n")
	for _, p := range plan.plans {
		fmt.Fprintf(&b, "  plan%s:\n", p.label)
		for _, l := range p.lines {
			b.WriteString("    " + l + "\n")
		}
	}
	return b.String()
}

func showArgs(args []any) string {
	out := make([]string, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case []byte:
			out[i] = fmt.Sprintf("%d bytes", len(v))
		case string:
			out[i] = fmt.Sprintf("%q", v)
		default:
			if rv := reflect.ValueOf(a); rv.Kind() == reflect.Pointer && !rv.IsNil() {
				a = rv.Elem().Interface()
			}
			out[i] = fmt.Sprint(a)
		}
		if len(out[i]) > 60 {
			out[i] = out[i][:60] + "..."
		}
	}
	return "(" + strings.Join(out, ", ") + ")"
}

// explained is a statement's plans: one on SQLite, the custom and the
// generic plan of a prepared statement on PostgreSQL.
type explained struct {
	plans []onePlan
}

type onePlan struct {
	label   string
	generic bool       // PostgreSQL's generic plan of a prepared statement
	lines   []string   // as printed
	nodes   []planNode // PostgreSQL's nodes; SQLite's steps
}

// planNode is one step of a plan: SQLite's detail line, or PostgreSQL's
// node type, relation and index.
type planNode struct {
	detail   string // SQLite
	kind     string // PostgreSQL: Seq Scan, Index Scan, ...
	relation string
	index    string
	cond     string // PostgreSQL: the node's index condition
}

// explain EXPLAINs st; the problems are a prepared statement's
// recompilations on SQLite.
func (ex *explainer) explain(t *testing.T, st planStatement) (*explained, []string) {
	if ex.dialect == store.DialectSQLite {
		return ex.explainSQLite(t, st)
	}
	return ex.explainPostgres(t, st), nil
}

// explainSQLite is EXPLAIN QUERY PLAN of st. A prepared statement is also
// prepared and run five times, as the store runs it on every call (a
// write in a transaction rolled back): with its arguments, then with other
// values (perturb). SQLite may compile it again on its first two runs, and
// then not any more; a statement whose plan SQLite thinks depends on a
// bound value (STAT4 samples of an index whose leading column it binds, in
// a join; a bound LIKE pattern) is compiled again whenever another value
// is bound, that is on every call (issue 36). Its authorizer sees each
// compilation. EXPLAIN itself cannot tell: the plan is the same.
func (ex *explainer) explainSQLite(t *testing.T, st planStatement) (*explained, []string) {
	r, err := ex.conn.QueryContext(ctx, "EXPLAIN QUERY PLAN "+st.text, st.args...)
	if err != nil {
		t.Fatalf("explain %s: %v", st.text, err)
	}
	plan := &explained{plans: []onePlan{ex.sqlitePlan(t, r, st)}}
	if !st.hot {
		return plan, nil
	}
	tx, err := ex.conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	stmt, err := tx.PrepareContext(ctx, st.text)
	if err != nil {
		t.Fatalf("prepare %s: %v", st.text, err)
	}
	defer stmt.Close()
	var problems []string
	var counts []int64
	for run := 1; run <= 5; run++ {
		before := ex.compiled.Load()
		rows, err := stmt.QueryContext(ctx, perturb(st.args, run-1)...)
		if err == nil {
			for rows.Next() {
			}
			err = errors.Join(rows.Err(), rows.Close())
		}
		// The write was made once already, and the other values may not
		// fit: it may break a constraint, after SQLite chose to compile it
		// again or not.
		if err != nil && !strings.Contains(err.Error(), "constraint failed") {
			t.Fatalf("run %s: %v", st.text, err)
		}
		counts = append(counts, ex.compiled.Load()-before)
	}
	if n := counts[2] + counts[3] + counts[4]; n != 0 {
		problems = append(problems, fmt.Sprintf("SQLite compiled the prepared statement again when bound to other values (authorizations on runs 1-5: %v): "+
			"its plan depends on a bound value, so every call of the store prepares it anew", counts))
	}
	return plan, problems
}

// perturb returns args with each value changed by n (n = 0: args): what
// the next call of a prepared statement binds.
func perturb(args []any, n int) []any {
	out := slices.Clone(args)
	for i, a := range out {
		switch v := a.(type) {
		case int64:
			out[i] = v + int64(n)
		case int:
			out[i] = v + n
		case string:
			out[i] = v + strings.Repeat("~", n)
		case []byte:
			b := slices.Clone(v)
			if len(b) > 0 {
				b[0] += byte(n)
			}
			out[i] = b
		case bool:
			out[i] = v != (n%2 == 1)
		}
	}
	return out
}

// sqlitePlan reads EXPLAIN QUERY PLAN's rows (id, parent, notused,
// detail) into lines indented by depth; it closes rows.
func (ex *explainer) sqlitePlan(t *testing.T, rows *sql.Rows, st planStatement) onePlan {
	defer rows.Close()
	depth := map[int64]int{0: -1}
	var p onePlan
	for rows.Next() {
		var id, parent, notused int64
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatalf("explain %s: %v", st.text, err)
		}
		depth[id] = depth[parent] + 1
		p.lines = append(p.lines, strings.Repeat("  ", depth[id])+detail)
		p.nodes = append(p.nodes, planNode{detail: detail})
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("explain %s: %v", st.text, err)
	}
	return p
}

// explainPostgres is EXPLAIN (FORMAT JSON) of st; a prepared statement's
// custom plan (with its arguments) and generic plan, each from PREPARE
// and EXPLAIN EXECUTE.
func (ex *explainer) explainPostgres(t *testing.T, st planStatement) *explained {
	if !st.hot {
		return &explained{plans: []onePlan{ex.pgPlan(t, st, "", "EXPLAIN (FORMAT JSON) "+st.text)}}
	}
	exec := "EXPLAIN (FORMAT JSON) EXECUTE plan_check"
	if len(st.args) > 0 {
		params := make([]string, len(st.args))
		for i := range params {
			params[i] = fmt.Sprintf("$%d", i+1)
		}
		exec += "(" + strings.Join(params, ", ") + ")"
	}
	out := &explained{}
	for _, mode := range []string{"custom", "generic"} {
		for _, q := range []string{"SET plan_cache_mode = force_" + mode + "_plan", "PREPARE plan_check AS " + st.text} {
			if _, err := ex.conn.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		p := ex.pgPlan(t, st, " ("+mode+")", exec, st.args...)
		p.generic = mode == "generic"
		out.plans = append(out.plans, p)
		for _, q := range []string{"DEALLOCATE plan_check", "RESET plan_cache_mode"} {
			if _, err := ex.conn.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	return out
}

// pgPlan runs one EXPLAIN (FORMAT JSON) and flattens its tree.
func (ex *explainer) pgPlan(t *testing.T, st planStatement, label, query string, args ...any) onePlan {
	var text string
	if err := ex.conn.QueryRowContext(ctx, query, args...).Scan(&text); err != nil {
		t.Fatalf("%s\n(for %s): %v", query, st.text, err)
	}
	var doc []struct {
		Plan pgNode `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(text), &doc); err != nil || len(doc) != 1 {
		t.Fatalf("EXPLAIN's JSON %q: %v", text, err)
	}
	p := onePlan{label: label}
	var walk func(n *pgNode, depth int)
	walk = func(n *pgNode, depth int) {
		line := n.NodeType
		if n.RelationName != "" {
			line += " on " + n.RelationName
			if n.Alias != "" && n.Alias != n.RelationName {
				line += " " + n.Alias
			}
		}
		if n.IndexName != "" {
			line += " using " + n.IndexName
		}
		for _, c := range []struct{ name, v string }{{"Index Cond", n.IndexCond}, {"Recheck Cond", n.RecheckCond},
			{"Filter", n.Filter}, {"Join Filter", n.JoinFilter}, {"Hash Cond", n.HashCond}} {
			if c.v != "" {
				line += "  [" + c.name + ": " + c.v + "]"
			}
		}
		if n.SubplanName != "" {
			line = n.SubplanName + ": " + line
		}
		p.lines = append(p.lines, strings.Repeat("  ", depth)+line)
		p.nodes = append(p.nodes, planNode{kind: n.NodeType, relation: n.RelationName, index: n.IndexName, cond: n.IndexCond})
		for i := range n.Plans {
			walk(&n.Plans[i], depth+1)
		}
	}
	walk(&doc[0].Plan, 0)
	return p
}

// pgNode is a node of PostgreSQL's EXPLAIN (FORMAT JSON).
type pgNode struct {
	NodeType     string   `json:"Node Type"`
	RelationName string   `json:"Relation Name"`
	Alias        string   `json:"Alias"`
	IndexName    string   `json:"Index Name"`
	IndexCond    string   `json:"Index Cond"`
	RecheckCond  string   `json:"Recheck Cond"`
	Filter       string   `json:"Filter"`
	JoinFilter   string   `json:"Join Filter"`
	HashCond     string   `json:"Hash Cond"`
	SubplanName  string   `json:"Subplan Name"`
	Plans        []pgNode `json:"Plans"`
}

// judge lists what in plan breaks want.
func (ex *explainer) judge(st planStatement, plan *explained, want *planWant) []string {
	var problems []string
	for _, p := range plan.plans {
		w := want
		if p.generic && want.generic != nil {
			w = want.generic
		}
		var shown strings.Builder
		for _, n := range p.nodes {
			shown.WriteString(n.detail + " " + n.index + "\n")
		}
		for _, u := range w.uses {
			if !slices.ContainsFunc(strings.Split(u, "|"), func(name string) bool { return strings.Contains(shown.String(), name) }) {
				problems = append(problems, fmt.Sprintf("the plan%s does not use %s", p.label, strings.ReplaceAll(u, "|", " or ")))
			}
		}
		if ex.dialect == store.DialectSQLite {
			problems = append(problems, judgeSQLite(st, p, w)...)
		} else {
			problems = append(problems, judgePostgres(p, w)...)
		}
	}
	return problems
}

// sqliteAlias finds the aliases of the banned tables in a statement's
// text.
var sqliteAlias = regexp.MustCompile(`(?i)\b(` + strings.Join(bannedScans, "|") + `)\s+(?:AS\s+)?(\w+)`)

// sqliteScan is a step of SQLite's plan that reads a whole table (or a
// whole index of it), and the table's alias.
var sqliteScan = regexp.MustCompile(`^SCAN (\w+)(?: USING|$)`)

// sqliteIndex is the index a step reads.
var sqliteIndex = regexp.MustCompile(`USING (?:COVERING )?INDEX (\w+)`)

// sqliteRowidWalk is a step that reads a table by rowid from a bound on:
// every company's rows after it.
var sqliteRowidWalk = regexp.MustCompile(`^SEARCH (\w+) USING INTEGER PRIMARY KEY \(rowid[<>]`)

// sqliteStep is a step that reads a table, and its alias.
var sqliteStep = regexp.MustCompile(`^(?:SCAN|SEARCH) (\w+)\b`)

// sqlitePoint is a step that reads trainees by id.
var sqlitePoint = regexp.MustCompile(`\(rowid=\?\)|\((?:company_id=\? AND )?(?:rowid|id)=\?`)

func judgeSQLite(st planStatement, p onePlan, want *planWant) []string {
	// alias -> table, for the tables the ban covers.
	tables := map[string]string{}
	for _, m := range sqliteAlias.FindAllStringSubmatch(normalize(st.text), -1) {
		if slices.Contains(bannedScans, strings.ToLower(m[1])) {
			tables[m[2]] = strings.ToLower(m[1])
		}
	}
	for _, b := range bannedScans {
		tables[b] = b
	}
	var problems []string
	for _, n := range p.nodes {
		if m := sqliteScan.FindStringSubmatch(n.detail); m != nil {
			table, banned := tables[m[1]]
			index := sqliteIndex.FindStringSubmatch(n.detail)
			if banned && !slices.Contains(want.scans, table) && (index == nil || !slices.Contains(want.scans, index[1])) {
				problems = append(problems, fmt.Sprintf("it reads all of %s (%s)", table, n.detail))
			}
		}
		if m := sqliteRowidWalk.FindStringSubmatch(n.detail); m != nil && tables[m[1]] == "trainees" && !slices.Contains(want.scans, "trainees") {
			problems = append(problems, fmt.Sprintf("it walks every company's trainees by id (%s)", n.detail))
		}
		if m := sqliteStep.FindStringSubmatch(n.detail); want.point && m != nil && tables[m[1]] == "trainees" && !sqlitePoint.MatchString(n.detail) {
			problems = append(problems, fmt.Sprintf("a point lookup walks trainees (%s)", n.detail))
		}
	}
	return problems
}

// pgIDCond is an index condition on a trainee's id.
var pgIDCond = regexp.MustCompile(`(^|[(\s])id = `)

func judgePostgres(p onePlan, want *planWant) []string {
	var problems []string
	for _, n := range p.nodes {
		if n.kind == "Seq Scan" && slices.Contains(bannedScans, n.relation) && !slices.Contains(want.scans, n.relation) {
			problems = append(problems, fmt.Sprintf("the plan%s reads all of %s (Seq Scan)", p.label, n.relation))
		}
		if want.point && n.relation == "trainees" && strings.Contains(n.kind, "Scan") && !pgIDCond.MatchString(n.cond) {
			problems = append(problems, fmt.Sprintf("a point lookup's plan%s reads trainees by %s %s without a condition on id", p.label, n.kind, n.index))
		}
	}
	return problems
}

// planSeed is what seedPlans made.
type planSeed struct {
	big, small  int64   // the company of planBig trainees, and the smallest
	trainers    []int64 // big's
	trainee     int64   // a live trainee of big
	key, oldKey [32]byte
	// big's time automations: EXPIRATION_APPROACHING and INACTIVE with a
	// WEBHOOK action, TRAINEE_EXPIRED with DISABLE_TRAINEE.
	approaching, inactive, expired int64
	today                          api.Date
	loc                            *time.Location
}

// The seed's sizes: planBig trainees in one company, planSmall in each of
// the others (a quarter of the trainees are the big company's, so that
// its plans are those of a multi-tenant database, not of a table that is
// one company).
const planBig = 5000

var planSmall = []int{600, 600, 600, 600, 600, 600, 600, 600, 600, 600, 600, 600, 600, 600, 600, 600, 600, 600, 600, 600, 250, 60}

// seedPlans fills the store as production has it and analyzes it as a
// bulk load does (AnalyzeTrainees), and the other tables as autovacuum
// would. Big's trainees are created over 100 days (now moves on).
func seedPlans(t *testing.T, s *store.Store, now *time.Time) *planSeed {
	t.Helper()
	loc := time.UTC
	seed := &planSeed{today: api.Today(planNow, loc), loc: loc}
	rng := rand.New(rand.NewPCG(36, 36))
	*now = planNow.AddDate(0, 0, -100)
	big, err := s.CreateCompany(ctx, "Plan Gym", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	seed.big = big.ID
	for i := range 8 {
		seed.trainers = append(seed.trainers, storetest.MustTrainer(t, s, big.ID, fmt.Sprintf("Coach %d", i), fmt.Sprintf("coach%d@plan.example.com", i)))
	}
	addTrainees(t, s, now, rng, big.ID, planBig, 25, seed.trainers, seed.today)
	for i, n := range planSmall {
		c, err := s.CreateCompany(ctx, fmt.Sprintf("Small Gym %d", i), "Europe/London")
		if err != nil {
			t.Fatal(err)
		}
		seed.small = c.ID
		trainers := []int64{
			storetest.MustTrainer(t, s, c.ID, "Small Coach", fmt.Sprintf("coach@small%d.example.com", i)),
			storetest.MustTrainer(t, s, c.ID, "Small Coach Two", fmt.Sprintf("coach2@small%d.example.com", i)),
		}
		*now = planNow.AddDate(0, 0, -100+i)
		addTrainees(t, s, now, rng, c.ID, n, 1, trainers, seed.today)
	}
	*now = planNow
	seedKeys(t, s, seed, rng)
	seedOutbox(t, s)
	seedTracked(t, s, seed)
	seedAutomations(t, s, seed)
	if err := s.AnalyzeTrainees(ctx); err != nil {
		t.Fatal(err)
	}
	if s.Dialect() == store.DialectPostgres {
		analyzeAll(t, s)
	}
	page, _, err := s.SearchTrainees(ctx, big.ID, api.Search{Status: api.StatusLive, Sort: api.SortID, Page: 100, Size: 1, Today: seed.today})
	if err != nil || len(page) != 1 {
		t.Fatalf("seed: %v %v", page, err)
	}
	seed.trainee = page[0].ID
	return seed
}

// analyzeAll is PostgreSQL's autovacuum, done: every table analyzed, and
// then left alone, so that no autovacuum run changes a plan during the
// test.
func analyzeAll(t *testing.T, s *store.Store) {
	t.Helper()
	var tables []string
	if err := store.DB(s).NewRaw("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename").Scan(ctx, &tables); err != nil {
		t.Fatal(err)
	}
	for _, table := range tables {
		if _, err := store.DB(s).ExecContext(ctx, `ALTER TABLE "`+table+`" SET (autovacuum_enabled = false)`); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.DB(s).ExecContext(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
}

var (
	planFirst = []string{"Anna", "Oliver", "Zoë", "Łukasz", "Mohammed", "Priya", "Chen", "Grace", "Jack", "Isla",
		"Noah", "Freya", "Mateo", "Lucía", "Kwame", "Ngozi", "Tomasz", "Ingrid", "Yuki", "Ravi", "Emma", "Leo"}
	planLast = []string{"Smith", "Jones", "Nowak", "Patel", "Khan", "Okafor", "Rossi", "Dubois", "Müller", "Kim",
		"García", "Murphy", "Walsh", "Chen", "Lee", "Taylor", "Brown", "Wilson", "Novák", "Yılmaz", "Costa"}
	planDomains = []string{"example.com", "example.org", "example.net", "mail.example.com", "gym.example"}
)

// addTrainees adds n trainees to the company through the store's bulk
// path, drawn as the demo's generated ones (cmd/traineed/demo): a phone for
// 80 %, an expiration date in the past for 20 % and in the future for
// 35 %, a last workout in the last 90 days for 60 %, 3 % soft-deleted, 70 %
// with a trainer; a day's worth at a time, the clock a day on each time.
func addTrainees(t *testing.T, s *store.Store, now *time.Time, rng *rand.Rand, company int64, n, days int, trainers []int64, today api.Date) {
	t.Helper()
	perDay := max(n/days, 1)
	for start := 0; start < n; start += perDay {
		batch := make([]api.NewTrainee, 0, perDay)
		for i := start; i < min(n, start+perDay); i++ {
			first, last := planFirst[rng.IntN(len(planFirst))], planLast[rng.IntN(len(planLast))]
			nt := api.NewTrainee{
				Name:          first + " " + last,
				Email:         fmt.Sprintf("%s.%s.%d+c%d@%s", asciiFold(first), asciiFold(last), i, company, planDomains[rng.IntN(len(planDomains))]),
				Enabled:       rng.IntN(100) >= 3,
				WeightUnit:    api.UnitKG,
				CreatedByType: api.CreatedByAdmin,
			}
			if rng.IntN(10) < 8 {
				nt.PhoneNumber = ptr(fmt.Sprintf("+1%03d%07d", 300+company%200, i))
			}
			if rng.IntN(10) < 7 {
				nt.TrainerID = &trainers[rng.IntN(len(trainers))]
			}
			if rng.IntN(100) < 65 {
				nt.DateOfBirth = &api.Date{Year: 1950 + rng.IntN(58), Month: time.Month(1 + rng.IntN(12)), Day: 1 + rng.IntN(28)}
			}
			switch e := rng.IntN(100); {
			case e < 20:
				nt.ExpirationDate = ptr(today.AddDays(-rng.IntN(700)))
			case e < 55:
				nt.ExpirationDate = ptr(today.AddDays(1 + rng.IntN(700)))
			}
			if rng.IntN(10) < 6 {
				nt.LastTrained = ptr(today.AddDays(-rng.IntN(90)))
			}
			batch = append(batch, nt)
		}
		if err := s.AddTraineesBulk(ctx, company, batch, "$argon2id$plan"); err != nil {
			t.Fatal(err)
		}
		*now = now.AddDate(0, 0, 100/days)
	}
}

// asciiFold keeps the ASCII letters of s, lower-cased, for an e-mail.
func asciiFold(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// seedKeys gives every company keys (2,000 in all, as many companies
// would have), one of them rotated lately (its previous secret still
// works), and 500 previous secrets.
func seedKeys(t *testing.T, s *store.Store, seed *planSeed, rng *rand.Rand) {
	t.Helper()
	random := func() []byte {
		b := make([]byte, 32)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	var companies []int64
	if err := store.DB(s).NewSelect().Table("companies").Column("id").Scan(ctx, &companies); err != nil {
		t.Fatal(err)
	}
	const keys, secrets = 2000, 500
	for start := 0; start < keys; start += 500 {
		var sb strings.Builder
		var args []any
		sb.WriteString("INSERT INTO api_keys (company_id, name, key_hash, prefix, created_at, scope) VALUES ")
		for i := start; i < start+500; i++ {
			if i > start {
				sb.WriteString(", ")
			}
			sb.WriteString("(?, ?, ?, 'pk_plan', ?, 'full')")
			args = append(args, companies[i%len(companies)], fmt.Sprintf("key %d", i), random(), planNow.AddDate(0, 0, -i%300))
		}
		if _, err := store.DB(s).ExecContext(ctx, sb.String(), args...); err != nil {
			t.Fatal(err)
		}
	}
	var sb strings.Builder
	var args []any
	sb.WriteString("INSERT INTO api_key_secrets (key_id, key_hash, expires_at) VALUES ")
	for i := range secrets {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("(?, ?, ?)")
		args = append(args, 1+i*3, random(), planNow.AddDate(0, 0, i%20-10))
	}
	if _, err := store.DB(s).ExecContext(ctx, sb.String(), args...); err != nil {
		t.Fatal(err)
	}
	seed.oldKey = api.HashKey(api.GenerateKey())
	k, err := s.CreateKey(ctx, seed.big, "plan", seed.oldKey, "pk_old00")
	if err != nil {
		t.Fatal(err)
	}
	seed.key = api.HashKey(api.GenerateKey())
	if _, err := s.RotateCompanyKey(ctx, seed.big, k.ID, seed.key, "pk_new00", 24*time.Hour); err != nil {
		t.Fatal(err)
	}
}

// seedOutbox gives the companies webhook endpoints and every trainee its
// trainee.created event with a delivery per endpoint, most of them
// delivered, some waiting for a retry and some due now.
func seedOutbox(t *testing.T, s *store.Store) {
	t.Helper()
	var companies []int64
	if err := store.DB(s).NewSelect().Table("companies").Column("id").Scan(ctx, &companies); err != nil {
		t.Fatal(err)
	}
	for _, c := range companies {
		storetest.AddWebhook(t, s, c, "https://hooks.example.com/all")
		storetest.AddWebhook(t, s, c, "https://hooks.example.com/expired", api.EventTraineeExpired)
	}
	db := store.DB(s)
	_, err := db.ExecContext(ctx, `INSERT INTO webhook_events (public_id, company_id, trainee_id, type, payload, created_at)
		SELECT 'evt_plan' || CAST(t.id AS TEXT), t.company_id, t.id, 'trainee.created', '{}', t.created_at
		FROM trainees AS t ORDER BY t.created_at, (t.id * 7919) % 10007`)
	if err != nil {
		t.Fatal(err)
	}
	// 90 % delivered, 7 % waiting for a retry, 3 % due.
	_, err = db.ExecContext(ctx, `INSERT INTO webhook_deliveries (event_id, webhook_id, status, attempts, next_attempt_at, created_at, updated_at)
		SELECT e.id, w.id,
			CASE WHEN e.id % 100 < 90 THEN 'succeeded' ELSE 'pending' END,
			CASE WHEN e.id % 100 < 90 THEN 1 ELSE 2 END,
			CASE WHEN e.id % 100 < 97 THEN ? ELSE e.created_at END,
			e.created_at, e.created_at
		FROM webhook_events AS e JOIN webhooks AS w ON w.company_id = e.company_id AND w.url = 'https://hooks.example.com/all'
		ORDER BY e.id`, planNow.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
}

// seedTracked ingests a few weeks of workouts and weights for some of
// big's trainees.
func seedTracked(t *testing.T, s *store.Store, seed *planSeed) {
	t.Helper()
	page, _, err := s.SearchTrainees(ctx, seed.big, api.Search{Status: api.StatusLive, Sort: api.SortID, Size: 50, Today: seed.today})
	if err != nil {
		t.Fatal(err)
	}
	var recs []api.TrackedRecord
	for _, tr := range page {
		for d := range 14 {
			day := seed.today.AddDays(-d * 2)
			recs = append(recs, api.TrackedRecord{Type: api.RecordWorkout, TraineeID: tr.ID, Date: day},
				api.TrackedRecord{Type: api.RecordWeight, TraineeID: tr.ID, Date: day, WeightKG: 70 + float64(d)/10})
		}
	}
	if _, err := s.IngestTracked(ctx, seed.big, recs); err != nil {
		t.Fatal(err)
	}
}

// seedAutomations gives big the time automations the evaluator fires and
// an event automation that its updates fire, with a history: the runs of
// the reminder for the trainees whose expiration has passed, and the
// trainee.expired events of expirations before the evaluator's catch-up
// window.
func seedAutomations(t *testing.T, s *store.Store, seed *planSeed) {
	t.Helper()
	create := func(spec api.AutomationSpec) int64 {
		spec.Enabled = true
		a, err := s.CreateAutomation(ctx, seed.big, spec, api.GenerateWebhookSecret(), 0)
		if err != nil {
			t.Fatal(err)
		}
		return a.ID
	}
	week, month, active := 7, 30, api.StatusActive
	seed.approaching = create(api.AutomationSpec{Name: "Renewal reminder", TriggerType: api.TriggerExpirationApproaching, Days: &week,
		ActionType: api.ActionWebhook, URL: ptr("https://crm.example.com/renewals")})
	seed.inactive = create(api.AutomationSpec{Name: "Nudge the idle", TriggerType: api.TriggerInactive, Days: &month,
		ActionType: api.ActionWebhook, URL: ptr("https://crm.example.com/idle")})
	seed.expired = create(api.AutomationSpec{Name: "Archive the expired", TriggerType: api.TriggerTraineeExpired,
		ActionType: api.ActionDisableTrainee})
	create(api.AutomationSpec{Name: "Tell the CRM", TriggerType: api.TriggerTraineeUpdated, Status: &active,
		ActionType: api.ActionWebhook, URL: ptr("https://crm.example.com/updates")})
	past := seed.today.AddDays(-api.CatchUpDays - 1).Int()
	db := store.DB(s)
	_, err := db.ExecContext(ctx, `INSERT INTO automation_runs (company_id, automation_id, trainee_id, occurrence, fired_at, outcome)
		SELECT t.company_id, ?, t.id, 'approaching:' || CAST(t.expiration_date AS TEXT), t.created_at, ?
		FROM trainees AS t WHERE t.company_id = ? AND t.expiration_date < ? ORDER BY t.id`,
		seed.approaching, api.OutcomeDelivered, seed.big, past)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.ExecContext(ctx, `INSERT INTO trainee_expirations (company_id, trainee_id, expiration_date, created_at)
		SELECT t.company_id, t.id, t.expiration_date, t.created_at FROM trainees AS t WHERE t.expiration_date < ? ORDER BY t.id`, past)
	if err != nil {
		t.Fatal(err)
	}
}
