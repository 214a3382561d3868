package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/cmd/traineed/demo"
	"github.com/traineed/traineed/store"
)

// demoKey loads the demo data set into an empty database and returns its
// key; when the demo company exists already it returns a fresh key for it
// and disables the active demo keys of earlier starts (returned), so that
// starts do not pile up live keys. Keys are stored hashed: an earlier key
// cannot be shown again, only replaced.
func demoKey(ctx context.Context, s *store.Store, hasher *server.Hasher) (string, []*api.APIKey, error) {
	has, err := s.HasCompany(ctx)
	if err != nil {
		return "", nil, err
	}
	if !has {
		_, key, err := loadDemo(ctx, s, hasher)
		return key, nil, err
	}
	cos, err := s.Companies(ctx)
	if err != nil {
		return "", nil, err
	}
	for _, co := range cos {
		if co.Name != demo.CompanyName {
			continue
		}
		keys, err := s.Keys(ctx, co.ID)
		if err != nil {
			return "", nil, err
		}
		key := api.GenerateKey()
		if _, err := s.CreateScopedKey(ctx, co.ID, "demo "+time.Now().UTC().Format(time.RFC3339), api.KeyScopeAdmin, api.HashKey(key), api.KeyDisplayPrefix(key)); err != nil {
			return "", nil, err
		}
		var disabled []*api.APIKey
		for _, k := range keys {
			if k.State == api.KeyActive && (k.Name == "demo" || strings.HasPrefix(k.Name, "demo ")) {
				if err := s.SetKeyDisabled(ctx, k.ID, true); err != nil {
					return "", nil, err
				}
				disabled = append(disabled, k)
			}
		}
		return key, disabled, nil
	}
	return "", nil, errors.New("--demo: the database already holds companies and none is the demo company; use another --db")
}

func loadDemo(ctx context.Context, s *store.Store, hasher *server.Hasher) (int64, string, error) {
	hash, err := hasher.Hash(ctx, demo.Password)
	if err != nil {
		return 0, "", err
	}
	return demo.Load(ctx, s, hash, time.Now())
}

func newDemoCmd(e *env) *cobra.Command {
	var trainees int
	c := &cobra.Command{
		Use:   "demo [--trainees N]",
		Short: "Load the demo data set and print its API key",
		Long: `Loads a demo company ("Demo Fitness", Europe/London) with trainers and about 60
varied trainees (some expired, some soft-deleted), each with up to a year of
tracked data (weights, measurements, meals, steps and workouts, dated back from
today), and prints its new API key, alone. Every demo trainee's password is "` + demo.Password + `". The data set is
deterministic, so screenshots and tests are stable.

--trainees N adds N generated trainees to the demo company, for measuring at
scale: varied names, unique e-mails and phones, dates, some expired, some
soft-deleted, most with a trainer, no tracked data. They are written in
multi-row INSERTs of 1,000 (each batch its own transaction), without
trainee.created events, and share one hash of the demo password (hashed
once). Progress goes to stderr every 50,000. On PostgreSQL a million take a
few minutes.`,
		Example: `  traineed demo
  traineed demo --trainees 1000000 --db postgres://postgres@127.0.0.1/traineed`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if trainees < 0 {
				return errors.New("--trainees must be 0 or more")
			}
			return e.withStore(func(s *store.Store) error {
				hash, err := server.NewHasherPlain(server.DefaultPasswordParams, 1).Hash(e.ctx, demo.Password)
				if err != nil {
					return err
				}
				companyID, key, err := demo.Load(e.ctx, s, hash, time.Now())
				if err != nil {
					return err
				}
				if trainees > 0 {
					if err := demo.AddTrainees(e.ctx, s, companyID, trainees, hash, time.Now(), e.errOut); err != nil {
						return err
					}
				}
				fmt.Fprintln(e.out, key)
				return nil
			})
		},
	}
	c.Flags().IntVar(&trainees, "trainees", 0, "also add this many generated trainees (for measuring at scale)")
	return c
}
