package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// logFile is the log's destination with --log-file: a file opened for
// appending that SIGHUP reopens by name, so that logrotate (or any tool
// that renames the file and signals) starts a fresh one without a restart
// and without losing a line.
type logFile struct {
	path string
	mu   sync.Mutex
	f    *os.File
}

func openLogFile(path string) (*logFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
	if err != nil {
		return nil, fmt.Errorf("--log-file: %w", err)
	}
	return &logFile{path: path, f: f}, nil
}

// Write writes one log record; records are never split between files.
func (l *logFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Write(p)
}

// Reopen opens the path again and switches to it; when it cannot, the log
// keeps going to the file it had.
func (l *logFile) Reopen() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
	if err != nil {
		return fmt.Errorf("reopening the log file: %w", err)
	}
	l.mu.Lock()
	old := l.f
	l.f = f
	l.mu.Unlock()
	return old.Close()
}

func (l *logFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Close()
}

// reloadHooks are what `traineed serve` does on SIGHUP, in the order they
// were added: reopen the log file, re-read the limits. Every hook runs
// even when an earlier one fails. Add a hook with add before serving
// starts (for example the rate limiter's re-read of its limits).
type reloadHooks struct {
	mu    sync.Mutex
	hooks []reloadHook
}

type reloadHook struct {
	name string
	fn   func() error
}

func (r *reloadHooks) add(name string, fn func() error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hooks = append(r.hooks, reloadHook{name, fn})
}

// run runs every hook and returns their errors, joined.
func (r *reloadHooks) run(log *slog.Logger) error {
	r.mu.Lock()
	hooks := append([]reloadHook(nil), r.hooks...)
	r.mu.Unlock()
	var errs []error
	var done []string
	for _, h := range hooks {
		if err := h.fn(); err != nil {
			log.Error("SIGHUP: reload failed", "what", h.name, "error", err)
			errs = append(errs, fmt.Errorf("%s: %w", h.name, err))
			continue
		}
		done = append(done, h.name)
	}
	log.Info("SIGHUP: reloaded", "done", done, "failed", len(errs))
	return errors.Join(errs...)
}

// catchSIGHUP takes SIGHUP from now on, so that a SIGHUP during startup
// does not end the process (SIGHUP's default); watchSIGHUP handles what
// arrived. Call the returned release when serving is over.
func catchSIGHUP() (ch chan os.Signal, release func()) {
	ch = make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	return ch, func() { signal.Stop(ch) }
}

// watchSIGHUP runs the hooks on every SIGHUP from ch until the returned
// stop is called, and counts each reload in the metrics.
func watchSIGHUP(ch <-chan os.Signal, log *slog.Logger, hooks *reloadHooks, m *serverMetrics) (stop func()) {
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			case <-ch:
				result := "ok"
				if hooks.run(log) != nil {
					result = "error"
				}
				m.reloads.WithLabelValues(result).Inc()
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}
