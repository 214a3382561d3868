package server_test

import (
	"strconv"
	"testing"

	"github.com/traineed/traineed/api"
)

// GET /public-api/trainers lists the caller's company's trainers, lowest id
// first, and never another company's.
func TestListTrainers(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		var a api.TrainerList
		e.do("GET", api.PathTrainers, e.keyA, nil).expect(t, 200).JSON(t, &a)
		for _, tr := range a.Trainers {
			if tr.Trainees != nil {
				t.Fatalf("a count without counts=true: %+v", tr)
			}
		}
		e.do("GET", api.PathTrainers+"?counts=yes", e.keyA, nil).expectError(t, api.CodeInvalidParameter, "counts")
		e.do("GET", api.PathTrainers+"?counts=true", e.keyA, nil).expect(t, 200).JSON(t, &a)
		want := []api.TrainerSummary{
			{ID: e.trainerA[0], Name: "Coach 1", Email: "coach1@a.example", Active: true},
			{ID: e.trainerA[1], Name: "Coach 2", Email: "coach2@a.example", Active: true},
		}
		same := func(got, want api.TrainerSummary, count int) bool {
			return got.ID == want.ID && got.Name == want.Name && got.Email == want.Email && got.Active == want.Active &&
				got.Trainees != nil && *got.Trainees == count && !got.CreatedAt.IsZero()
		}
		if a.Timestamp != fixedNow.Unix() || len(a.Trainers) != 2 || !same(a.Trainers[0], want[0], 0) || !same(a.Trainers[1], want[1], 0) {
			t.Errorf("company A: %+v, want %+v", a, want)
		}
		// Counts are of live trainees, by trainer.
		body := newTraineeBody("Counted One")
		body["trainerId"] = e.trainerA[1]
		e.create(e.keyA, body)
		gone := e.create(e.keyA, newTraineeBody("Counted Gone"))
		e.do("DELETE", "/public-api/trainees/"+strconv.FormatInt(gone.ID, 10), e.keyA, nil).expect(t, 200)
		e.do("GET", api.PathTrainers+"?counts=true", e.keyA, nil).expect(t, 200).JSON(t, &a)
		if !same(a.Trainers[0], want[0], 0) || !same(a.Trainers[1], want[1], 1) {
			t.Errorf("counts after two creates and a delete: %+v", a.Trainers)
		}
		var b api.TrainerList
		e.do("GET", api.PathTrainers, e.keyB, nil).expect(t, 200).JSON(t, &b)
		if len(b.Trainers) != 1 || b.Trainers[0].ID != e.trainerB || b.Trainers[0].Name != "Coach B" {
			t.Errorf("company B: %+v", b)
		}
		e.do("GET", api.PathTrainers, "", nil).expect(t, 401)
		e.do("POST", api.PathTrainers, e.keyA, map[string]any{"name": "X", "email": "x@a.example"}).expect(t, 403)
	})
}
