package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// listFixture is company A with something in every list: automations (one
// firing on every trainee created, so it has runs and a dry run), a webhook
// whose deliveries have attempts or none yet, trainees and their events.
type listFixture struct {
	auto    *api.Automation // TRAINEE_CREATED, WEBHOOK: a run per trainee
	webhook int64
	lists   []listRoute
}

// listRoute is one paged list as the walk reads it.
type listRoute struct {
	method, first string // the first page, with limit=1 (or size=1)
	field         string // the rows' member of the body
	// key names a row: its id, or for a delivery attempt "delivery/attempt".
	key func(row map[string]any) string
}

func rowID(row map[string]any) string { return fmt.Sprint(row["id"]) }

func newListFixture(t *testing.T, e *env) *listFixture {
	t.Helper()
	ctx := context.Background()
	rc := storetest.NewReceiver(t, nil)
	f := &listFixture{}
	f.auto = e.createAutomation(e.keyA, `{"name": "CRM on create", "trigger": {"type": "TRAINEE_CREATED"},
		"actionType": "WEBHOOK", "action": {"url": "`+rc.URL+`"}}`)
	for i := range 3 {
		e.createAutomation(e.keyA, fmt.Sprintf(`{"name": "Idle %d", "trigger": {"type": "INACTIVE", "days": %d}, "actionType": "DISABLE_TRAINEE"}`, i, 30+i))
	}
	var wh api.WebhookEnvelope
	e.do("POST", api.PathWebhooks, e.keyA, map[string]any{"url": rc.URL, "events": []string{"trainee.created"}}).expect(t, 200).JSON(t, &wh)
	f.webhook = wh.Webhook.ID
	for i := range 3 { // more webhooks to page through, subscribed to nothing that happens here
		e.do("POST", api.PathWebhooks, e.keyA, map[string]any{"url": fmt.Sprintf("https://crm.example/%d", i), "events": []string{"trainee.restored"}}).expect(t, 200)
	}
	for i := range 5 {
		storetest.MustCreate(t, e.store, e.companyA, storetest.NewTrainee(fmt.Sprintf("Listed %c", 'E'-i), fmt.Sprintf("listed%d@a.example", i)))
	}
	// Two failed attempts of every delivery so far, then deliveries not
	// attempted yet: the deliveries list mixes (delivery, attempt) rows
	// and attempt-0 rows. No dispatcher runs, so nothing else changes them.
	for range 2 {
		cs, err := e.store.ClaimDeliveries(ctx, 100, store.ClaimLimits{}, time.Minute)
		must(t, err)
		if len(cs) == 0 {
			t.Fatal("no delivery to attempt")
		}
		for _, c := range cs {
			_, err := e.store.FinishDelivery(ctx, c, store.DeliveryAttempt{Started: time.Now(), StatusCode: 500, Body: "no"}, []time.Duration{0, 0, 0})
			must(t, err)
		}
	}
	for i := range 3 {
		storetest.MustCreate(t, e.store, e.companyA, storetest.NewTrainee(fmt.Sprintf("Later %c", 'C'-i), fmt.Sprintf("later%d@a.example", i)))
	}
	autoPath := "/public-api/automations/" + strconv.FormatInt(f.auto.ID, 10)
	f.lists = []listRoute{
		{"GET", api.PathAutomations + "?limit=1", "content", rowID},
		{"GET", api.PathWebhooks + "?limit=1", "webhooks", rowID},
		{"GET", api.PathAutomations + "?size=1", "content", rowID},
		{"GET", autoPath + "/runs?limit=1", "content", rowID},
		{"POST", autoPath + "/test?limit=1", "content", rowID},
		{"GET", webhookPath(f.webhook, "/deliveries?limit=1"), "deliveries", func(row map[string]any) string {
			return fmt.Sprintf("%v/%v", row["deliveryId"], row["attempt"])
		}},
		{"GET", api.PathEvents + "?limit=1", "events", rowID},
		{"GET", api.PathEvents + "?limit=1&order=desc&type=trainee.created", "events", rowID},
		{"GET", api.PathSearch + "?limit=1&sort=name", "content", rowID},
		{"GET", api.PathSearch + "?size=1&sort=email,desc&status=all", "content", rowID},
	}
	return f
}

// withLimit is a list's first page asked with another limit.
func withLimit(first string, limit int) string {
	u, _ := url.Parse(first)
	q := u.Query()
	q.Del("size")
	q.Set("limit", strconv.Itoa(limit))
	return u.Path + "?" + q.Encode()
}

var linkHeader = regexp.MustCompile(`^<([^>]+)>; rel="next"$`)

// walk reads a list from its first page to its last, following each
// page's Link header, and returns its rows' keys. Every page must agree
// with itself: a Link exactly when page.nextCursor is set (then hasMore),
// naming the same query with after = nextCursor; at most limit rows.
func walk(t *testing.T, e *env, key string, l listRoute, first string) []string {
	t.Helper()
	var keys []string
	target := first
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatalf("%s: no end", first)
		}
		r := e.do(l.method, target, key, nil).expect(t, 200)
		var body map[string]json.RawMessage
		r.JSON(t, &body)
		var rows []map[string]any
		must(t, json.Unmarshal(body[l.field], &rows))
		var page api.CursorPage
		must(t, json.Unmarshal(body["page"], &page))
		u, err := url.Parse(target)
		must(t, err)
		if n, _ := strconv.Atoi(u.Query().Get("limit") + u.Query().Get("size")); len(rows) > n {
			t.Fatalf("%s: %d rows for limit %d", target, len(rows), n)
		}
		for _, row := range rows {
			keys = append(keys, l.key(row))
		}
		link := r.Header.Get("Link")
		if page.NextCursor == nil {
			if link != "" || page.HasMore || len(r.Header.Values("Link")) != 0 {
				t.Fatalf("%s: the last page has Link %q, hasMore %v", target, link, page.HasMore)
			}
			return keys
		}
		m := linkHeader.FindStringSubmatch(link)
		if m == nil || !page.HasMore || len(rows) == 0 {
			t.Fatalf("%s: a page with nextCursor has Link %q, hasMore %v, %d rows", target, link, page.HasMore, len(rows))
		}
		next, err := url.Parse(m[1])
		must(t, err)
		want := u.Query()
		want.Del("page")
		want.Del("cursor")
		want.Set("after", *page.NextCursor)
		if next.IsAbs() || next.Path != u.Path || next.Query().Encode() != want.Encode() {
			t.Fatalf("%s: Link %s, want %s?%s", target, m[1], u.Path, want.Encode())
		}
		target = m[1]
	}
}

// TestListsWalkWhileInserting walks every list with limit=1 to its end
// while trainees (and so events, deliveries, runs, dry-run matches) and
// automations are created: each row present from the start comes exactly
// once, no row comes twice, and the rows come in the list's own order.
func TestListsWalkWhileInserting(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newListFixture(t, e)
		before := make([][]string, len(f.lists))
		for i, l := range f.lists {
			before[i] = walk(t, e, e.keyA, l, withLimit(l.first, 100))
			if len(before[i]) < 4 {
				t.Fatalf("%s: only %d rows to walk", l.first, len(before[i]))
			}
		}

		stop := make(chan struct{})
		errs := make(chan error, 1)
		var wg sync.WaitGroup
		wg.Go(func() {
			ctx := context.Background()
			for i := 0; i < 60; i++ {
				select {
				case <-stop:
					return
				default:
				}
				_, err := e.store.CreateTrainee(ctx, e.companyA, storetest.NewTrainee(fmt.Sprintf("Meanwhile %d", i), fmt.Sprintf("meanwhile%d@a.example", i)))
				if err == nil && i%10 == 0 {
					_, err = e.store.CreateAutomation(ctx, e.companyA, api.AutomationSpec{Name: fmt.Sprint("Meanwhile ", i), Enabled: true,
						TriggerType: api.TriggerTraineeDeleted, ActionType: api.ActionDisableTrainee}, api.GenerateWebhookSecret(), 0)
				}
				if err == nil && i%20 == 0 {
					_, err = e.store.CreateWebhook(ctx, e.companyA, fmt.Sprintf("https://crm.example/meanwhile/%d", i), []string{api.EventTraineeRestored}, api.GenerateWebhookSecret())
				}
				if err != nil {
					errs <- err
					return
				}
				time.Sleep(2 * time.Millisecond)
			}
		})
		walked := make([][]string, len(f.lists))
		for i, l := range f.lists {
			walked[i] = walk(t, e, e.keyA, l, l.first)
		}
		close(stop)
		wg.Wait()
		select {
		case err := <-errs:
			t.Fatal(err)
		default:
		}

		for i, l := range f.lists {
			after := walk(t, e, e.keyA, l, withLimit(l.first, 100))
			pos := map[string]int{}
			for j, k := range after {
				pos[k] = j
			}
			seen := map[string]bool{}
			last := -1
			for _, k := range walked[i] {
				p, ok := pos[k]
				switch {
				case seen[k]:
					t.Fatalf("%s: row %s twice in %v", l.first, k, walked[i])
				case !ok:
					t.Fatalf("%s: row %s is no row of the list", l.first, k)
				case p <= last:
					t.Fatalf("%s: row %s out of the list's order: walked %v, the list is %v", l.first, k, walked[i], after)
				}
				seen[k], last = true, p
			}
			for _, k := range before[i] {
				if !seen[k] {
					t.Fatalf("%s: row %s, there from the start, went missing: walked %v", l.first, k, walked[i])
				}
			}
			if len(after) <= len(before[i]) {
				t.Fatalf("%s: nothing was inserted meanwhile (%d rows before, %d after)", l.first, len(before[i]), len(after))
			}
		}
	})
}

// TestListCursorRefused: a cursor works only on the list that gave it; a
// cursor of another list, company, automation, webhook or filter, or a
// malformed one, is a 400 1012 on after, as are the parameters that cannot
// go together.
func TestListCursorRefused(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newListFixture(t, e)
		other := e.createAutomation(e.keyA, `{"name": "Other", "trigger": {"type": "TRAINEE_CREATED"}, "actionType": "DISABLE_TRAINEE"}`)
		var wh api.WebhookEnvelope
		e.do("POST", api.PathWebhooks, e.keyA, map[string]any{"url": "http://127.0.0.1:9/other"}).expect(t, 200).JSON(t, &wh)
		cursorOf := func(method, target string) string {
			t.Helper()
			var body struct {
				Page api.CursorPage `json:"page"`
			}
			e.do(method, target, e.keyA, nil).expect(t, 200).JSON(t, &body)
			if body.Page.NextCursor == nil {
				t.Fatalf("%s: no next page", target)
			}
			return *body.Page.NextCursor
		}
		autoPath := "/public-api/automations/" + strconv.FormatInt(f.auto.ID, 10)
		otherPath := "/public-api/automations/" + strconv.FormatInt(other.ID, 10)
		autos := cursorOf("GET", api.PathAutomations+"?limit=1")
		runs := cursorOf("GET", autoPath+"/runs?limit=1")
		dry := cursorOf("POST", autoPath+"/test?limit=1")
		deliveries := cursorOf("GET", webhookPath(f.webhook, "/deliveries?limit=1"))
		events := cursorOf("GET", api.PathEvents+"?limit=1")
		search := cursorOf("GET", api.PathSearch+"?limit=1&q=listed")

		// Each cursor works where it came from.
		for _, ok := range []struct{ method, target string }{
			{"GET", api.PathAutomations + "?after=" + autos}, {"GET", autoPath + "/runs?after=" + runs},
			{"POST", autoPath + "/test?after=" + dry}, {"GET", webhookPath(f.webhook, "/deliveries?after="+deliveries)},
			{"GET", api.PathEvents + "?after=" + events}, {"GET", api.PathSearch + "?q=listed&after=" + search},
			{"GET", api.PathSearch + "?q=listed&cursor=" + search}, {"GET", api.PathAutomations + "?after="},
		} {
			e.do(ok.method, ok.target, e.keyA, nil).expect(t, 200)
		}
		enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
		raw, err := base64.RawURLEncoding.DecodeString(runs)
		must(t, err)
		for _, c := range []struct {
			method, target, key, field string
		}{
			{"GET", autoPath + "/runs?after=" + autos, e.keyA, "after"},                           // another list
			{"GET", api.PathAutomations + "?after=" + runs, e.keyA, "after"},                      // another list
			{"GET", otherPath + "/runs?after=" + runs, e.keyA, "after"},                           // another automation
			{"POST", autoPath + "/test?after=" + runs, e.keyA, "after"},                           // runs are not the dry run
			{"GET", webhookPath(wh.Webhook.ID, "/deliveries?after="+deliveries), e.keyA, "after"}, // another webhook
			{"GET", api.PathAutomations + "?after=" + autos, e.keyB, "after"},                     // another company
			{"GET", api.PathEvents + "?after=" + events, e.keyB, "after"},                         // another company's feed
			{"GET", api.PathEvents + "?after=" + events + "&type=trainee.created", e.keyA, "after"},
			{"GET", api.PathEvents + "?after=" + events + "&order=desc", e.keyA, "after"},
			{"GET", api.PathEvents + "?after=" + autos, e.keyA, "after"},
			{"GET", api.PathSearch + "?q=other&after=" + search, e.keyA, "after"},
			{"GET", api.PathSearch + "?q=listed&after=" + autos, e.keyA, "after"},
			{"GET", api.PathSearch + "?q=listed&after=" + search + "&cursor=" + search, e.keyA, "after"},
			{"GET", api.PathSearch + "?q=listed&after=" + search + "&page=0", e.keyA, "after"},
			{"GET", api.PathAutomations + "?after=" + autos + "&page=1", e.keyA, "after"},
			{"GET", api.PathAutomations + "?after=garbage", e.keyA, "after"},
			{"GET", api.PathAutomations + "?after=" + autos[:len(autos)-2], e.keyA, "after"},
			{"GET", autoPath + "/runs?after=" + enc(strings.Replace(string(raw), `"k":[`, `"k":[-`, 1)), e.keyA, "after"},
			{"GET", autoPath + "/runs?after=" + enc(strings.Replace(string(raw), `"k":[`, `"k":[1,`, 1)), e.keyA, "after"},
			{"GET", autoPath + "/runs?after=" + enc(string(raw)+"{}"), e.keyA, "after"},
			{"GET", autoPath + "/runs?after=" + enc(strings.Replace(string(raw), `"o":`, `"x":1,"o":`, 1)), e.keyA, "after"},
			{"GET", api.PathAutomations + "?limit=0", e.keyA, "limit"},
			{"GET", api.PathAutomations + "?limit=101", e.keyA, "limit"},
			{"GET", api.PathAutomations + "?limit=5&size=5", e.keyA, "size"},
			{"GET", api.PathEvents + "?limit=501", e.keyA, "limit"},
			{"GET", api.PathEvents + "?order=newest", e.keyA, "order"},
			{"GET", api.PathEvents + "?order=desc&wait=1", e.keyA, "wait"},
		} {
			e.do(c.method, c.target, c.key, nil).expectError(t, api.CodeInvalidParameter, c.field)
		}
		if !strings.Contains(string(raw), `"k":[`) || !strings.Contains(string(raw), `"o":`) {
			t.Fatalf("the test's edits no longer apply to %s", raw)
		}
	})
}

// TestListPages: page= (offset pages) still works beside cursors and its
// answer's cursor reads on; the events feed's next and page agree; the
// Link answers HEAD too; newest first is the feed reversed.
func TestListPages(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newListFixture(t, e)
		all := walk(t, e, e.keyA, f.lists[0], api.PathAutomations+"?limit=100")
		var p1 api.AutomationPage
		r := e.do("GET", api.PathAutomations+"?page=1&size=1", e.keyA, nil).expect(t, 200)
		r.JSON(t, &p1)
		if len(p1.Content) != 1 || rowID(map[string]any{"id": p1.Content[0].ID}) != all[1] || p1.Page.Number != 1 ||
			p1.Page.TotalElements != int64(len(all)) || p1.Page.TotalPages != len(all) || !p1.Page.HasMore {
			t.Fatalf("page 1 of size 1: %+v of %v", p1, all)
		}
		if link := r.Header.Get("Link"); strings.Contains(link, "page=") || !strings.Contains(link, "size=1") {
			t.Fatalf("Link %q", link)
		}
		var p2 api.AutomationPage
		e.do("GET", api.PathAutomations+"?limit=2&after="+*p1.Page.NextCursor, e.keyA, nil).expect(t, 200).JSON(t, &p2)
		if len(p2.Content) != 2 || fmt.Sprint(p2.Content[0].ID) != all[2] || fmt.Sprint(p2.Content[1].ID) != all[3] || p2.Page.Number != 1 || p2.Page.Size != 2 {
			t.Fatalf("the page after page 1, by 2: %+v of %v", p2, all)
		}
		if head := e.do("HEAD", api.PathAutomations+"?limit=1", e.keyA, nil).expect(t, 200); !linkHeader.MatchString(head.Header.Get("Link")) {
			t.Fatalf("HEAD has no Link: %v", head.Header)
		}

		// The feed: next and page agree; desc is the feed reversed.
		asc := walk(t, e, e.keyA, listRoute{"GET", "", "events", rowID}, api.PathEvents+"?limit=3")
		desc := walk(t, e, e.keyA, listRoute{"GET", "", "events", rowID}, api.PathEvents+"?limit=3&order=desc")
		slices.Reverse(desc)
		if !slices.Equal(asc, desc) || len(asc) < 8 {
			t.Fatalf("the feed %v, newest first reversed %v", asc, desc)
		}
		var ev api.EventPage
		e.do("GET", api.PathEvents+"?limit=2&order=desc&after="+asc[len(asc)-1], e.keyA, nil).expect(t, 200).JSON(t, &ev)
		if len(ev.Events) != 2 || ev.Events[0].ID != asc[len(asc)-2] || ev.Next != ev.Events[1].ID || !ev.HasMore || !ev.Page.HasMore {
			t.Fatalf("newest first after the newest event: %+v", ev)
		}
		var end api.EventPage
		e.do("GET", api.PathEvents+"?after="+*ev.Page.NextCursor+"&order=desc&limit=500", e.keyA, nil).expect(t, 200).JSON(t, &end)
		if len(end.Events) != len(asc)-3 || end.HasMore || end.Page.NextCursor != nil || end.Next != asc[0] {
			t.Fatalf("the rest, newest first: %d events, next %s, page %+v", len(end.Events), end.Next, end.Page)
		}
		// The last event's page has no next page.
		var last api.EventPage
		e.do("GET", api.PathEvents+"?limit=1&after="+asc[len(asc)-2], e.keyA, nil).expect(t, 200).JSON(t, &last)
		if last.HasMore || last.Page.NextCursor != nil || len(last.Events) != 1 {
			t.Fatalf("the last event: %+v", last)
		}
	})
}
