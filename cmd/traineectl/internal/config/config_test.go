package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPath(t *testing.T) {
	env := map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/home/u"}
	if p, _ := Path(func(k string) string { return env[k] }); p != "/x/traineectl/config.yaml" {
		t.Errorf("XDG: %s", p)
	}
	delete(env, "XDG_CONFIG_HOME")
	if p, _ := Path(func(k string) string { return env[k] }); p != "/home/u/.config/traineectl/config.yaml" {
		t.Errorf("HOME: %s", p)
	}
}

func TestSaveLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traineectl", "config.yaml")
	f, err := Load(path)
	if err != nil || len(f.Profiles) != 0 || f.Current != "" {
		t.Fatalf("missing file: %+v, %v", f, err)
	}
	f.Current = "prod"
	f.Profiles["prod"] = &Profile{BaseURL: "https://t.example", APIKey: "pk_secret"}
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	// An older file with loose permissions is replaced by a 0600 one.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if st, _ := os.Stat(filepath.Dir(path)); st.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v, want 0700", st.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	want := "current: prod\nprofiles:\n  prod:\n    base-url: https://t.example\n    api-key: pk_secret\n"
	if string(b) != want {
		t.Errorf("file:\n%s\nwant:\n%s", b, want)
	}
	g, err := Load(path)
	if err != nil || g.Current != "prod" || *g.Profiles["prod"] != *f.Profiles["prod"] {
		t.Errorf("reloaded %+v, %v", g, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("left temporary files: %v", entries)
	}
	if err := os.WriteFile(path, []byte("profiles: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("bad YAML: %v", err)
	}
}
