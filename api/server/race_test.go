//go:build race

package server_test

// raceEnabled: the race detector is on (allocation counts then vary:
// sync.Pool drops items at random under it).
const raceEnabled = true
