// Package demo generates the demo data set of `traineed demo` and `serve
// --demo`: a company, its trainers, about 60 varied trainees and a year of
// their tracked data, the same for the same day. It only generates; the
// store writes what it makes, in one transaction (store.Loader).
package demo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
)

// Demo data set constants.
const (
	CompanyName = "Demo Fitness"
	TimeZone    = "Europe/London"
	// Password is every demo trainee's password.
	Password     = "demo-password"
	demoSeed     = 20260101
	demoTrainees = 60
	demoDeleted  = 5
)

// Each part of the demo data draws from its own random stream, so adding a
// part (tracked data) never changes the people of the parts before it.
const (
	demoStreamPeople = iota + 1
	demoStreamTracked
	demoStreamMeals // the older meals of each meal logger, one stream per trainee (xor its id)
)

// demoFixedNames start the list, so that the set always shows non-ASCII
// names; the rest are drawn from the pools below.
var demoFixedNames = []string{
	"Ada Park", "Zoë Martin", "Łukasz Nowak", "Siobhán O'Brien", "José García", "Søren Jensen",
}

var demoFirstNames = []string{
	"Oliver", "Amelia", "Noah", "Isla", "Grace", "Jack", "Harry", "Charlotte", "Leo", "Freya",
	"Mateo", "Lucía", "Giulia", "Marco", "Nikos", "Zeynep", "Kwame", "Ngozi", "Tomasz", "Agnieszka",
	"François", "Renée", "Jürgen", "Anaïs", "Chen", "Yuki", "Ravi", "Priya", "Aisha", "Omar",
	"Fatima", "Mohammed", "Björn", "Ingrid", "Olga", "Dmitri", "Mei", "Hiroshi", "Seán", "Emma",
	"Chloé", "Amélie", "Ana", "Luis", "Niamh", "Callum", "Ewa", "Kemal",
}

var demoLastNames = []string{
	"Smith", "Jones", "Williams", "Brown", "Taylor", "Davies", "Evans", "Wilson", "Thomas", "Roberts",
	"Kowalski", "Müller", "Schmidt", "MacLeod", "Nakamura", "Patel", "Khan", "Singh", "Okafor",
	"Mensah", "Rossi", "Dubois", "Andersson", "Novák", "Yılmaz", "Ferreira", "Costa", "Murphy",
	"Kelly", "Hughes", "Walsh", "Chen", "Wang", "Kim", "Lee", "Lefèvre", "Håkansson", "Ortiz",
}

var demoDomains = []string{"example.com", "example.org", "example.net", "mail.example.com"}

var demoTrainerNames = []string{"Maya Brooks", "Tomás Rivera", "Hannah Okoye"}

// demoData is what Load has made so far; later parts read it.
type demoData struct {
	l         *store.Loader
	now       time.Time
	today     api.Date // in the company's zone
	companyID int64
	trainers  []int64
	trainees  []*api.Trainee
	// suffix keeps e-mails and phones unique when the demo is loaded again
	// into a database that already has a demo company.
	again bool
}

// Load adds the demo company "Demo Fitness" (Europe/London), three
// trainers, about 60 varied trainees (some expired, some soft-deleted), a
// year of their tracked data and an API key, in one transaction, and
// returns the company id and the key. It is deterministic for a given now;
// dates are relative to now, so expired trainees stay expired. Every
// trainee gets passwordHash.
func Load(ctx context.Context, s *store.Store, passwordHash string, now time.Time) (companyID int64, key string, err error) {
	loc, err := time.LoadLocation(TimeZone)
	if err != nil {
		return 0, "", err
	}
	err = s.Load(ctx, func(ctx context.Context, l *store.Loader) error {
		again, err := l.HasCompanyNamed(ctx, CompanyName)
		if err != nil {
			return err
		}
		c, err := l.CreateCompany(ctx, CompanyName, TimeZone)
		if err != nil {
			return err
		}
		d := &demoData{l: l, now: now, today: api.Today(now, loc), companyID: c.ID, again: again}
		if err := d.people(ctx, passwordHash); err != nil {
			return err
		}
		// Tracked data (weights, measurements, nutrition, steps, workouts),
		// drawn from rand.NewPCG(demoSeed, demoStreamTracked).
		if err := d.tracked(ctx); err != nil {
			return err
		}
		key = api.GenerateKey()
		if _, err := l.CreateKey(ctx, c.ID, "demo", api.HashKey(key), api.KeyDisplayPrefix(key)); err != nil {
			return err
		}
		companyID = c.ID
		return nil
	})
	if err != nil {
		return 0, "", fmt.Errorf("load demo: %w", err)
	}
	return companyID, key, nil
}

// demoEmail is an e-mail for a name, unique within the load.
func (d *demoData) email(name, domain string, seen map[string]bool) string {
	local := asciiLocal(name)
	if d.again {
		local += fmt.Sprintf("+c%d", d.companyID)
	}
	e := local + "@" + domain
	for n := 2; seen[e]; n++ {
		e = fmt.Sprintf("%s%d@%s", local, n, domain)
	}
	seen[e] = true
	return e
}

func (d *demoData) people(ctx context.Context, passwordHash string) error {
	rng := rand.New(rand.NewPCG(demoSeed, demoStreamPeople))
	seen := map[string]bool{}
	for _, name := range demoTrainerNames {
		t, err := d.l.CreateTrainer(ctx, d.companyID, name, d.email(name, "demofitness.example", seen))
		if err != nil {
			return err
		}
		d.trainers = append(d.trainers, t.ID)
	}
	names := drawNames(rng)
	// Distinct phone numbers from the ranges kept for drama: UK 07700
	// 900000-900999 and US 202-555-0100..0199.
	draw := &peopleDraw{rng: rng, seen: seen, ukPhones: rng.Perm(1000), usPhones: rng.Perm(100), deleted: map[int]bool{}}
	for _, i := range rng.Perm(demoTrainees)[:demoDeleted] {
		draw.deleted[i] = true
	}
	for i, name := range names {
		nt, force := d.drawTrainee(draw, i, name, passwordHash)
		t, err := d.l.CreateTrainee(ctx, d.companyID, nt, force)
		if err != nil {
			return fmt.Errorf("trainee %q: %w", name, err)
		}
		d.trainees = append(d.trainees, t)
	}
	return nil
}

// drawNames is the fixed names, then distinct random ones up to
// demoTrainees.
func drawNames(rng *rand.Rand) []string {
	names := append([]string(nil), demoFixedNames...)
	taken := map[string]bool{}
	for _, n := range names {
		taken[n] = true
	}
	for len(names) < demoTrainees {
		n := demoFirstNames[rng.IntN(len(demoFirstNames))] + " " + demoLastNames[rng.IntN(len(demoLastNames))]
		if !taken[n] {
			taken[n] = true
			names = append(names, n)
		}
	}
	return names
}

// peopleDraw is the random stream of the people and what is drawn once
// for all of them.
type peopleDraw struct {
	rng                *rand.Rand
	seen               map[string]bool // e-mails used
	ukPhones, usPhones []int
	deleted            map[int]bool // which trainees are soft-deleted
}

// drawTrainee draws the i-th trainee, and whether it must change its
// password.
func (d *demoData) drawTrainee(p *peopleDraw, i int, name, passwordHash string) (api.NewTrainee, bool) {
	rng := p.rng
	nt := api.NewTrainee{
		Name:          name,
		Email:         d.email(name, demoDomains[rng.IntN(len(demoDomains))], p.seen),
		PasswordHash:  passwordHash,
		WeightUnit:    api.UnitKG,
		CreatedByType: api.CreatedByAdmin,
		Enabled:       !p.deleted[i],
		TrainerID:     &d.trainers[rng.IntN(len(d.trainers))],
	}
	var phone string
	switch n := rng.IntN(10); {
	case d.again && n < 8:
		phone = fmt.Sprintf("+1555%03d%04d", d.companyID%1000, i)
	case n < 6:
		phone = fmt.Sprintf("+447700%06d", 900000+p.ukPhones[i])
	case n < 8:
		phone = fmt.Sprintf("+1202555%04d", 100+p.usPhones[i%100])
	}
	if phone != "" {
		nt.PhoneNumber = &phone
	}
	if rng.IntN(100) < 65 {
		dob := api.Date{Year: 1955 + rng.IntN(52), Month: time.Month(1 + rng.IntN(12)), Day: 1 + rng.IntN(28)}
		nt.DateOfBirth = &dob
	}
	switch e := rng.IntN(100); {
	case e < 20: // expired, one of them today
		exp := d.today.AddDays(-rng.IntN(300))
		nt.ExpirationDate = &exp
	case e < 55:
		exp := d.today.AddDays(1 + rng.IntN(400))
		nt.ExpirationDate = &exp
	}
	if rng.IntN(10) < 3 {
		nt.WeightUnit = api.UnitLB
	}
	switch c := rng.IntN(10); {
	case c < 3:
		nt.CreatedByType = api.CreatedByTrainer
	case c < 5:
		nt.CreatedByType = api.CreatedBySelf
	}
	return nt, nt.CreatedByType != api.CreatedBySelf && rng.IntN(2) == 0
}

// asciiLocal makes the local part of an e-mail from a name: "Zoë
// O'Brien" becomes "zoe.obrien".
func asciiLocal(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('.')
		default:
			if a, ok := asciiFold[r]; ok {
				b.WriteString(a)
			}
		}
	}
	return b.String()
}

var asciiFold = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ä': "a", 'å': "a", 'ã': "a", 'ç': "c", 'è': "e", 'é': "e", 'ê': "e",
	'ë': "e", 'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ı': "i", 'ł': "l", 'ñ': "n", 'ò': "o", 'ó': "o",
	'ô': "o", 'ö': "o", 'ø': "o", 'õ': "o", 'ù': "u", 'ú': "u", 'û': "u", 'ü': "u", 'ý': "y", 'ß': "ss",
	'š': "s", 'ž': "z", 'č': "c", 'ř': "r", 'ě': "e", 'ğ': "g", 'ş': "s", 'æ': "ae", 'œ': "oe",
}
