// Package completions holds traineectl's shell completion scripts, generated
// from the command tree: traineectl.bash, _traineectl (zsh), traineectl.fish
// and traineectl.ps1 (PowerShell). `go generate ./...` rewrites them; a test
// fails when they are stale. Each script is also what
// `traineectl completion SHELL` prints.
package completions

//go:generate go run ../cmd/traineectl/internal/gencompletions .
