package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/traineed/traineed/api/server"
	"golang.org/x/term"
)

// shutdowner is a background service serve stops with the HTTP server.
type shutdowner interface {
	Shutdown(ctx context.Context) error
}

func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	if format == "" {
		format = "json"
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			format = "text"
		}
	}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	}
	return nil, usageError{fmt.Errorf("--log-format must be json or text, not %q", format)}
}

// serve serves on ln until ctx ends, drains for delay (or until a second
// SIGINT or SIGTERM), then shuts down gracefully, the background services
// too, within the same grace.
func serve(ctx context.Context, log *slog.Logger, ln net.Listener, h *server.Handler, delay time.Duration, background ...shutdowner) error {
	// Every signal lands here too; the one that cancelled ctx is the first.
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	var err error
	srv := server.NewHTTPServer(ln.Addr().String(), h)
	srv.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	srv.BaseContext = func(net.Listener) context.Context { return context.WithoutCancel(ctx) }
	hashes, low := h.Hashing()
	log.Info("listening", "addr", ln.Addr().String(), "hashConcurrency", hashes, "hashLowPriority", low)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		stopAll(context.Background(), log, background)
		return err
	case <-ctx.Done():
	}
	drain(log, h, delay, signals)
	log.Info("shutting down", "grace", shutdownGrace.String())
	h.EndWaits() // the feed's long polls answer now, not when their wait runs out
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	stopped := make(chan struct{})
	go func() { stopAll(sctx, log, background); close(stopped) }()
	err = srv.Shutdown(sctx)
	<-stopped
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// drain makes /readyz answer 503 and every response close its connection,
// and keeps serving for delay, or until a second signal arrives (the first
// one, which started the drain, may be waiting in signals).
func drain(log *slog.Logger, h *server.Handler, delay time.Duration, signals <-chan os.Signal) {
	h.Drain()
	log.Info("draining", "delay", delay.String())
	timer := time.NewTimer(delay)
	defer timer.Stop()
	seen := 0
	for {
		select {
		case <-timer.C:
			return
		case <-signals:
			if seen++; seen >= 2 {
				log.Info("second signal: ending the drain early")
				return
			}
		}
	}
}

// stopAll shuts the background services down concurrently.
func stopAll(ctx context.Context, log *slog.Logger, background []shutdowner) {
	var wg sync.WaitGroup
	for _, b := range background {
		wg.Go(func() {
			if err := b.Shutdown(ctx); err != nil {
				log.Warn("background service did not stop in time", "error", err)
			}
		})
	}
	wg.Wait()
}

// newServeHasher is the hasher of --hash-concurrency and
// --hash-low-priority.
func newServeHasher(o *serveOptions) *server.Hasher {
	n := o.hashConcurrency
	if !o.hashLowPriority {
		if n == 0 {
			n = server.DefaultPlainHashConcurrency()
		}
		return server.NewHasherPlain(server.DefaultPasswordParams, n)
	}
	if n == 0 {
		n = server.DefaultHashConcurrency()
	}
	// The helper is this very binary: /proc/self/exe stays it even when an
	// upgrade has replaced the file the server was started from.
	exe := "/proc/self/exe"
	if _, err := os.Stat(exe); err != nil {
		if exe, err = os.Executable(); err != nil {
			return server.NewHasherPlain(server.DefaultPasswordParams, n)
		}
	}
	return server.NewHasherHelper(server.DefaultPasswordParams, n, exe)
}
