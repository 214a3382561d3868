package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/traineed/traineed/api"
)

// idempotent serves a POST, or a PUT or DELETE of a trainee, that carries an Idempotency-Key: the route runs
// inside the store's Idempotent, so its changes and its answer commit
// together, and a repeat gets the stored answer (Idempotent-Replayed:
// true) without running again.
//
// A repeat that arrives while the first request is still running waits
// for it: on this instance on an in-memory lock per company and key, from
// another instance on the database row (at most 30 s on PostgreSQL, the
// busy timeout on SQLite), then answers 409 with errorCode 1017.
//
// The key is the API key's own (stored as "<API key id>:<key>"): another
// API key of the company sending the same Idempotency-Key runs its own
// request, and never gets, nor learns of, this one's answer (a key
// limited to its trainer's trainees would otherwise replay a colleague's
// answer past the checks of its own request). A rotated key keeps its id,
// so a retry with its new secret is replayed.
func (h *Handler) idempotent(w http.ResponseWriter, r *http.Request, p *api.Principal, values []string) error {
	if len(values) != 1 || !api.ValidIdempotencyKey(values[0]) {
		return api.Invalid(api.CodeInvalidParameter, api.HeaderIdempotencyKey,
			"Idempotency-Key must be one header of 1 to 255 printable ASCII characters")
	}
	if _, pattern := h.public.Handler(r); pattern == "" {
		return h.dispatch(h.public, w, r) // a 404 or 405: nothing to keep
	}
	key := strconv.FormatInt(p.KeyID, 10) + ":" + values[0]
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	fp := sha256.New()
	io.WriteString(fp, r.Method+" "+r.URL.RequestURI()+"\n")
	fp.Write(body)
	var sum [32]byte
	copy(sum[:], fp.Sum(nil))

	unlock := h.idemLocks.lock(strconv.FormatInt(p.CompanyID, 10) + "\x00" + key)
	defer unlock()
	var live *bufferedResponse
	ans, err := h.store.Idempotent(r.Context(), p.CompanyID, key, sum, func(ctx context.Context) *api.IdempotentAnswer {
		live = &bufferedResponse{header: http.Header{}}
		rr := r.WithContext(ctx)
		rr.Body = io.NopCloser(bytes.NewReader(body))
		if err := h.dispatch(h.public, live, rr); err != nil {
			h.writeError(live, rr, err)
		}
		if live.status == 0 {
			live.status = http.StatusOK
		}
		return &api.IdempotentAnswer{Status: live.status, ContentType: live.header.Get("Content-Type"),
			ETag: live.header.Get(api.HeaderETag), Body: live.body.Bytes(), NotKept: refusedErased(live)}
	})
	if err != nil {
		return err
	}
	if h.afterIdempotentCommit != nil {
		h.afterIdempotentCommit()
	}
	if ans.Replayed || live == nil {
		if ans.ContentType != "" {
			w.Header().Set("Content-Type", ans.ContentType)
		}
		if ans.ETag != "" {
			w.Header().Set(api.HeaderETag, ans.ETag)
		}
		w.Header().Set(api.HeaderIdempotentReplayed, "true")
	} else {
		for k, v := range live.header {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(ans.Status)
	_, _ = w.Write(ans.Body)
	return nil
}

// refusedErased reports a 409 1038 (api.ErasedError), which is not kept:
// the refusal was asked for by a header that the request compared does
// not hold, and nothing was done.
func refusedErased(b *bufferedResponse) bool {
	if b.status != http.StatusConflict {
		return false
	}
	var e struct {
		ErrorCode int `json:"errorCode"`
	}
	return json.Unmarshal(b.body.Bytes(), &e) == nil && e.ErrorCode == api.CodeErased
}

// bufferedResponse keeps a route's answer until its transaction commits.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header { return b.header }
func (b *bufferedResponse) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}
func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

// keyLocks is a mutex per string, held while a request with that
// idempotency key runs on this instance, so repeats wait in memory rather
// than on a database connection.
type keyLocks struct {
	mu sync.Mutex
	m  map[string]*keyLock
}

type keyLock struct {
	mu   sync.Mutex
	refs int
}

func (l *keyLocks) lock(k string) (unlock func()) {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*keyLock{}
	}
	e := l.m[k]
	if e == nil {
		e = &keyLock{}
		l.m[k] = e
	}
	e.refs++
	l.mu.Unlock()
	e.mu.Lock()
	return func() {
		e.mu.Unlock()
		l.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(l.m, k)
		}
		l.mu.Unlock()
	}
}
