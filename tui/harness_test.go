package tui

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/cmd/traineed/demo"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
	"github.com/traineed/traineed/tui/internal/common"
)

// testNow is the clock of the server and of the TUI: Saturday 21-11-2026.
var testNow = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

var testToday = api.DateOf(testNow)

var cheapHasher = server.NewHasher(server.PasswordParams{MemoryKiB: 64, Time: 1, Threads: 1})

// testServer is the real handler over SQLite with the demo data set.
type testServer struct {
	URL string
	Key string
	rec *recorder
	st  *store.Store
}

// request is one request the TUI sent.
type request struct {
	Method, Path string
	Query        map[string]string
	Body         string
	// IfMatch and IdempotencyKey are the request's headers; Replayed
	// says the answer was a stored one (Idempotent-Replayed: true).
	IfMatch, IdempotencyKey string
	Replayed                bool
}

// recorder is an http.RoundTripper that records what goes through it.
type recorder struct {
	mu   sync.Mutex
	reqs []request
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	q := map[string]string{}
	for k, v := range req.URL.Query() {
		q[k] = v[0]
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	r.mu.Lock()
	r.reqs = append(r.reqs, request{req.Method, req.URL.Path, q, string(body),
		req.Header.Get("If-Match"), req.Header.Get(api.HeaderIdempotencyKey),
		err == nil && resp.Header.Get(api.HeaderIdempotentReplayed) == "true"})
	r.mu.Unlock()
	return resp, err
}

// requests returns what was sent since the last call.
func (r *recorder) take() []request {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.reqs
	r.reqs = nil
	return out
}

// The demo data set (a year of tracked data for 60 trainees) takes seconds
// to load, more under the race detector: it is loaded once into a template
// database, and each test serves its own copy of that file.
var (
	templateOnce sync.Once
	templateDir  string
	templatePath string
	templateKey  string
	templateErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if templateDir != "" {
		os.RemoveAll(templateDir)
	}
	os.Exit(code)
}

func loadTemplate() {
	ctx := context.Background()
	if templateDir, templateErr = os.MkdirTemp("", "tui-demo-"); templateErr != nil {
		return
	}
	templatePath = filepath.Join(templateDir, "demo.db")
	st, err := store.Open(ctx, "sqlite:"+templatePath)
	if err != nil {
		templateErr = err
		return
	}
	defer st.Close()
	hash, err := cheapHasher.Hash(ctx, demo.Password)
	if err != nil {
		templateErr = err
		return
	}
	_, templateKey, templateErr = demo.Load(ctx, st, hash, testNow)
}

// newServer serves a fresh copy of the demo database with the real handler.
func newServer(t testing.TB) *testServer {
	t.Helper()
	templateOnce.Do(loadTemplate)
	if templateErr != nil {
		t.Fatalf("demo data: %v", templateErr)
	}
	path := filepath.Join(t.TempDir(), "demo.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(templatePath + suffix)
		if os.IsNotExist(err) && suffix != "" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	st, err := store.Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := httptest.NewServer(server.NewHandler(st, server.WithHasher(cheapHasher), server.WithOutbound(storetest.LoopbackOutbound()), server.WithClock(func() time.Time { return testNow })))
	t.Cleanup(srv.Close)
	return &testServer{URL: srv.URL, Key: templateKey, rec: &recorder{}, st: st}
}

// client is a real client of s whose requests are recorded.
func (s *testServer) client(key string) *client.Client {
	return client.New(s.URL, key, client.WithRetryDelays(), client.WithHTTPClient(&http.Client{Transport: s.rec}))
}

// addKey makes a key of the demo company with the operator's command's
// store call, and returns it.
func (s *testServer) addKey(t testing.TB, name, scope string) string {
	t.Helper()
	ctx := context.Background()
	demo, err := s.direct().CurrentKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	key := api.GenerateKey()
	if _, err := s.st.CreateScopedKey(ctx, demo.CompanyID, name, scope, api.HashKey(key), api.KeyDisplayPrefix(key)); err != nil {
		t.Fatal(err)
	}
	return key
}

// driver runs a Model as Bubble Tea would, but synchronously: it runs the
// commands each message returns and feeds their messages back until
// nothing is left. Spinner ticks are dropped so the animation ends.
type driver struct {
	t       testing.TB
	m       *Model
	msgs    chan tea.Msg
	pending int
	quit    bool
}

func newDriver(t testing.TB, c common.Client, o Options) *driver {
	t.Helper()
	if o.Today == nil {
		o.Today = func() api.Date { return testToday }
	}
	if o.Debounce == 0 {
		o.Debounce = -1
	}
	if o.Start == "" {
		o.Start = "list" // the tests of the list start there; Start: "home" for the home page
	}
	if o.background == nil {
		o.liveOff = true // a long poll would never settle
	}
	d := &driver{t: t, m: New(c, o), msgs: make(chan tea.Msg, 64)}
	d.run(d.m.Init())
	d.settle()
	return d
}

func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	d.pending++
	go func() { d.msgs <- cmd() }()
}

// send delivers msg now; its commands run in the background until settle.
func (d *driver) send(msg tea.Msg) {
	_, cmd := d.m.Update(msg)
	d.run(cmd)
}

// settle waits for every command and delivers its message.
func (d *driver) settle() {
	d.t.Helper()
	deadline := time.After(20 * time.Second)
	for d.pending > 0 {
		select {
		case msg := <-d.msgs:
			d.pending--
			d.deliver(msg)
		case <-deadline:
			d.t.Fatalf("commands did not settle; screen:\n%s", d.screen())
		}
	}
}

func (d *driver) deliver(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil, spinner.TickMsg:
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
	case tea.QuitMsg:
		d.quit = true
	default:
		d.send(msg)
	}
}

// collect runs cmd now, and the commands of a batch, and returns their
// messages without delivering them (spinner ticks left out).
func collect(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case nil, spinner.TickMsg:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, collect(c)...)
		}
		return out
	default:
		return []tea.Msg{msg}
	}
}

// press sends keys (see key) and settles.
func (d *driver) press(keys ...string) {
	d.t.Helper()
	for _, k := range keys {
		d.send(kp(k))
		d.settle()
	}
}

// typeText types s one rune at a time, then settles.
func (d *driver) typeText(s string) {
	d.t.Helper()
	for _, r := range s {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	d.settle()
}

// screen is the current view without its styling.
func (d *driver) screen() string { return ansi.Strip(d.m.View().Content) }

func (d *driver) expect(t testing.TB, parts ...string) {
	t.Helper()
	s := d.screen()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Fatalf("screen lacks %q:\n%s", p, s)
		}
	}
}

func (d *driver) expectNot(t testing.TB, parts ...string) {
	t.Helper()
	s := d.screen()
	for _, p := range parts {
		if strings.Contains(s, p) {
			t.Fatalf("screen shows %q:\n%s", p, s)
		}
	}
}

// key builds a key press from its name as KeyPressMsg.String() writes it.
func kp(s string) tea.KeyPressMsg {
	named := map[string]rune{
		"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "up": tea.KeyUp, "down": tea.KeyDown,
		"left": tea.KeyLeft, "right": tea.KeyRight, "home": tea.KeyHome, "end": tea.KeyEnd,
		"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "backspace": tea.KeyBackspace, "space": tea.KeySpace,
		"delete": tea.KeyDelete, "f5": tea.KeyF5,
	}
	var mod tea.KeyMod
	for _, p := range []struct {
		prefix string
		mod    tea.KeyMod
	}{{"ctrl+", tea.ModCtrl}, {"shift+", tea.ModShift}} {
		if strings.HasPrefix(s, p.prefix) {
			mod |= p.mod
			s = strings.TrimPrefix(s, p.prefix)
		}
	}
	if r, ok := named[s]; ok {
		return tea.KeyPressMsg{Code: r, Mod: mod}
	}
	r := []rune(s)[0]
	if mod != 0 {
		return tea.KeyPressMsg{Code: r, Mod: mod}
	}
	return tea.KeyPressMsg{Code: r, Text: s}
}

// searchAll is the server's answer for p, every page.
func searchAll(t testing.TB, c *client.Client, p client.SearchParams) []*api.Trainee {
	t.Helper()
	all, err := client.Collect(c.ListTrainees(context.Background(), p))
	if err != nil {
		t.Fatal(err)
	}
	return all
}

func names(ts []*api.Trainee) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// head is the first n runes of s (what a narrow column shows).
func head(s string, n int) string {
	r := []rune(s)
	return string(r[:min(n, len(r))])
}
