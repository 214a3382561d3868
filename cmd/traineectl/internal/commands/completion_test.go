package commands_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func completionStub(t *testing.T) *stubAPI {
	s := newStubAPI(t)
	s.mux.HandleFunc("GET /public-api/trainees/search", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		var list []string
		switch {
		case q.Get("q") == "ada":
			list = []string{traineeJSON(41, "Ada Park", "ada@example.com", true)}
		case q.Get("status") == "deleted":
			list = []string{traineeJSON(7, "Del Eted", "del@example.com", false)}
		case q.Get("q") == "" && q.Get("cursor") == "":
			list = []string{traineeJSON(4, "Dee", "d@example.com", true), traineeJSON(41, "Ada Park", "ada@example.com", true),
				traineeJSON(42, "Bo", "bo@example.com", true)}
		case q.Get("cursor") == "p1":
			list = []string{traineeJSON(410, "Last Page", "l@example.com", true)}
		}
		pages, next := 1, "null"
		if q.Get("q") == "" && q.Get("status") != "deleted" {
			pages = 2
			if q.Get("cursor") == "" {
				next = `"p1"` // as traineed pages: by the cursor of the page before
			}
		}
		fmt.Fprintf(w, `{"timestamp":1,"content":[%s],"page":{"size":100,"number":0,"totalElements":4,"totalPages":%d,"nextCursor":%s,"hasMore":%v}}`,
			strings.Join(list, ","), pages, next, next != "null")
	})
	// Trainees by id: 4242 is beyond the pages a completion reads.
	byID := map[string]string{
		"4":    traineeJSON(4, "Dee", "d@example.com", true),
		"41":   traineeJSON(41, "Ada Park", "ada@example.com", true),
		"7":    traineeJSON(7, "Del Eted", "del@example.com", false),
		"4242": traineeJSON(4242, "Far Away", "far@example.com", true),
	}
	s.mux.HandleFunc("GET /public-api/trainees/{id}", func(w http.ResponseWriter, r *http.Request) {
		t, ok := byID[r.PathValue("id")]
		if !ok {
			w.Header().Set("X-Error-Reason", "trainee-not-found")
			w.WriteHeader(500)
			return
		}
		fmt.Fprint(w, envelope(t))
	})
	return s
}

func TestDynamicCompletion(t *testing.T) {
	s := completionStub(t)
	h := newHarness(t, s.URL, stubKey)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "get", ""}, "4\tDee\n41\tAda Park\n42\tBo\n410\tLast Page\n:4\n"},
		{[]string{"__complete", "get", "41"}, "41\tAda Park\n410\tLast Page\n:4\n"},
		{[]string{"__complete", "get", "41", "4"}, "4\tDee\n42\tBo\n410\tLast Page\n:4\n"},
		{[]string{"__complete", "get", "4242"}, "4242\tFar Away\n:4\n"},
		{[]string{"__complete", "get", "424"}, ":4\n"},
		{[]string{"__complete", "restore", "7"}, "7\tDel Eted\n:4\n"},
		{[]string{"__complete", "delete", "7"}, ":4\n"},
		{[]string{"__complete", "steps", "41", ""}, ":4\n"},
		{[]string{"__complete", "restore", ""}, "7\tDel Eted\n:4\n"},
		{[]string{"__complete", "search", "--status", ""}, "live\tnot deleted (default)\nactive\tnot deleted and not expired\nexpired\tnot deleted, expiration date reached\ndeleted\tsoft-deleted\nall\tevery trainee\n:36\n"},
		{[]string{"__complete", "get", "41", "-o", ""}, "table\njson\nyaml\ncsv\n:36\n"},
		{[]string{"__complete", "update", "41", "--weight-unit", ""}, "KG\nLB\n:36\n"},
		{[]string{"__complete", "measurements", "41", "--type", "W"}, "CHEST\nWAIST\nHIPS\nNECK\nSHOULDERS\nLEFT_ARM\nRIGHT_ARM\nLEFT_THIGH\nRIGHT_THIGH\nLEFT_CALF\nRIGHT_CALF\nBODY_FAT\nWEIGHT\nCUSTOM\n:36\n"},
		{[]string{"__complete", "update", "41", "--expires", ""}, "today\tthe local day\nyesterday\tthe day before\nnone\tclear the date\n:36\n"},
		{[]string{"__complete", "ge"}, "get\tShow trainees by id\n:4\n"},
	} {
		if got := h.run(tc.args...).expect(t, 0).out; got != tc.want {
			t.Errorf("%v:\n got %q\nwant %q", tc.args, got, tc.want)
		}
	}
	sorts := h.run("__complete", "search", "--sort", "").out
	for _, v := range []string{"id\n", "name,desc\n", "expirationDate,asc\n", "lastTrained\n"} {
		if !strings.Contains(sorts, v) {
			t.Errorf("--sort completion lacks %q: %q", v, sorts)
		}
	}
	// Text that is not digits offers nothing (a shell would drop ids
	// offered for it) and sends nothing.
	before := len(s.requests())
	for _, w := range []string{"ada", "Ada Park", "4a"} {
		if got := h.run("__complete", "steps", w).expect(t, 0).out; got != ":4\n" {
			t.Errorf("steps %q: got %q", w, got)
		}
	}
	if n := len(s.requests()) - before; n != 0 {
		t.Errorf("%d requests for text completion", n)
	}
	// The search used the key and a single attempt.
	for _, r := range s.requests() {
		if r.Header.Get("X-API-Key") != stubKey {
			t.Errorf("completion without the key: %v", r)
		}
	}
}

func TestCompletionOffersNothingOnError(t *testing.T) {
	s := newStubAPI(t)
	s.handle("GET /public-api/trainees/search", 500, "")
	h := newHarness(t, s.URL, stubKey)
	r := h.run("__complete", "get", "").expect(t, 0)
	if r.out != ":4\n" {
		t.Errorf("stdout %q", r.out)
	}
	if n := len(s.requests()); n != 1 || len(h.sleeps) != 0 {
		t.Errorf("a completion retried: %d requests, slept %v", n, h.sleeps)
	}
}

func TestCompletionGivesUpInTime(t *testing.T) {
	s := newStubAPI(t)
	release := make(chan struct{})
	s.mux.HandleFunc("GET /public-api/trainees/search", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	h := newHarness(t, s.URL, stubKey)
	h.completionTimeout = 50 * time.Millisecond
	done := make(chan result, 1)
	go func() { done <- h.run("__complete", "delete", "") }()
	select {
	case r := <-done:
		if r.code != 0 || r.out != ":4\n" {
			t.Errorf("%s", r)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("completion did not give up when its deadline passed")
	}
}
