package store_test

import (
	"slices"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// TestSearchPrefilter stresses SQLite's FTS5 prefilter of q (store/search.go
// qMatch): on both databases every q must give exactly what the model
// computes from the stored trainees, whatever the characters of q, and
// whatever its length (the prefilter takes one- and two-character q from
// the term dictionary and longer q as a trigram phrase).
func TestSearchPrefilter(t *testing.T) {
	skipUnderRace(t)
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := setupSearch(t, s)
		for _, sd := range []struct{ name, email, phone string }{
			{`Quote "The Rock" Johnson`, `rock@example.com`, ""},
			{`Star*Man NEAR Minus-One`, `star.man@example.com`, ""},
			{`Caret ^Top: Colon OR Not`, `caret@example.com`, "+48601200300"},
			{`Zoë Yılmaz`, `zoe.yilmaz@example.com.tr`, ""},
			{`İlker Łukasiewicz`, `ilker@example.pl`, ""},
			{`Al`, `al@x.io`, ""},
			{`Buzz`, `buzz@example.com`, ""},
			{`Paren (Grace) Hopper`, `grace@example.com`, ""},
			{`Apo'strophe Brace{s}`, `apo@example.com`, ""},
		} {
			nt := storetest.NewTrainee(sd.name, sd.email)
			if sd.phone != "" {
				nt.PhoneNumber = ptr(sd.phone)
			}
			f.trainees = append(f.trainees, storetest.MustCreate(t, s, f.company, nt))
		}
		queries := []string{
			// FTS5 syntax characters and operators.
			`"`, `""`, `"rock"`, `"the rock"`, `*`, `star*`, `r*m`, `-`, `minus-one`, `-one`, `OR`, `or not`,
			`anna OR zoë`, `NEAR`, `near(`, `NEAR(star man)`, `^`, `^top`, `:`, `top: colon`, `email: anna`,
			`search_name:anna`, `{email}`, `brace{s}`, `(`, `(grace)`, `)`, `'`, `apo'strophe`, `%`, `_`, `\`,
			`a"b`, `+`, `AND`, `not`, `*anna*`,
			// Non-ASCII.
			`Zoë`, `ZOË`, `zoë y`, `Łukasz`, `łuk`, `Ł`, `ł`, `Yılmaz`, `yilmaz`, `YILMAZ`, `ıl`, `ı`, `İ`, `İl`, `i̇l`,
			`ilker`, `é`, `émile`, `ë`,
			// E-mail fragments.
			`@`, `.`, `@example.c`, `.com`, `example.com.tr`, `o@e`, `m@`, `@x.io`, `x.io`, `io`, `.pl`,
			// Three, two and one characters, at the start, the middle and the end of a text.
			`ann`, `nna`, `anna`, `nn`, `an`, `zz`, `uzz`, `al`, `l`, `a`, `z`, `m`, `o`, `q`, `ith`, `th`, `h`,
			`al@`, `ck`, `zo`, `ol`,
			// Digits: the phone ends, and q with separators.
			`124`, `0124`, `7700 900`, `300`, `601 200 300`, `+48`, `48`,
		}
		// The fixture is small, so by default every q takes the FTS5 list;
		// the limits of 1 force the other ways (the plain scan for one or
		// two characters and for longer q with many candidates, the walk
		// in the page's order with the candidates as a probe). The probe
		// settings change nothing on SQLite (planSearch samples only a
		// PostgreSQL search with a short q); on PostgreSQL they force the
		// short-grams index (1 row) or the plain scan (the whole company).
		for _, c := range []struct {
			limits    [3]int
			probeRows int
		}{{[3]int{2000, 500, 2000}, 1}, {[3]int{1, 1, 1 << 30}, 1}, {[3]int{1, 1, 1}, 1}, {[3]int{1, 1, 1}, 1 << 30}} {
			limits := c.limits
			restoreProbe := store.SetWalkProbe(c.probeRows, 0.02)
			restore := store.SetFTSLimits(limits[0], limits[1], limits[2])
			for _, status := range []string{api.StatusLive, api.StatusAll} {
				for _, query := range queries {
					for _, sort := range []string{api.SortID, api.SortName} {
						q := api.Search{Query: query, Digits: api.PhoneDigits(query), Status: status, Sort: sort, Size: 7}
						want := f.expect(q)
						for page := 0; page == 0 || page*q.Size < len(want); page++ {
							q.Page = page
							got, total := f.search(t, q)
							wantPage := want[min(len(want), page*q.Size):min(len(want), (page+1)*q.Size)]
							if !slices.Equal(ids(got), ids(wantPage)) || total != int64(len(want)) {
								t.Errorf("limits %v q %q status %s sort %s page %d: got %q (total %d), want %q (total %d)",
									limits, query, status, sort, page, names(got), total, names(wantPage), len(want))
							}
						}
					}
				}
			}
			restore()
			restoreProbe()
		}
		// The model itself finds what the prefilter must not lose.
		for q, want := range map[string]string{`zz`: "Buzz", `l`: "Al", `"the rock"`: `Quote "The Rock" Johnson`, `ı`: "Zoë Yılmaz"} {
			if !slices.Contains(names(f.expect(api.Search{Query: q, Status: api.StatusLive, Sort: api.SortID})), want) {
				t.Errorf("model: q %q does not find %q", q, want)
			}
		}
	})
}

// TestSearchPrefilterChanges: the index follows renames, new e-mails and
// phones, and deleted trainee rows.
func TestSearchPrefilterChanges(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := setupSearch(t, s)
		find := func(q string) []string {
			t.Helper()
			got, _ := f.search(t, api.Search{Query: q, Digits: api.PhoneDigits(q), Status: api.StatusAll})
			return names(got)
		}
		nt := storetest.NewTrainee("Xavier Oldname", "xavier.old@example.com")
		nt.PhoneNumber = ptr("+33612345678")
		tr := storetest.MustCreate(t, s, f.company, nt)
		for _, q := range []string{"oldname", "xavier.old", "12345678", "ld"} {
			if got := find(q); !slices.Equal(got, []string{"Xavier Oldname"}) {
				t.Fatalf("q %q before the change: %q", q, got)
			}
		}
		_, err := s.UpdateTrainee(ctx, f.company, tr.ID, api.TraineePatch{
			Name: api.Val("Yvonne Newname"), Email: api.Val("yvonne.new@example.com"), PhoneNumber: api.Val("+33698765432"),
		})
		if err != nil {
			t.Fatal(err)
		}
		for q, want := range map[string][]string{
			"oldname": nil, "xavier": nil, "xavier.old": nil, "12345678": nil, "ld": nil,
			"newname": {"Yvonne Newname"}, "yvonne.new": {"Yvonne Newname"}, "98765432": {"Yvonne Newname"},
			"yv": {"Yvonne Newname"}, "NEWNAME": {"Yvonne Newname"},
		} {
			if got := find(q); !slices.Equal(got, want) {
				t.Errorf("q %q after the rename: %q, want %q", q, got, want)
			}
		}
		// A cleared phone is no longer found by its digits.
		if _, err := s.UpdateTrainee(ctx, f.company, tr.ID, api.TraineePatch{PhoneNumber: api.Null[string]()}); err != nil {
			t.Fatal(err)
		}
		if got := find("98765432"); len(got) != 0 {
			t.Errorf("cleared phone still found: %q", got)
		}

		// A deleted user row (its trainee first) leaves nothing behind.
		gone := storetest.MustCreate(t, s, f.company, storetest.NewTrainee("Quentin Vanished", "qv@example.com"))
		db := storetest.DB(t, s)
		var userID int64
		if err := db.NewRaw("SELECT user_id FROM trainees WHERE id = ?", gone.ID).Scan(ctx, &userID); err != nil {
			t.Fatal(err)
		}
		if _, err := db.NewRaw("DELETE FROM trainees WHERE id = ?", gone.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := db.NewRaw("DELETE FROM users WHERE id = ?", userID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if got := find("vanished"); len(got) != 0 {
			t.Errorf("deleted user found: %q", got)
		}
		if s.Dialect() == store.DialectSQLite {
			for match, want := range map[string]int{`"vanished"`: 0, `"qv@example"`: 0, `"newname"`: 1, `"oldname"`: 0} {
				if n := storetest.Count(t, s, "trainees_fts", "trainees_fts MATCH ?", match); n != want {
					t.Errorf("trainees_fts MATCH %s: %d rows, want %d", match, n, want)
				}
			}
			// The index holds one entry per trainee, no more.
			var trainees, indexed int
			if err := db.NewRaw("SELECT count(*) FROM trainees").Scan(ctx, &trainees); err != nil {
				t.Fatal(err)
			}
			if err := db.NewRaw(`SELECT count(DISTINCT doc) FROM trainees_fts_terms`).Scan(ctx, &indexed); err != nil {
				t.Fatal(err)
			}
			if trainees != indexed {
				t.Errorf("%d trainees, %d in trainees_fts", trainees, indexed)
			}
			if _, err := db.NewRaw("INSERT INTO trainees_fts (trainees_fts) VALUES ('integrity-check')").Exec(ctx); err != nil {
				t.Errorf("integrity-check: %v", err)
			}
		}
	})
}
