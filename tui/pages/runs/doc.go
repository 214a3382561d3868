// Package runs is an automation's runs page (enter on an automation):
// its most recent runs, newest first, with the trainee each concerned.
package runs
