// Package trainee is the trainee page: the profile and the tracked data
// (weight chart, measurements, nutrition, steps) in tabs, each read when
// first shown.
package trainee
