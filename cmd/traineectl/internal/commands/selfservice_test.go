package commands_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// selfServiceServer is a real server over a fresh store with one company, a
// full key and a read key.
func selfServiceServer(t *testing.T, st *store.Store) (url, full, read string) {
	t.Helper()
	ctx := context.Background()
	co, err := st.CreateCompany(ctx, "Acme Gym", "UTC")
	must(t, err)
	storetest.MustTrainer(t, st, co.ID, "Coach", "coach@acme.example")
	full, read = api.GenerateKey(), api.GenerateKey()
	_, err = st.CreateKey(ctx, co.ID, "admin", api.HashKey(full), api.KeyDisplayPrefix(full))
	must(t, err)
	_, err = st.CreateScopedKey(ctx, co.ID, "dashboard", api.KeyScopeRead, api.HashKey(read), api.KeyDisplayPrefix(read))
	must(t, err)
	h := server.NewHandler(st, server.WithHasher(cheapHasher), server.WithOutbound(storetest.LoopbackOutbound()), server.WithFeedPoll(50*time.Millisecond))
	st.OnEvent(h.NotifyEvent)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL, full, read
}

// The webhooks commands, whoami and the read key's exit 7 against a real
// server and a real receiver.
func TestWebhooksCommands(t *testing.T) {
	st := storetest.SQLite(t)
	url, full, read := selfServiceServer(t, st)
	rc := storetest.NewReceiver(t, nil)
	h := newHarness(t, url, full)

	var added struct {
		api.Webhook
		Secret string `json:"secret"`
	}
	r := h.run("webhooks", "add", "--url", rc.URL, "--events", "trainee.created,trainee.deleted", "-o", "json").expect(t, 0)
	must(t, json.Unmarshal([]byte(r.out), &added))
	if !strings.HasPrefix(added.Secret, "whsec_") || added.ID == 0 || strings.Join(added.Events, ",") != "trainee.created,trainee.deleted" {
		t.Fatalf("add: %s", r)
	}
	wid := fmt.Sprint(added.ID)
	table := h.runWith(runOpts{tty: true}, "webhooks", "add", "--url", rc.URL+"/2").expect(t, 0)
	if !strings.Contains(table.out, "secret: whsec_") || !strings.Contains(table.err, "never shown again") {
		t.Fatalf("add on a terminal: %s", table)
	}
	for _, format := range []string{"table", "json", "yaml", "csv"} {
		out := h.run("webhooks", "list", "-o", format).expect(t, 0).out
		if !strings.Contains(out, "127.0.0.1") || !strings.Contains(out, "active") || strings.Contains(out, "whsec_") {
			t.Fatalf("list -o %s: %s", format, out)
		}
	}
	if out := h.run("webhooks", "get", wid, "-o", "json").expect(t, 0).out; !strings.HasPrefix(out, "{") || !strings.Contains(out, `"state": "active"`) {
		t.Fatalf("get: %s", out)
	}
	// One timestamp format: the minute in tables (UTC with --utc), RFC
	// 3339 in UTC in CSV.
	if out := h.run("webhooks", "list", "--utc").expect(t, 0).out; !regexp.MustCompile(`\d{4}-\d{2}-\d{2} \d{2}:\d{2}\s`).MatchString(out) || strings.Contains(out, "Z ") {
		t.Fatalf("list --utc: %s", out)
	}
	if out := h.run("webhooks", "list", "-o", "csv").expect(t, 0).out; !regexp.MustCompile(`,\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z,`).MatchString(out) {
		t.Fatalf("list -o csv: %s", out)
	}

	// test: the receiver gets a signed webhook.test now.
	var tr api.WebhookTestResult
	must(t, json.Unmarshal([]byte(h.run("webhooks", "test", wid, "-o", "json").expect(t, 0).out), &tr))
	got := rc.Wait(t, 1, 10*time.Second)[0]
	if !tr.OK || got.ID != tr.EventID || got.Verify(added.Secret) != nil {
		t.Fatalf("test %+v, received %s", tr, got.Body)
	}
	// rotate-secret: both secrets sign a test.
	var rot struct {
		Secret string `json:"secret"`
	}
	must(t, json.Unmarshal([]byte(h.run("webhooks", "rotate-secret", wid, "-o", "json").expect(t, 0).out), &rot))
	h.run("webhooks", "test", wid).expect(t, 0)
	second := rc.Wait(t, 2, 10*time.Second)[1]
	if rot.Secret == added.Secret || second.Verify(rot.Secret) != nil || second.Verify(added.Secret) != nil {
		t.Fatalf("after rotation: %q", second.Header.Get("webhook-signature"))
	}
	// update, deliveries, redeliver.
	if out := h.run("webhooks", "update", wid, "--disable", "-o", "json").expect(t, 0).out; !strings.Contains(out, `"state": "disabled"`) {
		t.Fatalf("update --disable: %s", out)
	}
	h.run("webhooks", "update", wid).expect(t, cmdutil.ExitUsage)
	h.run("webhooks", "update", wid, "--enable", "--disable").expect(t, cmdutil.ExitUsage)
	if out := h.run("webhooks", "enable", wid, "-o", "json").expect(t, 0).out; !strings.Contains(out, `"state": "active"`) {
		t.Fatalf("enable: %s", out)
	}
	// Disabled by the server (as after a 410 Gone): the reason shows in
	// the table and the CSV; enable clears it.
	if _, err := st.DisableEndpoint(context.Background(), added.ID, "", "the endpoint answered 410 Gone"); err != nil {
		t.Fatal(err)
	}
	if out := h.run("webhooks", "list").expect(t, 0).out; !strings.Contains(out, "REASON") || !strings.Contains(out, "410 Gone") {
		t.Fatalf("list after a 410: %s", out)
	}
	if out := h.run("webhooks", "get", wid, "-o", "csv").expect(t, 0).out; !strings.Contains(out, "disabledReason") || !strings.Contains(out, "the endpoint answered 410 Gone") {
		t.Fatalf("get -o csv after a 410: %s", out)
	}
	if out := h.run("webhooks", "enable", wid, "-o", "json").expect(t, 0).out; !strings.Contains(out, `"disabledReason": null`) {
		t.Fatalf("enable after a 410: %s", out)
	}
	if out := h.run("webhooks", "disable", wid, "-o", "json").expect(t, 0).out; !strings.Contains(out, `"state": "disabled"`) {
		t.Fatalf("disable: %s", out)
	}
	if out := h.run("webhooks", "deliveries", wid, "-o", "json").expect(t, 0).out; strings.TrimSpace(out) != "[]" {
		t.Fatalf("deliveries: %s", out)
	}
	h.run("webhooks", "redeliver", "evt_000000000000000000000000").expect(t, cmdutil.ExitNotFound)
	h.run("webhooks", "redeliver", "41").expect(t, cmdutil.ExitUsage)
	nf := h.run("webhooks", "get", "999999").expect(t, cmdutil.ExitNotFound)
	if !strings.Contains(nf.err, "webhook 999999 not found") {
		t.Fatalf("not found: %s", nf)
	}
	h.run("webhooks", "get", "abc").expect(t, cmdutil.ExitUsage)
	h.run("webhooks", "delete", wid).expect(t, cmdutil.ExitUsage) // no --yes, no terminal

	// Completion of webhook ids.
	comp := h.run("__complete", "webhooks", "get", "")
	if !strings.Contains(comp.out, wid+"\t"+rc.URL) {
		t.Fatalf("completion: %s", comp)
	}

	// whoami, and the read key: reads work, writes exit 7 with a hint.
	var who api.CurrentKey
	must(t, json.Unmarshal([]byte(h.run("whoami", "-o", "json").expect(t, 0).out), &who))
	if who.Scope != "full" || who.CompanyName != "Acme Gym" || who.Name != "admin" {
		t.Fatalf("whoami %+v", who)
	}
	hr := newHarness(t, url, read)
	if out := hr.run("whoami").expect(t, 0).out; !strings.Contains(out, "read") || !strings.Contains(out, "dashboard") {
		t.Fatalf("whoami with the read key: %s", out)
	}
	hr.run("webhooks", "list").expect(t, 0)
	for _, args := range [][]string{
		{"webhooks", "add", "--url", rc.URL},
		{"webhooks", "delete", wid, "--yes"},
		{"webhooks", "rotate-secret", wid},
		{"create", "--name", "Rita Reader", "--email", "rita@example.com", "--password", "long enough"},
		{"automations", "create", "--name", "x", "--trigger", "TRAINEE_CREATED", "--action", "DISABLE_TRAINEE"},
		{"automations", "disable", "1", "2"},
		{"delete", "1", "2", "--yes"},
	} {
		// One message for every write command: the server's 403, said
		// the same way, once (a read key fails every id alike).
		r := hr.run(args...).expect(t, cmdutil.ExitForbidden)
		want := "error: this API key is read-only (scope read): traineectl " + args[0]
		if strings.Count(r.err, want) != 1 || !strings.Contains(r.err, "needs a full key; nothing was changed") || strings.Contains(r.err, "request rejected") {
			t.Fatalf("%v with a read key: %s", args, r)
		}
	}
	jr := hr.run("webhooks", "add", "--url", rc.URL, "-o", "json").expect(t, cmdutil.ExitForbidden)
	if !strings.Contains(jr.err, `"errorCode":1014`) || !strings.Contains(jr.err, `"status":403`) || !strings.Contains(jr.err, "nothing was changed") {
		t.Fatalf("-o json error: %s", jr)
	}
	if n := len(h.run("webhooks", "list", "-o", "json").expect(t, 0).out); n == 0 || rc.Count() != 2 {
		t.Fatal("a read key's refused change reached the server")
	}

	h.run("webhooks", "delete", wid, "--yes").expect(t, 0)
	h.run("webhooks", "get", wid).expect(t, cmdutil.ExitNotFound)
}

var buildOnce struct {
	sync.Once
	bin string
	err error
	out []byte
}

// traineectlBinary builds traineectl once per test process.
func traineectlBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "traineectl-listen-")
		if err != nil {
			buildOnce.err = err
			return
		}
		buildOnce.bin = filepath.Join(dir, "traineectl")
		build := exec.Command("go", "build", "-o", buildOnce.bin, "github.com/traineed/traineed/cmd/traineectl")
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // as released, and as .ci/run's other builds
		buildOnce.out, buildOnce.err = build.CombinedOutput()
	})
	if buildOnce.err != nil {
		t.Fatalf("build traineectl: %v\n%s", buildOnce.err, buildOnce.out)
	}
	return buildOnce.bin
}

// listener is a running `traineectl events listen` process.
type listener struct {
	cmd    *exec.Cmd
	secret string
	lines  chan string // stdout lines
	stderr *strings.Builder
	mu     sync.Mutex
	// stderrDone closes when stderr reaches EOF: Wait may only be called
	// once every read of the pipes is over (os/exec), or the last lines,
	// the summary among them, may be lost.
	stderrDone chan struct{}
}

func startListener(t testing.TB, bin string, env []string, args ...string) *listener {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"events", "listen"}, args...)...)
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	stderr, err := cmd.StderrPipe()
	must(t, err)
	must(t, cmd.Start())
	l := &listener{cmd: cmd, lines: make(chan string, 1000), stderr: &strings.Builder{}, stderrDone: make(chan struct{})}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			l.lines <- sc.Text()
		}
		close(l.lines)
	}()
	ready := make(chan string, 1)
	go func() {
		defer close(l.stderrDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			l.mu.Lock()
			l.stderr.WriteString(sc.Text() + "\n")
			l.mu.Unlock()
			if m := regexp.MustCompile(`secret: (whsec_\S+)`).FindStringSubmatch(sc.Text()); m != nil {
				ready <- m[1]
			}
		}
	}()
	select {
	case l.secret = <-ready:
	case <-time.After(30 * time.Second):
		t.Fatalf("listen did not start: %s", l.stderr.String())
	}
	return l
}

// stop sends SIGINT and waits for a clean exit.
func (l *listener) stop(t testing.TB) string {
	t.Helper()
	must(t, l.cmd.Process.Signal(syscall.SIGINT))
	select {
	case <-l.stderrDone:
	case <-time.After(60 * time.Second):
		t.Fatal("listen did not stop after SIGINT")
	}
	if err := l.cmd.Wait(); err != nil {
		t.Fatalf("listen exited with %v: %s", err, l.stderr.String())
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stderr.String()
}

// `events listen --forward-to` against a real server and receiver: 200
// changes made while it runs, with a stop and a restart in the middle
// (changes go on meanwhile), reach the receiver in the feed's order, each
// once, signed with the secret printed at start, and are printed as one
// JSON line each.
func TestEventsListenForwards(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		url, full, _ := selfServiceServer(t, st)
		bin := traineectlBinary(t)
		rc := storetest.NewReceiver(t, nil)
		env := append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), cmdutil.EnvBaseURL+"="+url, cmdutil.EnvAPIKey+"="+full)
		c := client.New(url, full)
		ctx := context.Background()
		n := 0
		change := func(k int) {
			for range k {
				n++
				_, err := c.CreateTrainee(ctx, api.CreateRequest{Name: "Listen Trainee", Email: fmt.Sprintf("listen.%d@example.com", n), Password: "long enough"})
				must(t, err)
			}
		}
		change(3) // before the first start: skipped ("now")

		l := startListener(t, bin, env, "--forward-to", rc.URL, "-o", "json", "--wait", "2")
		change(100)
		rc.Wait(t, 100, 60*time.Second)
		var lines []string
		for len(lines) < 100 {
			lines = append(lines, <-l.lines)
		}
		summary := l.stop(t)
		if !strings.Contains(summary, "100 events received, 100 forwarded, 0 forwards failed") {
			t.Fatalf("summary: %s", summary)
		}
		secret := l.secret
		change(50) // while it is stopped
		l2 := startListener(t, bin, env, "--forward-to", rc.URL, "-o", "json", "--wait", "2")
		if l2.secret != secret {
			t.Fatal("the secret changed across a restart")
		}
		change(50)
		rc.Wait(t, 200, 60*time.Second)
		for len(lines) < 200 {
			lines = append(lines, <-l2.lines)
		}
		l2.stop(t)

		feed, err := c.Events(ctx, client.EventParams{Limit: 500})
		must(t, err)
		if len(feed.Events) != 203 {
			t.Fatalf("the feed holds %d events", len(feed.Events))
		}
		want := feed.Events[3:]
		got := rc.Received()
		if len(got) != 200 {
			t.Fatalf("the receiver got %d requests, want 200", len(got))
		}
		for i, ev := range want {
			if got[i].ID != ev.ID || string(got[i].Body) != string(ev.Payload) {
				t.Fatalf("forward %d is %s, the feed's is %s", i, got[i].ID, ev.ID)
			}
			if err := got[i].Verify(secret); err != nil {
				t.Fatalf("forward %d: %v", i, err)
			}
			var line struct {
				ID      string `json:"id"`
				Forward struct {
					OK         bool `json:"ok"`
					StatusCode int  `json:"statusCode"`
				} `json:"forward"`
			}
			must(t, json.Unmarshal([]byte(lines[i]), &line))
			if line.ID != ev.ID || !line.Forward.OK || line.Forward.StatusCode != 200 {
				t.Fatalf("line %d: %s", i, lines[i])
			}
		}
	})
}

// `events list` reads the feed with its cursor and filter; `events listen
// --since all --events` replays the feed's past, filtered, then follows it.
func TestEventsListAndReplay(t *testing.T) {
	st := storetest.SQLite(t)
	url, full, _ := selfServiceServer(t, st)
	h := newHarness(t, url, full)
	c := client.New(url, full)
	ctx := context.Background()
	var ids []int64
	for i := range 3 {
		tr, err := c.CreateTrainee(ctx, api.CreateRequest{Name: "Feed Trainee", Email: fmt.Sprintf("feed.%d@example.com", i), Password: "long enough"})
		must(t, err)
		ids = append(ids, tr.ID)
	}
	_, err := c.DeleteTrainee(ctx, ids[0])
	must(t, err)

	var all, newest []api.Event
	must(t, json.Unmarshal([]byte(h.run("events", "list", "--oldest-first", "-o", "json").expect(t, 0).out), &all))
	if len(all) != 4 || all[3].Type != "trainee.deleted" {
		t.Fatalf("events list --oldest-first: %+v", all)
	}
	must(t, json.Unmarshal([]byte(h.run("events", "list", "-o", "json").expect(t, 0).out), &newest))
	if len(newest) != 4 || newest[0].ID != all[3].ID || newest[3].ID != all[0].ID {
		t.Fatalf("events list, newest first: %+v", newest)
	}
	var page []api.Event
	must(t, json.Unmarshal([]byte(h.run("events", "list", "--oldest-first", "--after", all[1].ID, "--limit", "1", "-o", "json").expect(t, 0).out), &page))
	if len(page) != 1 || page[0].ID != all[2].ID {
		t.Fatalf("--oldest-first --after --limit: %+v", page)
	}
	must(t, json.Unmarshal([]byte(h.run("events", "list", "--after", all[2].ID, "--limit", "1", "-o", "json").expect(t, 0).out), &page))
	if len(page) != 1 || page[0].ID != all[1].ID {
		t.Fatalf("--after --limit, newest first: %+v", page)
	}
	must(t, json.Unmarshal([]byte(h.run("events", "list", "--type", "trainee.deleted", "-o", "json").expect(t, 0).out), &page))
	if len(page) != 1 || page[0].ID != all[3].ID {
		t.Fatalf("--type: %+v", page)
	}
	if csv := h.run("events", "list", "-o", "csv").expect(t, 0).out; !strings.HasPrefix(csv, "id,type,traineeId,createdAt,actorType,actorId,actorName,traineeName,changedFields\n") ||
		strings.Count(csv, "\n") != 5 || strings.Count(csv, ",key,") != 4 || !strings.Contains(csv, ",Feed Trainee,enabled\n") {
		t.Fatalf("csv: %q", csv)
	}
	// Who made each change: the key's name, in the table's BY column.
	if table := h.run("events", "list").expect(t, 0).out; !strings.Contains(table, "\tBY\t") && !strings.Contains(table, " BY ") {
		t.Fatalf("no BY column: %q", table)
	} else if all[0].Actor == nil || all[0].Actor.Type != api.ActorKey || strings.Count(table, all[0].Actor.Name) < 4 {
		t.Fatalf("the events' actor %+v is not in every row: %q", all[0].Actor, table)
	}
	// The trainee's name, and the fields an update changed (none listed
	// for a create), as the TUI's recent changes show them.
	table := h.run("events", "list").expect(t, 0).out
	if !strings.HasPrefix(table, "EVENT\tTYPE\tTRAINEE\tNAME\tBY\tCREATED\tFIELDS\n") || strings.Count(table, "\tFeed Trainee\t") != 4 ||
		strings.Contains(table, "enabled\n") || strings.Contains(table, "weightUnit") {
		t.Fatalf("events list's table: %q", table)
	}
	h.run("events", "list", "--after", "41").expect(t, cmdutil.ExitUsage)
	h.run("events", "list", "--type", "trainee.exploded").expect(t, cmdutil.ExitUsage)
	h.run("events", "list", "--after", "evt_000000000000000000000000").expect(t, cmdutil.ExitRejected)
	h.run("events", "listen", "--since", "yesterday").expect(t, cmdutil.ExitUsage)

	rc := storetest.NewReceiver(t, nil)
	env := append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), cmdutil.EnvBaseURL+"="+url, cmdutil.EnvAPIKey+"="+full)
	l := startListener(t, traineectlBinary(t), env, "--forward-to", rc.URL, "--since", "all", "--events", "trainee.deleted", "-o", "json", "--wait", "2")
	_, err = c.DeleteTrainee(ctx, ids[1])
	must(t, err)
	got := rc.Wait(t, 2, 30*time.Second)
	var feed api.EventPage
	must(t, json.Unmarshal([]byte(h.run("events", "list", "--oldest-first", "--type", "trainee.deleted", "-o", "json").expect(t, 0).out), &feed.Events))
	if len(feed.Events) != 2 || got[0].ID != feed.Events[0].ID || got[1].ID != feed.Events[1].ID {
		t.Fatalf("replayed %s, %s; the deletions are %+v", got[0].ID, got[1].ID, feed.Events)
	}
	for range 2 {
		if line := <-l.lines; !strings.Contains(line, `"type":"trainee.deleted"`) {
			t.Fatalf("line %s", line)
		}
	}
	if summary := l.stop(t); !strings.Contains(summary, "2 events received, 2 forwarded") {
		t.Fatalf("summary %s", summary)
	}
	if rc.Count() != 2 {
		t.Fatalf("the receiver got %d requests", rc.Count())
	}

	// -o csv: a header, then a row per event as it comes.
	rc2 := storetest.NewReceiver(t, nil)
	env2 := append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), cmdutil.EnvBaseURL+"="+url, cmdutil.EnvAPIKey+"="+full)
	lc := startListener(t, traineectlBinary(t), env2, "--forward-to", rc2.URL, "--since", "all", "-o", "csv", "--wait", "2")
	if h := <-lc.lines; h != "id,type,createdAt,forwardOk,forwardStatus,forwardLatencyMs,forwardError" {
		t.Fatalf("csv header %q", h)
	}
	for i := range 5 {
		row := strings.Split(<-lc.lines, ",")
		if len(row) != 7 || !strings.HasPrefix(row[0], "evt_") || row[3] != "true" || row[4] != "200" {
			t.Fatalf("csv row %d: %q", i, row)
		}
	}
	lc.stop(t)
}

// events list's table names the trainee of each event and, for an update,
// the fields it changed; -o csv has both too.
func TestEventsListNamesAndFields(t *testing.T) {
	st := storetest.SQLite(t)
	url, full, _ := selfServiceServer(t, st)
	h := newHarness(t, url, full)
	c := client.New(url, full)
	ctx := context.Background()
	tr, err := c.CreateTrainee(ctx, api.CreateRequest{Name: "Fields Trainee", Email: "fields@example.com", Password: "long enough"})
	must(t, err)
	_, err = c.UpdateTrainee(ctx, tr.ID, api.TraineePatch{Name: api.Val("Fields Renamed"), WeightUnit: api.Val(api.UnitLB)})
	must(t, err)
	table := h.run("events", "list", "--limit", "1").expect(t, 0).out
	if !strings.Contains(table, "\ttrainee.updated\t"+strconv.FormatInt(tr.ID, 10)+"\tFields Renamed\t") || !strings.HasSuffix(table, "\tname, weightUnit\n") {
		t.Fatalf("the update's row: %q", table)
	}
	csv := h.run("events", "list", "--limit", "1", "-o", "csv").expect(t, 0).out
	if !strings.HasSuffix(csv, ",Fields Renamed,name weightUnit\n") {
		t.Fatalf("the update's CSV: %q", csv)
	}
}
