//go:build !race

package store_test

// raceEnabled: the race detector is on (see skipUnderRace).
const raceEnabled = false
