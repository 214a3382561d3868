// Package completions holds the shell completion scripts of traineectl and
// traineed, generated from their command trees: PROG.bash, _PROG (zsh),
// PROG.fish and PROG.ps1 (PowerShell). `go generate ./completions` rewrites
// them with `PROG completion SHELL` (what they are); a test fails when they
// are stale. The release archives carry them (.goreleaser.yaml).
package completions

//go:generate sh -c "go run ../cmd/traineectl completion bash > traineectl.bash"
//go:generate sh -c "go run ../cmd/traineectl completion zsh > _traineectl"
//go:generate sh -c "go run ../cmd/traineectl completion fish > traineectl.fish"
//go:generate sh -c "go run ../cmd/traineectl completion powershell > traineectl.ps1"
//go:generate sh -c "go run ../cmd/traineed completion bash > traineed.bash"
//go:generate sh -c "go run ../cmd/traineed completion zsh > _traineed"
//go:generate sh -c "go run ../cmd/traineed completion fish > traineed.fish"
//go:generate sh -c "go run ../cmd/traineed completion powershell > traineed.ps1"
