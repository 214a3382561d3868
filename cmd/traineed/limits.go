package main

import (
	"fmt"
	"os"

	"gopkg.in/yaml.v3"
)

// limits is --limits-file: the rate limit of every API key, read at start
// (over --rate-limit and --rate-burst) and again on every SIGHUP, so an
// operator changes the limits of running instances without a restart:
//
//	rate-limit: 1200   # requests a minute per API key
//	rate-burst: 100
type limits struct {
	RateLimit int `yaml:"rate-limit"`
	RateBurst int `yaml:"rate-burst"`
}

// readLimits reads a limits file; both settings are required, the rate
// at least 1 (a file cannot turn limiting off: --rate-limit 0 does, at
// start) and the burst at least 1.
func readLimits(path string) (limits, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return limits{}, fmt.Errorf("--limits-file: %w", err)
	}
	var l limits
	if err := yaml.Unmarshal(b, &l); err != nil {
		return limits{}, fmt.Errorf("--limits-file %s: %w", path, err)
	}
	if l.RateLimit < 1 || l.RateBurst < 1 {
		return limits{}, fmt.Errorf("--limits-file %s: rate-limit and rate-burst must both be given and at least 1, not %d and %d", path, l.RateLimit, l.RateBurst)
	}
	return l, nil
}

// limitSetter is a rate limiter whose limit changes at run time (the
// in-memory one and the Redis one).
type limitSetter interface{ SetLimit(rate, burst int) }

// reloadLimits is the SIGHUP hook of --limits-file: it re-reads the file
// and applies it; a file that cannot be read leaves the limits as they are.
func reloadLimits(path string, l limitSetter) func() error {
	return func() error {
		v, err := readLimits(path)
		if err != nil {
			return err
		}
		l.SetLimit(v.RateLimit, v.RateBurst)
		return nil
	}
}
