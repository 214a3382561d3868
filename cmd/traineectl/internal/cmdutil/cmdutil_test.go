package cmdutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/config"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

func TestParseDate(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 30, 0, 0, time.FixedZone("X", 2*3600))
	for in, want := range map[string]string{
		"21-11-2026": "21-11-2026",
		"2026-11-21": "21-11-2026",
		"29-02-2028": "29-02-2028",
		"today":      "01-03-2026",
		"Yesterday":  "28-02-2026",
	} {
		d, err := ParseDate(in, now)
		if err != nil || d.String() != want {
			t.Errorf("ParseDate(%q) = %v, %v; want %s", in, d, err, want)
		}
	}
	for _, in := range []string{"31-02-2026", "2026-02-31", "1-2-2026", "21/11/2026", "", "tomorrow", "2026-11-21T00:00:00Z"} {
		_, err := ParseDate(in, now)
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("ParseDate(%q) = %v, want a usage error", in, err)
		}
	}
}

func TestParseID(t *testing.T) {
	if id, err := ParseID("41"); err != nil || id != 41 {
		t.Errorf("got %d, %v", id, err)
	}
	for _, in := range []string{"0", "-1", "abc", "4.1", "99999999999999999999"} {
		if _, err := ParseID(in); ExitCode(err) != ExitUsage {
			t.Errorf("ParseID(%q): %v", in, err)
		}
	}
}

func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("x"), 1},
		{&client.NetworkError{Err: errors.New("refused")}, 1},
		{Usagef("bad"), 2},
		{fmt.Errorf("--dob: %w", Usagef("bad")), 2},
		{&client.AuthRefusedError{}, 3},
		{&client.TraineeNotFoundError{ID: 1}, 4},
		{&client.RejectedError{}, 5},
		{&client.ServerError{}, 6},
		{&ReportedError{Code: 4}, 4},
		{&StatusError{Code: 1, Err: &client.ServerError{}}, 1},
	} {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("ExitCode(%T) = %d, want %d", tc.err, got, tc.want)
		}
	}
	if got := CombinedExitCode([]error{&client.TraineeNotFoundError{}, &client.TraineeNotFoundError{}}); got != 4 {
		t.Errorf("same failures: %d", got)
	}
	if got := CombinedExitCode([]error{&client.TraineeNotFoundError{}, &client.ServerError{}}); got != 1 {
		t.Errorf("mixed failures: %d", got)
	}
}

func TestSettingsPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfg := &config.File{Current: "prod", Profiles: map[string]*config.Profile{
		"prod":  {BaseURL: "https://prod.example", APIKey: "pk_prod"},
		"stage": {BaseURL: "https://stage.example"},
	}}
	if err := cfg.Save(filepath.Join(dir, "traineectl", "config.yaml")); err != nil {
		t.Fatal(err)
	}
	newF := func(env map[string]string, g GlobalOptions) *Factory {
		ios, _, _ := iostreams.Test("")
		env["XDG_CONFIG_HOME"] = dir
		return &Factory{IOStreams: ios, Getenv: func(k string) string { return env[k] }, Now: time.Now, Global: g}
	}
	for _, tc := range []struct {
		name    string
		env     map[string]string
		g       GlobalOptions
		want    Settings
		wantErr int
	}{
		{"profile", map[string]string{}, GlobalOptions{}, Settings{BaseURL: "https://prod.example", APIKey: "pk_prod", Profile: "prod"}, 0},
		{"env over profile", map[string]string{EnvBaseURL: "http://env", EnvAPIKey: "pk_env"}, GlobalOptions{}, Settings{BaseURL: "http://env", APIKey: "pk_env", Profile: ""}, 0},
		{"flag over env", map[string]string{EnvBaseURL: "http://env", EnvAPIKey: "pk_env"},
			GlobalOptions{BaseURL: "http://flag", BaseURLSet: true}, Settings{BaseURL: "http://flag", APIKey: "pk_env", Profile: ""}, 0},
		{"env key, profile url", map[string]string{EnvAPIKey: "pk_env"}, GlobalOptions{}, Settings{BaseURL: "https://prod.example", APIKey: "pk_env", Profile: "prod"}, 0},
		{"--profile, default url", map[string]string{}, GlobalOptions{Profile: "stage", ProfileSet: true}, Settings{BaseURL: "https://stage.example", APIKey: "", Profile: "stage"}, 0},
		{"unknown --profile", map[string]string{}, GlobalOptions{Profile: "nope", ProfileSet: true}, Settings{}, ExitUsage},
		{"--profile over env", map[string]string{EnvBaseURL: "http://env", EnvAPIKey: "pk_env"}, GlobalOptions{Profile: "prod", ProfileSet: true},
			Settings{BaseURL: "https://prod.example", APIKey: "pk_prod", Profile: "prod"}, 0},
		{"--profile without a key, env key", map[string]string{EnvAPIKey: "pk_env"}, GlobalOptions{Profile: "stage", ProfileSet: true},
			Settings{BaseURL: "https://stage.example", APIKey: "pk_env", Profile: "stage"}, 0},
		{"flag over --profile", map[string]string{}, GlobalOptions{Profile: "prod", ProfileSet: true, APIKey: "pk_flag", APIKeySet: true},
			Settings{BaseURL: "https://prod.example", APIKey: "pk_flag", Profile: "prod"}, 0},
		{"empty flag is a value", map[string]string{EnvAPIKey: "pk_env"}, GlobalOptions{APIKey: "", APIKeySet: true}, Settings{BaseURL: "https://prod.example", APIKey: "pk_prod", Profile: "prod"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := newF(tc.env, tc.g).Settings()
			if tc.wantErr != 0 {
				if ExitCode(err) != tc.wantErr {
					t.Fatalf("err = %v", err)
				}
				return
			}
			got := Settings{BaseURL: s.BaseURL, APIKey: s.APIKey, Profile: s.Profile}
			if err != nil || got != tc.want {
				t.Errorf("got %+v, %v; want %+v", s, err, tc.want)
			}
		})
	}
	// No profile file at all: the default address.
	ios, _, _ := iostreams.Test("")
	f := &Factory{IOStreams: ios, Getenv: func(k string) string { return map[string]string{"HOME": t.TempDir()}[k] }}
	if s, err := f.Settings(); err != nil || s.BaseURL != DefaultBaseURL || s.APIKey != "" {
		t.Errorf("defaults: %+v, %v", s, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "traineectl", "config.yaml")); err != nil {
		t.Fatal(err)
	}
}
