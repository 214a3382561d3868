package tui

import (
	"context"
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/internal/common"
)

// BenchmarkStartToFirstPage is the time from a new model to its first
// rendered page of trainees: Init, the search request to a real server over
// SQLite with the demo data (loopback HTTP), the answer's Update, and View.
func BenchmarkStartToFirstPage(b *testing.B) {
	s := newServer(b)
	c := s.direct()
	benchStartToFirstPage(b, c, Options{Today: func() api.Date { return testToday }, Debounce: -1})
}

// benchStartToFirstPage measures, per op, a new model of c and o to its
// first page of trainees drawn.
func benchStartToFirstPage(b *testing.B, c common.Client, o Options) {
	o.Start, o.liveOff = "list", true
	for b.Loop() {
		m := New(c, o)
		for _, msg := range collect(m.Init()) {
			m.Update(msg)
		}
		v := m.View()
		if len(m.list.Items) != DefaultPageSize || len(v.Content) == 0 {
			b.Fatalf("%d trainees on the first page", len(m.list.Items))
		}
	}
}

// pagesClient serves n generated trainees, page by page, from memory.
type pagesClient struct {
	common.Client
	all []*api.Trainee
}

func newPagesClient(n int) *pagesClient {
	c := &pagesClient{}
	for i := range n {
		phone := fmt.Sprintf("+4477009%05d", i)
		exp := testToday.AddDays(i%400 - 100)
		trainer := int64(i%3 + 1)
		c.all = append(c.all, &api.Trainee{
			ID: int64(i + 1), UserID: int64(i + 1001), Name: fmt.Sprintf("Trainee %04d Example", i),
			Email: fmt.Sprintf("trainee%04d@example.com", i), Username: fmt.Sprintf("trainee%04d@example.com", i),
			PhoneNumber: &phone, ExpirationDate: &exp, Enabled: i%17 != 0, CompanyID: 1, TrainerID: &trainer,
			CreatedByType: "ADMIN", WeightUnit: "KG", Authorities: api.TraineeAuthorities,
		})
	}
	return c
}

// Trainers are the three the generated trainees name.
func (c *pagesClient) Trainers(context.Context, client.TrainerParams, ...client.RequestOption) ([]api.TrainerSummary, error) {
	return []api.TrainerSummary{{ID: 1, Name: "Coach One"}, {ID: 2, Name: "Coach Two"}, {ID: 3, Name: "Coach Three"}}, nil
}

func (c *pagesClient) SearchTrainees(_ context.Context, p client.SearchParams, _ ...client.RequestOption) (*api.TraineePage, error) {
	from := min(p.Page*p.Size, len(c.all))
	to := min(from+p.Size, len(c.all))
	pages := (len(c.all) + p.Size - 1) / p.Size
	return &api.TraineePage{Content: c.all[from:to],
		Page: api.PageInfo{Size: p.Size, Number: p.Page, TotalElements: int64(len(c.all)), TotalPages: pages, TotalExact: true}}, nil
}

// BenchmarkCursorMove is the work of one keystroke in a list of 1,000
// trainees: the key press's Update and the frame's View (80x24), with the
// cursor in the middle of the list.
func BenchmarkCursorMove(b *testing.B) {
	for _, size := range [][2]int{{80, 24}, {200, 60}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			d := newDriver(b, newPagesClient(1000), Options{PageSize: 100})
			d.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			for len(d.m.list.Items) < 1000 {
				d.press("end")
			}
			d.m.list.Cursor = 500
			d.m.list.Follow()
			down, up := kp("j"), kp("k")
			i := 0
			for b.Loop() {
				k := down
				if i%2 == 1 {
					k = up
				}
				i++
				d.m.Update(k)
				if v := d.m.View(); len(v.Content) == 0 {
					b.Fatal("empty frame")
				}
			}
			if c := d.m.list.Cursor; c != 500 && c != 501 {
				b.Fatalf("cursor %d", c)
			}
		})
	}
}
