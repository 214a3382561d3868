// Package completions holds traineectl's shell completion scripts, generated
// from the command tree: traineectl.bash, _traineectl (zsh), traineectl.fish
// and traineectl.ps1 (PowerShell). `go generate ./completions` rewrites them
// with `traineectl completion SHELL` (what they are); a test fails when they
// are stale.
package completions

//go:generate sh -c "go run ../cmd/traineectl completion bash > traineectl.bash"
//go:generate sh -c "go run ../cmd/traineectl completion zsh > _traineectl"
//go:generate sh -c "go run ../cmd/traineectl completion fish > traineectl.fish"
//go:generate sh -c "go run ../cmd/traineectl completion powershell > traineectl.ps1"
