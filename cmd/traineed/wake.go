package main

import (
	"log/slog"

	"github.com/traineed/traineed/store"
)

// wakeListenHelp is --wake-listen's help.
const wakeListenHelp = "on PostgreSQL, hear the other instances' changes (LISTEN/NOTIFY) and start their webhook deliveries " +
	"and answer the event feed's long polls at once; false leaves them to --webhook-poll-interval and the feed's 250ms poll " +
	"(for a pooler in transaction mode, where LISTEN does not work)"

// listenWake starts the store's cross-instance wake listener (PostgreSQL
// with --wake-listen; nothing on SQLite); stop closes its connection.
// The handler's OnEvent is registered before, so that the listener's
// first wake-up of everything reaches the feed too.
func (o *serveOptions) listenWake(s *store.Store, log *slog.Logger) (stop func(), err error) {
	if !o.wakeListen || s.Dialect() != store.DialectPostgres {
		return func() {}, nil
	}
	l, err := s.Listen(store.ListenConfig{Logger: log})
	if err != nil {
		return nil, err
	}
	return l.Close, nil
}
