package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
)

// shutdownGrace is how long in-flight requests may run after SIGTERM.
const shutdownGrace = 30 * time.Second

func newServeCmd(e *env) *cobra.Command {
	var addr, logFormat string
	var demo bool
	c := &cobra.Command{
		Use:   "serve [--addr HOST:PORT] [--demo]",
		Short: "Serve the API",
		Long: `Serves /public-api/, /healthz and /readyz. Logs (one JSON line per request) go
to stderr. SIGINT or SIGTERM stops accepting connections and lets requests in
flight finish, for up to 30 seconds.

With --demo, a database without any company first gets the demo data set and
the demo company's API key is printed on stdout; when the demo company is
already there, a fresh key for it is created and printed.`,
		Example: `  traineed serve --demo
  traineed serve --addr 0.0.0.0:8080 --db postgres://app@db.internal/traineed`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			log, err := newLogger(e, logFormat)
			if err != nil {
				return err
			}
			s, err := e.open()
			if err != nil {
				return err
			}
			defer s.Close()
			if demo {
				key, err := demoKey(e.ctx, s, api.NewHasher(api.DefaultPasswordParams))
				if err != nil {
					return err
				}
				fmt.Fprintln(e.out, key)
			}
			return serve(e.ctx, log, addr, api.NewHandler(s, api.WithLogger(log)))
		},
	}
	def := os.Getenv("TRAINEED_ADDR")
	if def == "" {
		def = "127.0.0.1:8080"
	}
	c.Flags().StringVar(&addr, "addr", def, "address to listen on (env TRAINEED_ADDR)")
	c.Flags().BoolVar(&demo, "demo", false, "load the demo data set into an empty database and print its API key")
	c.Flags().StringVar(&logFormat, "log-format", "json", "log format: json or text")
	return c
}

func newLogger(e *env, format string) (*slog.Logger, error) {
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(e.errOut, nil)), nil
	case "text":
		return slog.New(slog.NewTextHandler(e.errOut, nil)), nil
	}
	return nil, usageError{fmt.Errorf("--log-format must be json or text, not %q", format)}
}

// serve listens on addr until ctx ends, then shuts down gracefully.
func serve(ctx context.Context, log *slog.Logger, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := api.NewServer(addr, h)
	srv.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	srv.BaseContext = func(net.Listener) context.Context { return context.WithoutCancel(ctx) }
	log.Info("listening", "addr", ln.Addr().String())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", shutdownGrace.String())
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// demoKey loads the demo data set into an empty database and returns its
// key; when the demo company exists already it returns a fresh key for it.
func demoKey(ctx context.Context, s *store.Store, hasher *api.Hasher) (string, error) {
	has, err := s.HasCompany(ctx)
	if err != nil {
		return "", err
	}
	if !has {
		_, key, err := loadDemo(ctx, s, hasher)
		return key, err
	}
	cos, err := s.Companies(ctx)
	if err != nil {
		return "", err
	}
	for _, co := range cos {
		if co.Name == store.DemoCompanyName {
			key := api.GenerateKey()
			_, err := s.CreateKey(ctx, co.ID, "demo "+time.Now().UTC().Format(time.RFC3339), api.HashKey(key), api.KeyDisplayPrefix(key))
			return key, err
		}
	}
	return "", errors.New("--demo: the database already holds companies and none is the demo company; use another --db")
}

func loadDemo(ctx context.Context, s *store.Store, hasher *api.Hasher) (int64, string, error) {
	hash, err := hasher.Hash(ctx, store.DemoPassword)
	if err != nil {
		return 0, "", err
	}
	return store.LoadDemo(ctx, s, hash, time.Now())
}

func newDemoCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Load the demo data set and print its API key",
		Long: `Loads a demo company ("Demo Fitness", Europe/London) with trainers and about 60
varied trainees (some expired, some soft-deleted), each with up to a year of
tracked data (weights, measurements, meals, steps and workouts, dated back from
today), and prints its new API key, alone. Every demo trainee's password is "` + store.DemoPassword + `". The data set is
deterministic, so screenshots and tests are stable.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return e.withStore(func(s *store.Store) error {
				_, key, err := loadDemo(e.ctx, s, api.NewHasher(api.DefaultPasswordParams))
				if err != nil {
					return err
				}
				fmt.Fprintln(e.out, key)
				return nil
			})
		},
	}
}
