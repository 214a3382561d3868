// Package man holds the man pages of traineed and traineectl (man1/*.1),
// generated from their command trees by cobra's doc package (see
// cmd/internal/manpages). `go generate ./man` rewrites them; the tests
// TestManPages of cmd/traineed and cmd/traineectl fail when they are
// stale. The release archives carry them (.goreleaser.yaml).
package man

//go:generate go test ../cmd/traineed ../cmd/traineectl -count=1 -run ^TestManPages$ -args -update
