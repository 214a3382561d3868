//go:build !linux

package server

import (
	"errors"
	"os"
	"os/exec"
)

// lowPrioritySupported: elsewhere the hashes run on their callers'
// goroutines, GOMAXPROCS-1 at once by default.
const lowPrioritySupported = false

func startNiced(*exec.Cmd) error { return errors.New("no low-priority helper on this system") }

func pollable(f *os.File) *os.File { return f }

func nameProcess(string) {}
