package server_test

import (
	"testing"

	"github.com/traineed/traineed/api"
)

// GET /public-api/trainers lists the caller's company's trainers, lowest id
// first, and never another company's.
func TestListTrainers(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		var a api.TrainerList
		e.do("GET", api.PathTrainers, e.keyA, nil).expect(t, 200).JSON(t, &a)
		want := []api.TrainerSummary{
			{ID: e.trainerA[0], Name: "Coach 1", Email: "coach1@a.example"},
			{ID: e.trainerA[1], Name: "Coach 2", Email: "coach2@a.example"},
		}
		if a.Timestamp != fixedNow.Unix() || len(a.Trainers) != 2 || a.Trainers[0] != want[0] || a.Trainers[1] != want[1] {
			t.Errorf("company A: %+v, want %+v", a, want)
		}
		var b api.TrainerList
		e.do("GET", api.PathTrainers, e.keyB, nil).expect(t, 200).JSON(t, &b)
		if len(b.Trainers) != 1 || b.Trainers[0].ID != e.trainerB || b.Trainers[0].Name != "Coach B" {
			t.Errorf("company B: %+v", b)
		}
		e.do("GET", api.PathTrainers, "", nil).expect(t, 401)
		e.do("POST", api.PathTrainers, e.keyA, nil).expect(t, 405)
	})
}
