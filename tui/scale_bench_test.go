package tui

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// scaleClient is a client of the server the scale benchmarks measure:
// TRAINEED_BENCH_TUI_URL and TRAINEED_BENCH_TUI_KEY, a running traineed
// over a large company (traineed demo --trainees 1000000 prints the key;
// see docs/performance.md). Without them the benchmark is skipped.
func scaleClient(b *testing.B) *client.Client {
	url, key := os.Getenv("TRAINEED_BENCH_TUI_URL"), os.Getenv("TRAINEED_BENCH_TUI_KEY")
	if url == "" || key == "" {
		b.Skip("set TRAINEED_BENCH_TUI_URL and TRAINEED_BENCH_TUI_KEY to a server with a large company")
	}
	return client.New(url, key)
}

// BenchmarkScaleStartToFirstPage is BenchmarkStartToFirstPage against
// the server of TRAINEED_BENCH_TUI_URL: from a new model to its first
// page of trainees drawn (Init, the search over loopback HTTP, the
// answer's Update, View).
func BenchmarkScaleStartToFirstPage(b *testing.B) {
	c := scaleClient(b)
	benchStartToFirstPage(b, c, Options{Today: func() api.Date { return api.DateOf(time.Now()) }, Debounce: -1})
}

// scaleQueries are typed letter by letter, one op a letter: names (some
// not ASCII), an e-mail part and phone digits.
var scaleQueries = []string{"oliver smith", "łukasz", "ngozi okafor", "zoë", "example.org", "7800", "kowalski", "lucía", "mohammed khan"}

// BenchmarkScaleKeystroke is one keystroke in the search box to the
// redrawn results, against the server of TRAINEED_BENCH_TUI_URL, without
// the debounce (which the TUI adds, 250 ms by default, only while keys
// come faster than that): the key's Update, the search request, the
// answer's Update and View. The queries of scaleQueries are typed in turn,
// one letter an op, the box emptied between them (not measured); p50, p95
// and max are reported in ms. Run it with -benchtime=Nx for N keystrokes.
func BenchmarkScaleKeystroke(b *testing.B) {
	c := scaleClient(b)
	d := newDriver(b, c, Options{Today: func() api.Date { return api.DateOf(time.Now()) }, Debounce: -1})
	d.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	d.settle()
	d.press("/")
	var took []time.Duration
	slowest := map[time.Duration]string{} // the query of each time, for the log
	q, pos := 0, 0
	runes := []rune(scaleQueries[0])
	for b.Loop() {
		if pos == len(runes) { // next query: empty the box, unmeasured
			b.StopTimer()
			for range runes {
				d.send(kp("backspace"))
			}
			d.settle()
			q, pos = (q+1)%len(scaleQueries), 0
			runes = []rune(scaleQueries[q])
			b.StartTimer()
		}
		r := runes[pos]
		pos++
		began := time.Now()
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
		d.settle()
		if v := d.m.View(); len(v.Content) == 0 {
			b.Fatal("empty frame")
		}
		took = append(took, time.Since(began))
		slowest[took[len(took)-1]] = string(runes[:pos])
		if want := strings.TrimSpace(string(runes[:pos])); d.m.list.Query != want {
			b.Fatalf("searched %q, typed %q", d.m.list.Query, want)
		}
	}
	slices.Sort(took)
	pct := func(p float64) float64 {
		return float64(took[min(len(took)-1, int(p*float64(len(took))))]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(float64(took[len(took)-1])/float64(time.Millisecond), "max-ms")
	b.Logf("%d keystrokes: p50 %.1f ms, p95 %.1f ms, max %.1f ms", len(took), pct(0.5), pct(0.95), pct(1))
	for _, d := range took[max(0, len(took)-5):] {
		b.Logf("slow: %q %.1f ms", slowest[d], float64(d)/float64(time.Millisecond))
	}
}
