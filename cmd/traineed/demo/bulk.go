package demo

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
)

// demoStreamBulk is the random stream of the generated trainees of
// AddTrainees (see demoStreamPeople).
const demoStreamBulk = demoStreamMeals + 1

// bulkBatch is how many generated trainees go to the store at once: the
// memory of a load of any size.
const bulkBatch = 5000

// progressEvery is how often (in trainees) AddTrainees reports progress.
const progressEvery = 50_000

// AddTrainees adds n generated trainees to the company, for measuring at
// scale (traineed demo --trainees N): varied names (non-ASCII among
// them), unique e-mails and phone numbers (about 80% have one), dates of
// birth (65%), expiration dates in the past (20%), the future (35%) or
// none, a last workout in the last 90 days (60%), about 3% soft-deleted
// and 70% with one of the company's trainers. They are written in
// batches through store.AddTraineesBulk, without trainee.created events,
// and every one gets passwordHash: the demo password is hashed once for
// all of them. E-mails and phones carry the company id, so a second load
// into another company does not collide. It is deterministic for a
// given company, n and now. progress (nil: none) gets a line every
// 50,000 trainees. At the end the tables are analyzed (VACUUM ANALYZE on
// PostgreSQL), so that the first searches plan on real statistics.
func AddTrainees(ctx context.Context, s *store.Store, companyID int64, n int, passwordHash string, now time.Time, progress io.Writer) error {
	trainers, err := s.Trainers(ctx, companyID)
	if err != nil {
		return err
	}
	loc, err := time.LoadLocation(TimeZone)
	if err != nil {
		return err
	}
	g := &generator{
		rng:       rand.New(rand.NewPCG(demoSeed, demoStreamBulk)),
		companyID: companyID,
		today:     api.Today(now, loc),
	}
	for _, t := range trainers {
		g.trainers = append(g.trainers, t.ID)
	}
	began := time.Now()
	batch := make([]api.NewTrainee, 0, bulkBatch)
	for i := 0; i < n; {
		batch = batch[:0]
		for ; i < n && len(batch) < bulkBatch; i++ {
			batch = append(batch, g.trainee(i))
		}
		if err := s.AddTraineesBulk(ctx, companyID, batch, passwordHash); err != nil {
			return fmt.Errorf("add trainees %d to %d: %w", i-len(batch)+1, i, err)
		}
		if progress != nil && (i%progressEvery == 0 || i == n) {
			fmt.Fprintf(progress, "added %d of %d trainees (%s)\n", i, n, time.Since(began).Round(100*time.Millisecond))
		}
	}
	// Fresh statistics, or the first searches plan on empty ones.
	if err := s.AnalyzeTrainees(ctx); err != nil {
		return err
	}
	if progress != nil && n >= progressEvery {
		fmt.Fprintf(progress, "analyzed (%s)\n", time.Since(began).Round(100*time.Millisecond))
	}
	return nil
}

// generator draws the trainees of AddTrainees.
type generator struct {
	rng       *rand.Rand
	companyID int64
	today     api.Date
	trainers  []int64
}

var bulkDomains = []string{"example.com", "example.org", "example.net", "mail.example.com", "gym.example"}

// trainee is the i-th generated trainee.
func (g *generator) trainee(i int) api.NewTrainee {
	rng := g.rng
	var name string
	if rng.IntN(50) == 0 {
		name = demoFixedNames[rng.IntN(len(demoFixedNames))]
	} else {
		name = demoFirstNames[rng.IntN(len(demoFirstNames))] + " " + demoLastNames[rng.IntN(len(demoLastNames))]
	}
	t := api.NewTrainee{
		Name: name,
		// The index and company id keep it unique however often names repeat.
		Email:         fmt.Sprintf("%s.%d+c%d@%s", asciiLocal(name), i, g.companyID, bulkDomains[rng.IntN(len(bulkDomains))]),
		Enabled:       rng.IntN(100) >= 3,
		WeightUnit:    api.UnitKG,
		CreatedByType: api.CreatedByAdmin,
	}
	if rng.IntN(10) < 8 {
		// +1, an area code of the company id (300 to 499: never the 555
		// and 202 of the small demo's numbers), the index as the line: a
		// full NANP number (ten digits, which libphonenumber finds
		// possible), unique for 10,000,000 trainees a company.
		p := fmt.Sprintf("+1%03d%07d", 300+g.companyID%200, i)
		t.PhoneNumber = &p
	}
	if len(g.trainers) > 0 && rng.IntN(10) < 7 {
		t.TrainerID = &g.trainers[rng.IntN(len(g.trainers))]
	}
	if rng.IntN(100) < 65 {
		dob := api.Date{Year: 1950 + rng.IntN(58), Month: time.Month(1 + rng.IntN(12)), Day: 1 + rng.IntN(28)}
		t.DateOfBirth = &dob
	}
	switch e := rng.IntN(100); {
	case e < 20:
		exp := g.today.AddDays(-rng.IntN(700))
		t.ExpirationDate = &exp
	case e < 55:
		exp := g.today.AddDays(1 + rng.IntN(700))
		t.ExpirationDate = &exp
	}
	if rng.IntN(10) < 6 {
		lt := g.today.AddDays(-rng.IntN(90))
		t.LastTrained = &lt
	}
	if rng.IntN(10) < 3 {
		t.WeightUnit = api.UnitLB
	}
	switch c := rng.IntN(10); {
	case c < 2:
		t.CreatedByType = api.CreatedByTrainer
	case c < 3:
		t.CreatedByType = api.CreatedBySelf
	}
	return t
}
