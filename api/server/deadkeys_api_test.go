package server_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store/storetest"
)

// Every route of openapi.yaml with a key that no longer works: revoked,
// disabled, expired, and the previous secret of a rotated key once its
// overlap has run out. Each is an admin key, so a route's scope cannot
// answer first: every call is the interface's empty 401 and changes
// nothing, on the instance that changed the key and on a second instance
// over the same database (a second store, as a second process has).
func TestEveryRouteWithDeadKeys(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, url string) {
		e := newEnv(t, storetest.Open(t, url))
		second := httptest.NewServer(server.NewHandler(storetest.Open(t, url), server.WithHasher(cheapHasher),
			server.WithOutbound(storetest.LoopbackOutbound()), server.WithClock(func() time.Time { return fixedNow })))
		t.Cleanup(second.Close)
		f := newScopeFixture(t, e)
		ctx := context.Background()
		db := storetest.DB(t, e.store)
		past := time.Now().Add(-time.Minute).UTC()
		made := func(name string) *api.KeyEnvelope {
			return e.do("POST", api.PathKeys, f.admin, map[string]any{"name": name, "scope": "admin"}).expect(t, 200).key(t)
		}
		alive := func(secret string) {
			t.Helper()
			for _, base := range []string{e.srv.URL, second.URL} {
				doOn(t, base, "GET", api.PathCurrentKey, secret, nil, nil).expect(t, 200)
			}
		}

		revoked := made("revoked")
		alive(revoked.Secret)
		e.do("DELETE", keyPath(revoked.Key.ID, ""), f.admin, nil).expect(t, 200)

		disabled := made("disabled")
		alive(disabled.Secret)
		e.do("PATCH", keyPath(disabled.Key.ID, ""), f.admin, map[string]any{"enabled": false}).expect(t, 200)

		expired := made("expired")
		alive(expired.Secret)
		_, err := db.NewRaw("UPDATE api_keys SET expires_at = ? WHERE id = ?", past, expired.Key.ID).Exec(ctx)
		must(t, err)

		// Rotated with an hour's overlap: both secrets work on both
		// instances until the overlap's end is moved into the past.
		rotated := made("rotated")
		rot := e.do("POST", keyPath(rotated.Key.ID, "/rotate"), f.admin, map[string]any{"overlapSeconds": 3600}).expect(t, 200).key(t)
		alive(rotated.Secret)
		alive(rot.Secret)
		_, err = db.NewRaw("UPDATE api_key_secrets SET expires_at = ? WHERE key_id = ?", past, rotated.Key.ID).Exec(ctx)
		must(t, err)
		alive(rot.Secret)

		dead := []struct{ name, secret string }{
			{"revoked", revoked.Secret}, {"disabled", disabled.Secret}, {"expired", expired.Secret}, {"rotated out", rotated.Secret},
		}
		ops := docOperations(t)
		before := snapshot(t, e)
		for _, k := range dead {
			for _, base := range []string{second.URL, e.srv.URL} {
				for _, op := range ops {
					r := doOn(t, base, op.method, f.path(e, op), k.secret, scopeBody(e, op), nil)
					if r.Status != 401 || len(r.Body) != 0 {
						t.Errorf("%s key, %s %s on instance %s: %d %s, want the empty 401", k.name, op.method, op.path, base, r.Status, r.Body)
					}
				}
			}
		}
		if after := snapshot(t, e); after != before {
			t.Fatalf("a dead key's request changed something:\n%s\n%s", before, after)
		}
		alive(rot.Secret)
		alive(f.admin)
	})
}
