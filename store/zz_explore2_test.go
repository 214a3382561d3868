package store_test

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

func TestExploreAB(t *testing.T) {
	if os.Getenv("EXPLORE_AB") == "" {
		t.Skip()
	}
	s := storetest.SQLite(t)
	company, _ := bulkLoad(t, s, 100000)
	today := api.Date{Year: 2026, Month: 3, Day: 1}
	for _, q := range []api.Search{
		{Query: "anna", Status: api.StatusLive, Sort: api.SortID},
		{Query: "nowak", Status: api.StatusLive, Sort: api.SortName},
		{Query: "b4242", Status: api.StatusAll, Sort: api.SortID},
		{Query: "zz", Status: api.StatusLive, Sort: api.SortID},
		{Query: "an", Status: api.StatusLive, Sort: api.SortID},
		{Query: "7900 1234", Digits: "79001234", Status: api.StatusLive, Sort: api.SortID},
		{Query: "anna", Status: api.StatusActive, Sort: api.SortExpirationDate, Desc: true},
		{Query: "anna", Status: api.StatusLive, Sort: api.SortEmail},
		{Query: "anna", Status: api.StatusLive, Sort: api.SortLastTrained, Desc: true},
		{Query: "b4242", Status: api.StatusLive, Sort: api.SortName},
	} {
		q.Size, q.Today = 20, today
		var d [2][]time.Duration
		for range 21 {
			for i, off := range []bool{true, false} {
				store.SetFTSOff(off)
				start := time.Now()
				s.SearchTrainees(ctx, company, q)
				d[i] = append(d[i], time.Since(start))
			}
		}
		store.SetFTSOff(false)
		slices.Sort(d[0])
		slices.Sort(d[1])
		fmt.Printf("%-10q %-6s %-15s scan min %8s p50 %8s | fts min %8s p50 %8s\n", q.Query, q.Status, q.Sort, d[0][0].Round(time.Microsecond*10), d[0][10].Round(time.Microsecond*10), d[1][0].Round(time.Microsecond*10), d[1][10].Round(time.Microsecond*10))
	}
}
