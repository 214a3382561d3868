// Package config reads and writes traineectl's profile file,
// $XDG_CONFIG_HOME/traineectl/config.yaml (else ~/.config/traineectl/config.yaml):
//
//	current: prod
//	profiles:
//	  prod:
//	    base-url: https://trainees.example.com
//	    api-key: pk_...
//
// The file holds API keys, so it is written with permissions 0600.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"gopkg.in/yaml.v3"

	"github.com/traineed/traineed/cmd/traineectl/internal/atomicfile"
)

// Profile is one named server and key.
type Profile struct {
	BaseURL string `yaml:"base-url,omitempty"`
	APIKey  string `yaml:"api-key,omitempty"`
}

// File is the whole profile file.
type File struct {
	Current  string              `yaml:"current,omitempty"`
	Profiles map[string]*Profile `yaml:"profiles,omitempty"`
}

// Path returns where the file lives, from $XDG_CONFIG_HOME, else $HOME/.config.
func Path(getenv func(string) string) (string, error) {
	if dir := getenv("XDG_CONFIG_HOME"); dir != "" {
		return filepath.Join(dir, "traineectl", "config.yaml"), nil
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("cannot find the configuration directory: set XDG_CONFIG_HOME or HOME")
		}
	}
	return filepath.Join(home, ".config", "traineectl", "config.yaml"), nil
}

// Load reads the file at path; a missing file is an empty File.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &File{Profiles: map[string]*Profile{}}, nil
	}
	if err != nil {
		return nil, err
	}
	f := &File{}
	if err := yaml.Unmarshal(b, f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Profiles == nil {
		f.Profiles = map[string]*Profile{}
	}
	for name, p := range f.Profiles {
		if p == nil {
			f.Profiles[name] = &Profile{}
		}
	}
	return f, nil
}

// Save writes f to path with permissions 0600 (its directory 0700),
// replacing the old file in one step.
func (f *File) Save(path string) error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(f); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	b := buf.Bytes()
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, b, 0o600)
}

// Names returns the profile names, sorted.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.Profiles))
	for n := range f.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
