// Package table lays rows out in columns fitted to a width: each column
// (ColSpec, Col) shrinks to a minimum, grows to a maximum and drops in
// its turn when even the minimums do not fit. It imports layout.
package table
