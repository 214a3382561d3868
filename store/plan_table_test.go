package store_test

// The table of TestQueryPlans: every hot operation of the store, and what
// the plan of each statement it runs must be on SQLite and on PostgreSQL.
//
// When an index or a statement changes on purpose, run
//
//	TRAINEED_TEST_POSTGRES=... go test ./store/ -run TestQueryPlans
//
// read the plans the failures print, and change the rows here (a new
// statement fails as "not in the table" with its plan). A row names the
// indexes that carry the statement's intent, not every step of its plan.

import (
	"errors"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/jobs"
	"github.com/traineed/traineed/store"
)

// Names of indexes that have none of their own in the migrations, and
// the ones both databases share under different names.
const (
	// SQLite's index of UNIQUE (company_id, id) on trainees (trainees_company_id_id_key).
	sqCompanyID = "sqlite_autoindex_trainees_2"
	// PostgreSQL's two indexes of (company_id, id) on trainees: the
	// unique constraint's and the covering one of the id sort (migration
	// 000007); the planner takes either.
	pgCompanyID = "trainees_company_id_search_idx|trainees_company_id_id_key"
	// A trainee read by its id on PostgreSQL: its key, or (company_id, id).
	pgByID = "trainees_pkey|" + pgCompanyID
	// A read by rowid on SQLite.
	sqRowid = "INTEGER PRIMARY KEY"
	// An FTS5 query on SQLite (trainees_fts, trainees_fts_terms).
	sqFTS = "VIRTUAL TABLE"
)

// The expressions that find a search's statements.
const (
	// The bounded count of a search's matches (searchCount, ftsMatchCount).
	mCount = `^SELECT count\(\*\) FROM \(SELECT 1 FROM (trainees|trainees_fts|trainee_search) AS`
	// SQLite: the FTS5 candidates of q, counted once (ftsCount).
	mCandidates = `^SELECT count\(\*\) FROM \(SELECT (rowid|doc) FROM trainees_fts`
	// PostgreSQL: the sample of a short q (planSearch).
	mSample = `^SELECT count\(\*\), coalesce\(sum\(`
	// The page: its keys, then their rows and users (searchPage, pageRows).
	mPage = `\) AS k (CROSS )?JOIN trainees AS t ON t\.id = k\.id JOIN users AS u`
	// One trainee with its user, by id (traineeByID, loadTrainee).
	mTrainee = `^SELECT t\.id, .* FROM trainees AS t (NOT INDEXED )?JOIN users AS u ON u\.id = t\.user_id WHERE \(t\.company_id = \S+\) AND \(t\.id = \S+\)`
)

// whyCommon: PostgreSQL counts a common q of one or two characters with
// its LIKE over trainee_search (textCounts), reading the narrow copy until
// the bound: at this size, all of it.
const whyCommon = "a common short q is counted with its LIKE over trainee_search, the narrow copy, " +
	"up to the bound (textCounts): at this size a sequential read of the copy"

func count(sqlite, postgres *planWant) planRow {
	return planRow{what: "the bounded count", match: mCount, sqlite: sqlite, postgres: postgres}
}

func page(sqlite, postgres *planWant) planRow {
	return planRow{what: "the page", match: mPage, sqlite: sqlite, postgres: postgres}
}

// candidates is SQLite's count of q's FTS5 candidates.
func candidates(sqlite *planWant) planRow {
	return planRow{what: "the FTS5 candidates' count", match: mCandidates, sqlite: sqlite}
}

// sample is PostgreSQL's sample of the company for a short q.
func sample() planRow {
	return planRow{what: "the sample of a short q", match: mSample, postgres: uses(pgCompanyID)}
}

// planOps are the operations TestQueryPlans runs, in order, and the plan
// each of their statements must have.
func planOps(t *testing.T, s *store.Store, seed *planSeed) []planOp {
	var ops []planOp
	ops = append(ops, keyOps(s, seed)...)
	ops = append(ops, searchOps(t, s, seed)...)
	ops = append(ops, changeOps(s, seed)...)
	ops = append(ops, feedOps(s, seed)...)
	ops = append(ops, dispatcherOps(s)...)
	ops = append(ops, evaluatorOps(s, seed)...)
	ops = append(ops, dashboardOps(s, seed)...)
	return ops
}

// The key lookup and GET by id: prepared statements, run on every
// request. On SQLite api_keys has no statistics, as in production (only
// AnalyzeTrainees analyzes, trainees and users): with STAT4 samples of its
// key_hash index (after a full ANALYZE) SQLite prepares the statements
// that join api_keys by key_hash (authQuery, previousKeyQuery,
// keyTraineeByID) again on every call, as it did GET by id's for
// trainees_id_status_idx (issue 36).
func keyOps(s *store.Store, seed *planSeed) []planOp {
	key := planRow{what: "the key by its hash (authQuery)", match: `^SELECT k\.id, .* FROM api_keys AS k JOIN companies AS c .* WHERE \(k\.key_hash = \$1`,
		sqlite: uses("sqlite_autoindex_api_keys_1"), postgres: uses("api_keys_key_hash_key")}
	previous := planRow{what: "the key by a rotated-out secret (previousKeyQuery)", match: `^SELECT k\.id, .* JOIN api_key_secrets AS s`,
		sqlite: uses("sqlite_autoindex_api_key_secrets_1", sqRowid), postgres: uses("api_key_secrets_key_hash_key", "api_keys_pkey")}
	return []planOp{
		{name: "key lookup", warm: true, stmts: []planRow{key},
			run: func() error { _, err := s.Authenticate(ctx, seed.key); return err }},
		{name: "key lookup by a rotated-out secret", warm: true, stmts: []planRow{key, previous},
			run: func() error { _, err := s.Authenticate(ctx, seed.oldKey); return err }},
		{name: "key lookup of an unknown key", warm: true, stmts: []planRow{key, previous}, run: func() error {
			_, err := s.Authenticate(ctx, api.HashKey("pk_unknown"))
			if errors.Is(err, api.ErrUnauthorized) {
				return nil
			}
			return fmt.Errorf("an unknown key: %v", err)
		}},
		{name: "GET by id with its key", warm: true, stmts: []planRow{{what: "the key and the trainee (keyTraineeByID)",
			match:  `^SELECT t\.id, .* FROM trainees AS t (NOT INDEXED )?JOIN users AS u .* JOIN api_keys AS k ON k\.key_hash = \$1`,
			sqlite: uses("sqlite_autoindex_api_keys_1", sqRowid).byID(), postgres: uses("api_keys_key_hash_key", pgByID).byID()}},
			run: func() error {
				_, _, found, err := s.AuthenticateTrainee(ctx, seed.key, seed.trainee)
				if err == nil && !found {
					err = errors.New("not found")
				}
				return err
			}},
		{name: "GET by id", warm: true, stmts: []planRow{{what: "the trainee (traineeByID)", match: mTrainee,
			sqlite: uses(sqRowid).byID(), postgres: uses(pgByID).byID()}},
			run: func() error { _, err := s.Trainee(ctx, seed.big, seed.trainee); return err }},
	}
}

// The search shapes of BenchmarkStore and the cockpit's filters, on the
// big company.
func searchOps(t *testing.T, s *store.Store, seed *planSeed) []planOp {
	parse := func(query string) api.Search {
		v, err := url.ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		q, err := api.ParseSearch(v, seed.today)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		q.Zone = seed.loc
		return q
	}
	search := func(query string, rows ...planRow) planOp {
		q := parse(query)
		return planOp{name: "search " + query, warm: true, stmts: rows,
			run: func() error { _, _, err := s.SearchTrainees(ctx, seed.big, q); return err }}
	}
	// cursor is the search of query after its page's next cursor.
	cursor := func(query string, rows ...planRow) planOp {
		q := parse(query)
		page, total, err := s.SearchTrainees(ctx, seed.big, q)
		if err != nil {
			t.Fatal(err)
		}
		next := q.NextCursor(page, total)
		if next == nil {
			t.Fatalf("%s: no next page", query)
		}
		c, err := api.DecodeCursor(*next)
		if err != nil {
			t.Fatal(err)
		}
		q.Page, q.Cursor = 0, &c
		return planOp{name: "search " + query + " then its next cursor", warm: true, stmts: rows,
			run: func() error { _, _, err := s.SearchTrainees(ctx, seed.big, q); return err }}
	}
	trainer := fmt.Sprint(seed.trainers[2])
	ftsCount := uses(sqFTS, "trainees_id_status_idx") // the phrase, then each trainee's company and status from the narrow index
	textCount := uses("trainee_search_text_idx")
	liveCount := uses("trainees_company_stats_idx")
	return []planOp{
		// q of three characters or more: SQLite's FTS5 phrase, PostgreSQL's trigram indexes.
		search("q=anna",
			count(ftsCount, textCount),
			page(uses(sqFTS, sqRowid), uses(pgCompanyID))),
		search("q=nowak&sort=name",
			count(ftsCount, textCount),
			page(uses(sqFTS, sqRowid), uses("trainees_company_search_name_idx"))),
		search("q=smith.12&status=all",
			count(ftsCount, textCount),
			page(uses(sqFTS, sqRowid), uses("trainees_search_name_trgm_idx", "trainees_email_trgm_idx"))),
		search("q=%2B1+301+000", // phone digits
			count(ftsCount, uses("trainees_company_stats_idx|trainees_phone_trgm_idx")),
			page(uses(sqFTS, sqRowid), uses(pgCompanyID))),
		// q of one or two characters: SQLite's term dictionary, PostgreSQL's short grams.
		search("q=zz", // rare: no match, no page
			candidates(uses(sqFTS)), sample(),
			count(uses(sqRowid, sqFTS), uses("trainees_short_grams_idx"))),
		search("q=zo&sort=name", // common
			candidates(uses(sqFTS)), sample(),
			count(uses(sqRowid, sqFTS), uses().scanning(whyCommon, "trainee_search")),
			page(uses(sqRowid, sqFTS), uses("trainees_company_search_name_idx"))),
		search("q=%C5%82&sort=name", // ł, non-ASCII
			candidates(uses(sqFTS)), sample(),
			count(uses(sqRowid, sqFTS), uses().scanning(whyCommon, "trainee_search")),
			page(uses(sqRowid, sqFTS), uses("trainees_company_search_name_idx"))),
		// No q: the status, each sort's index walked in order.
		search("status=live",
			count(liveCount, liveCount),
			page(uses(sqCompanyID), uses(pgCompanyID))),
		search("status=active&sort=expirationDate,desc",
			count(liveCount, liveCount),
			page(uses("trainees_company_expiration_idx"), uses("trainees_company_expiration_desc_idx"))),
		search("status=expired&sort=expirationDate",
			count(liveCount, liveCount),
			page(uses("trainees_company_expiration_idx"), uses("trainees_company_expiration_idx"))),
		search("status=all&sort=lastTrained,desc",
			count(uses(sqCompanyID), uses(pgCompanyID)),
			page(uses("trainees_company_last_trained_idx"), uses("trainees_company_last_trained_desc_idx"))),
		search("sort=name",
			count(liveCount, liveCount),
			page(uses("trainees_company_search_name_idx"), uses("trainees_company_search_name_idx"))),
		search("sort=email",
			count(liveCount, liveCount),
			page(uses("trainees_company_email_idx"), uses("trainees_company_email_idx"))),
		search("sort=name&page=200", // a deep page by offset
			count(liveCount, liveCount),
			page(uses("trainees_company_search_name_idx"), uses("trainees_company_search_name_idx"))),
		search("sort=id&page=100&size=100", // past 10,000: one row past the page, then the count
			page(uses(sqCompanyID), uses(pgCompanyID)),
			count(liveCount, liveCount)),
		cursor("sort=name&page=150",
			count(liveCount, liveCount),
			page(uses("trainees_company_search_name_idx"), uses("trainees_company_search_name_idx"))),
		cursor("sort=id&page=150",
			count(liveCount, liveCount),
			page(uses(sqCompanyID), uses(pgCompanyID))),
		cursor("sort=lastTrained,desc&page=100",
			count(liveCount, liveCount),
			page(uses("trainees_company_last_trained_idx"), uses("trainees_company_last_trained_desc_idx"))),
		cursor("status=active&sort=expirationDate&page=50",
			count(liveCount, liveCount),
			page(uses("trainees_company_expiration_idx"), uses("trainees_company_expiration_idx"))),
		// A trainer's trainees (trainerId=, or a key limited to its trainer).
		search("trainerId="+trainer+"&sort=name",
			count(uses("trainees_trainer_idx"), uses("trainees_trainer_idx")),
			page(uses("trainees_trainer_idx"), uses("trainees_trainer_idx"))),
		search("q=anna&trainerId="+trainer,
			count(ftsCount, uses("trainees_trainer_idx")),
			page(uses(sqFTS, sqRowid), uses("trainees_trainer_idx"))),
		// The cockpit's filters.
		search("expiresWithin=30d&sort=expirationDate",
			count(uses("trainees_company_expiration_idx"), uses("trainees_company_expiration_desc_idx|trainees_company_expiration_idx")),
			page(uses("trainees_company_expiration_idx"), uses("trainees_company_expiration_idx"))),
		search("inactiveFor=14d&sort=lastTrained",
			count(liveCount, liveCount),
			page(uses("trainees_company_last_trained_idx"), uses("trainees_company_last_trained_idx"))),
		search("createdSince=7d",
			count(liveCount, liveCount),
			page(uses(sqCompanyID), uses(pgCompanyID))),
	}
}

// The rows a change of a trainee writes, with its event and the
// automations it fires (saveTrainee, recordEvent, fireEventAutomations).
var (
	// SQLite: the event (recordEventSQLite).
	rowEvent = planRow{what: "the event", match: `^INSERT INTO webhook_events `, sqlite: uses()}
	// SQLite: the deliveries of the event (scheduleDeliveriesSQLite).
	rowDeliveries = planRow{what: "the event's deliveries", match: `^INSERT INTO webhook_deliveries .* FROM webhooks AS w WHERE w\.company_id = \$4`,
		sqlite: uses("webhooks_company_idx")}
	// PostgreSQL: the feed lock, the event and its deliveries in one
	// statement (recordEventPostgres); webhooks is read by company.
	rowRecordEvent = planRow{what: "the event and its deliveries", match: `^WITH l AS \(SELECT pg_advisory_xact_lock`, postgres: uses()}
	rowAutomations = planRow{what: "the company's automations of the event's trigger (eventAutomationsQuery)",
		match:  `^SELECT au\.id, .* FROM automations AS au WHERE \(au\.company_id = \$1 AND au\.enabled AND au\.trigger_type = \$2\)`,
		sqlite: uses("automations_trigger_idx"), postgres: uses()}
	rowTrainer = planRow{what: "the trainer's check (checkTrainer)", match: `^SELECT tr\.active FROM trainers AS tr`,
		sqlite: uses(sqRowid), postgres: uses()}
	rowZone = planRow{what: "the company's time zone", match: `^SELECT c\.time_zone FROM companies AS c WHERE`,
		sqlite: uses(sqRowid), postgres: uses()}
	rowTraineeRead = planRow{what: "the trainee, locked (loadTrainee)", match: mTrainee,
		sqlite: uses(sqRowid).byID(), postgres: uses(pgByID).byID()}
	rowTraineeUpdate = planRow{what: "the trainee's row (writeUpdate)", match: `^UPDATE trainees AS t SET .* WHERE \(t\.id = \d+ AND t\.company_id = \d+\)`,
		sqlite: uses(sqRowid).byID(), postgres: uses(pgByID).byID()}
)

func changeOps(s *store.Store, seed *planSeed) []planOp {
	n := 0
	newTrainee := func(trainer *int64) api.NewTrainee {
		n++
		return api.NewTrainee{Name: "Plan Newcomer", Email: fmt.Sprintf("newcomer%d@plan.example.com", n),
			PhoneNumber: ptr(fmt.Sprintf("+447700900%03d", n)), PasswordHash: "$argon2id$plan", WeightUnit: api.UnitKG,
			CreatedByType: api.CreatedByAdmin, Enabled: true, TrainerID: trainer, ExpirationDate: ptr(seed.today.AddDays(90))}
	}
	inserts := []planRow{
		{what: "the user (insertHot)", match: `^INSERT INTO users \(`, sqlite: uses(), postgres: uses()},
		{what: "the trainee (insertHot)", match: `^INSERT INTO trainees \(`, sqlite: uses(), postgres: uses()},
		rowEvent, rowDeliveries, rowRecordEvent, rowAutomations,
	}
	return []planOp{
		{name: "create a trainee with a trainer", stmts: append([]planRow{rowTrainer}, inserts...), run: func() error {
			_, err := s.CreateTrainee(ctx, seed.big, newTrainee(&seed.trainers[1]))
			return err
		}},
		{name: "create a trainee without a trainer", stmts: append([]planRow{{what: "the first active trainer (firstTrainerQuery)",
			match: `^SELECT tr\.id FROM trainers AS tr`, sqlite: uses("sqlite_autoindex_trainers_2"), postgres: uses()}}, inserts...),
			run: func() error {
				_, err := s.CreateTrainee(ctx, seed.big, newTrainee(nil))
				return err
			}},
		{name: "update a trainee (its automation fires)", stmts: []planRow{
			rowTraineeRead, rowTrainer,
			{what: "the user's row", match: `^UPDATE users AS u SET .* WHERE \(u\.id = \d+\)`, sqlite: uses(sqRowid), postgres: uses("users_pkey")},
			rowTraineeUpdate,
			// The event (SQLite), and the automation.fired event it
			// fires (both).
			{what: "the events", match: `^INSERT INTO webhook_events `, sqlite: uses(), postgres: uses()},
			rowDeliveries, rowRecordEvent, rowAutomations, rowZone,
			{what: "the automation's run", match: `^INSERT INTO automation_runs AS r `, sqlite: uses(), postgres: uses()},
			{what: "the automation's delivery", match: `^INSERT INTO webhook_deliveries .* FROM webhooks AS w WHERE w\.automation_id = `,
				sqlite: uses("webhooks_automation_idx"), postgres: uses()},
			{what: "the run's delivery", match: `^UPDATE automation_runs AS r SET delivery_id = \d+ WHERE \(r\.id = `,
				sqlite: uses(sqRowid), postgres: uses("automation_runs_pkey")},
		}, run: func() error {
			_, err := s.UpdateTrainee(ctx, seed.big, seed.trainee, api.TraineePatch{Name: api.Val("Plan Renamed"),
				ExpirationDate: api.Val(seed.today.AddDays(200)), TrainerID: api.Val(seed.trainers[3])})
			return err
		}},
	}
}

// The event feed: a page of a company's events, and the poller's latest
// id.
func feedOps(s *store.Store, seed *planSeed) []planOp {
	events := func(company int64, q api.EventQuery) func() error {
		return func() error { _, err := s.Events(ctx, company, q); return err }
	}
	const mFeed = `^SELECT e\.id, e\.public_id, .* FROM webhook_events AS e LEFT JOIN api_keys AS k`
	// The big company's events are a quarter of all: both databases read
	// them by id from the cursor on (skipping the others'), or by the
	// feed's index; a small company's by the feed's index.
	bigFeed := []string{"webhook_events_feed_idx|INTEGER PRIMARY KEY (rowid", "webhook_events_feed_idx|webhook_events_pkey"}
	feed := planRow{what: "the page of events", match: mFeed, sqlite: uses(bigFeed[0]), postgres: uses(bigFeed[1])}
	latest := func(sqlite, postgres string) []planRow {
		return []planRow{{what: "the latest event's id (LatestEventID)", match: `^SELECT COALESCE\(MAX\(e\.id\), 0\) FROM webhook_events`,
			sqlite: uses(sqlite), postgres: uses(postgres)}}
	}
	return []planOp{
		{name: "feed from a cursor", warm: true, stmts: []planRow{feed},
			run: events(seed.big, api.EventQuery{AfterSeq: 2000, Limit: 100})},
		{name: "feed after an event id, newest first, of two types", warm: true, stmts: []planRow{
			{what: "the event id's sequence", match: `^SELECT e\.id FROM webhook_events AS e WHERE \(e\.company_id = \d+\) AND \(e\.public_id = `,
				sqlite: uses("sqlite_autoindex_webhook_events_1"), postgres: uses("webhook_events_public_id_key")},
			feed,
		}, run: events(seed.big, api.EventQuery{After: "evt_plan3000", Desc: true, Types: []string{api.EventTraineeCreated, api.EventTraineeUpdated}, Limit: 100})},
		{name: "feed of a key limited to its trainer", warm: true, stmts: []planRow{{what: "the page of the trainer's trainees' events", match: mFeed,
			sqlite: uses(bigFeed[0], "trainees_trainer_idx"), postgres: uses(bigFeed[1], "trainees_trainer_idx")}},
			run: events(seed.big, api.EventQuery{AfterSeq: 2000, Limit: 100, TrainerID: &seed.trainers[2]})},
		{name: "feed of a small company", warm: true, stmts: []planRow{{what: "the page of events", match: mFeed,
			sqlite: uses("webhook_events_feed_idx"), postgres: uses("webhook_events_feed_idx")}},
			run: events(seed.small, api.EventQuery{Limit: 100})},
		{name: "feed's latest event", warm: true, stmts: latest("webhook_events_feed_idx", bigFeed[1]),
			run: func() error { _, err := s.LatestEventID(ctx, seed.big); return err }},
		{name: "feed's latest event of a small company", warm: true, stmts: latest("webhook_events_feed_idx", "webhook_events_feed_idx"),
			run: func() error { _, err := s.LatestEventID(ctx, seed.small); return err }},
	}
}

// The webhook dispatcher's cycle, with the jobs package's defaults.
func dispatcherOps(s *store.Store) []planOp {
	var claimed []*store.ClaimedDelivery
	lim := store.ClaimLimits{PerEndpoint: jobs.DefaultEndpointConcurrency, PerCompany: jobs.DefaultCompanyConcurrency, Chain: jobs.DefaultChain}
	// The due deliveries are found by the partial index of the pending ones
	// (webhook_deliveries_due_idx); the leases of each endpoint by
	// webhook_deliveries_leased_idx.
	pick := uses("webhook_deliveries_due_idx", "webhook_deliveries_leased_idx").scanning(
		"the busy endpoints are counted over the partial index of the leased deliveries, a few by design", "webhook_deliveries_leased_idx")
	claimRows := []planRow{
		{what: "the pick (claimPickSQL)", match: `^WITH busy AS \(`, sqlite: pick},
		{what: "a chain's lease", match: `^UPDATE webhook_deliveries AS d SET locked_until = '[^']*', lease = .* WHERE \(d\.id IN \(`,
			sqlite: uses(sqRowid)},
		{what: "what to send", match: `^SELECT d\.id AS delivery_id, .* WHERE \(d\.id IN \(`, sqlite: uses(sqRowid)},
		// PostgreSQL: the pick, the leases and what to send in one
		// prepared statement (claimPostgres).
		{what: "the claim (claimPostgres)", match: `^WITH picked AS \(WITH busy AS \(`,
			postgres: uses("webhook_deliveries_due_idx", "webhook_deliveries_leased_idx", "webhook_deliveries_pkey")},
	}
	return []planOp{
		{name: "dispatcher's claim", stmts: claimRows, run: func() error {
			var err error
			claimed, err = s.ClaimDeliveries(ctx, jobs.DefaultWebhookConcurrency, lim, jobs.DefaultWebhookLease)
			if err == nil && len(claimed) < 2 {
				err = fmt.Errorf("claimed %d deliveries", len(claimed))
			}
			return err
		}},
		{name: "dispatcher's cycle: an attempt recorded, a delivery released, a claim", stmts: append([]planRow{
			{what: "the attempt's delivery (finishSQLite)", match: `^UPDATE webhook_deliveries AS d SET status = .* WHERE \(d\.id = \d+ AND d\.lease = `,
				sqlite: uses(sqRowid)},
			{what: "the attempt (finishSQLite)", match: `^INSERT INTO webhook_attempts `, sqlite: uses()},
			{what: "the released delivery (releaseIn)", match: `^UPDATE webhook_deliveries AS d SET locked_until = NULL, lease = NULL, .* WHERE \(d\.id = \d+ AND d\.lease = `,
				sqlite: uses(sqRowid)},
			{what: "the attempts and their deliveries (finishManyPostgres)", match: `^WITH f AS \( SELECT \* FROM unnest\(`,
				postgres: uses("webhook_deliveries_pkey")},
			{what: "the released deliveries (releaseManyPostgres)", match: `^UPDATE webhook_deliveries AS d SET locked_until = NULL, lease = NULL, .* FROM unnest\(`,
				postgres: uses("webhook_deliveries_pkey")},
		}, claimRows...), run: func() error {
			done := []*store.FinishedAttempt{{Delivery: claimed[0], Result: store.DeliveryAttempt{StatusCode: 200, Started: planNow, Latency: time.Millisecond}}}
			_, err := s.CycleDeliveries(ctx, done, claimed[1:2], jobs.DefaultRetrySchedule, jobs.DefaultWebhookConcurrency, lim, jobs.DefaultWebhookLease)
			return err
		}},
	}
}

// whyInactive is a known cost: with the batch's keyset (t.id > after,
// ORDER BY t.id LIMIT 500), SQLite prefers walking every company's
// trainees by id from after, filtering the INACTIVE window, to the two
// index ranges of the window (trainees_company_last_trained_idx and
// trainees_company_never_trained_idx), which it takes for a batch of 2.
const whyInactive = "known cost, not a choice: an INACTIVE batch on SQLite walks every company's trainees by id from its keyset"

// The automations evaluator, with the jobs package's batch.
func evaluatorOps(s *store.Store, seed *planSeed) []planOp {
	batch := jobs.DefaultEvaluationBatch
	automation := planRow{what: "the automation", match: `^SELECT au\.id, .* FROM automations AS au WHERE \(au\.company_id = \d+\) AND \(au\.id = \d+\)`,
		sqlite: uses(sqRowid), postgres: uses()}
	// The runs of a time automation: the trainees of its window from the
	// index of its date, each checked against its runs' unique
	// occurrence; on PostgreSQL a WEBHOOK's runs come back with their
	// trainees in one statement (insertRunsWithTrainees).
	runs := func(sqlite, postgres *planWant) planRow {
		return planRow{what: "the due runs (insertDueRuns)", match: `^INSERT INTO automation_runs \(company_id, automation_id, trainee_id, occurrence, fired_at, outcome\) SELECT`,
			sqlite: sqlite, postgres: postgres}
	}
	runsWithTrainees := func(postgres *planWant) planRow {
		return planRow{what: "the due runs with their trainees (insertRunsWithTrainees)", match: `^WITH fired AS \(INSERT INTO automation_runs`, postgres: postgres}
	}
	firedTrainees := func(postgres *planWant) planRow {
		return planRow{what: "the fired runs' trainees (loadFiredTrainees)", match: `^SELECT t\.id, .* FROM trainees AS t JOIN users AS u ON u\.id = t\.user_id WHERE \(t\.company_id = \d+\) AND \(t\.id IN \(`,
			sqlite: uses(sqRowid).byID(), postgres: postgres}
	}
	expiry := "trainees_company_expiration_idx|trainees_company_expiration_desc_idx"
	webhookRows := []planRow{
		{what: "the automation's endpoint", match: `^SELECT w\.id FROM webhooks AS w WHERE \(w\.automation_id = `, sqlite: uses("webhooks_automation_idx"), postgres: uses()},
		{what: "the automation.fired events", match: `^INSERT INTO webhook_events `, sqlite: uses(), postgres: uses()},
		{what: "their deliveries", match: `^INSERT INTO webhook_deliveries \(`, sqlite: uses(), postgres: uses()},
		// By rowid, or, for hundreds of runs in a small table, a scan of it.
		{what: "the runs' deliveries", match: `^UPDATE automation_runs AS r SET delivery_id = CASE`, sqlite: uses()},
	}
	return []planOp{
		{name: "evaluator's time automations", warm: true, stmts: []planRow{{what: "every company's enabled time automations (TimeAutomations)",
			match: `^SELECT au\.id, au\.company_id FROM automations AS au WHERE \(au\.enabled AND au\.trigger_type IN`, sqlite: uses(), postgres: uses()}},
			run: func() error { _, err := s.TimeAutomations(ctx); return err }},
		{name: "evaluator fires EXPIRATION_APPROACHING (WEBHOOK)", stmts: append([]planRow{automation, rowZone,
			runs(uses("trainees_company_expiration_idx", "sqlite_autoindex_automation_runs_1"), nil), firedTrainees(nil),
			runsWithTrainees(uses(expiry)),
		}, webhookRows...), run: func() error {
			n, _, err := s.EvaluateAutomation(ctx, seed.big, seed.approaching, planNow, batch, 0)
			if err == nil && n == 0 {
				err = errors.New("nothing fired")
			}
			return err
		}},
		{name: "evaluator fires INACTIVE (WEBHOOK)", stmts: append([]planRow{automation, rowZone,
			runs(uses("sqlite_autoindex_automation_runs_1").scanning(whyInactive, "trainees"), nil),
			firedTrainees(nil),
			runsWithTrainees(uses("trainees_company_last_trained_idx|trainees_company_last_trained_desc_idx", "trainees_company_never_trained_idx")),
		}, webhookRows...), run: func() error {
			n, _, err := s.EvaluateAutomation(ctx, seed.big, seed.inactive, planNow, batch, 0)
			if err == nil && n == 0 {
				err = errors.New("nothing fired")
			}
			return err
		}},
		{name: "evaluator's expiration companies", warm: true, stmts: []planRow{{what: "the companies with a trainee.expired endpoint (ExpirationCompanies)",
			match: `^SELECT DISTINCT w\.company_id FROM webhooks AS w`, sqlite: uses(), postgres: uses()}},
			run: func() error { _, err := s.ExpirationCompanies(ctx); return err }},
		{name: "evaluator records expirations", stmts: []planRow{rowZone,
			{what: "the expirations (RecordExpirations)", match: `^INSERT INTO trainee_expirations `,
				sqlite:   uses("trainees_company_expiration_idx", "sqlite_autoindex_trainee_expirations_1"),
				postgres: uses(expiry)},
			{what: "their trainees", match: `^SELECT t\.id, .* FROM trainees AS t JOIN users AS u ON u\.id = t\.user_id WHERE \(t\.company_id = \d+\) AND \(t\.id IN \(`,
				sqlite: uses(sqRowid).byID(), postgres: uses(pgByID).byID()},
			{what: "the trainee.expired events", match: `^INSERT INTO webhook_events `, sqlite: uses(), postgres: uses()},
			{what: "their deliveries (insertEvents)", match: `^INSERT INTO webhook_deliveries .* FROM webhooks AS w JOIN webhook_events AS e ON e\.id IN`,
				sqlite: uses("webhooks_company_idx", sqRowid), postgres: uses("webhook_events_pkey")},
		}, run: func() error {
			n, err := s.RecordExpirations(ctx, seed.big, planNow, batch)
			if err == nil && n == 0 {
				err = errors.New("nothing expired")
			}
			return err
		}},
		{name: "evaluator fires TRAINEE_EXPIRED (DISABLE_TRAINEE)", stmts: []planRow{automation, rowZone,
			runs(uses("trainees_company_expiration_idx", "sqlite_autoindex_automation_runs_1"), uses(expiry)),
			firedTrainees(uses(pgByID).byID()),
			// Each verdict disables its trainee as an update does.
			rowTraineeRead, rowTraineeUpdate, rowEvent, rowDeliveries, rowRecordEvent, rowAutomations,
		}, run: func() error {
			n, _, err := s.EvaluateAutomation(ctx, seed.big, seed.expired, planNow, batch, 0)
			if err == nil && n == 0 {
				err = errors.New("nothing fired")
			}
			return err
		}},
	}
}

// The dashboard's counts (GET /trainees/stats): one pass over the
// company's trainees by design, from the covering index of migration
// 000011; a trainer's, over the trainer's trainees.
func dashboardOps(s *store.Store, seed *planSeed) []planOp {
	stats := `^SELECT count\(\*\) FILTER \(WHERE .* FROM trainees AS t WHERE \(t\.company_id = \d+\)$`
	statsOfTrainer := `^SELECT count\(\*\) FILTER \(WHERE .* FROM trainees AS t WHERE \(t\.company_id = \d+\) AND \(t\.trainer_id = \d+\)$`
	return []planOp{
		{name: "dashboard's counts", warm: true, stmts: []planRow{{what: "the counts (TraineeStats)", match: stats,
			sqlite: uses("trainees_company_stats_idx"), postgres: uses("trainees_company_stats_idx")}},
			run: func() error {
				_, err := s.TraineeStats(ctx, seed.big, nil, seed.today, seed.loc)
				return err
			}},
		{name: "dashboard's counts of a trainer", warm: true, stmts: []planRow{{what: "the counts (TraineeStats)", match: statsOfTrainer,
			sqlite: uses("trainees_trainer_idx"), postgres: uses("trainees_trainer_idx")}},
			run: func() error {
				_, err := s.TraineeStats(ctx, seed.big, &seed.trainers[2], seed.today, seed.loc)
				return err
			}},
	}
}
