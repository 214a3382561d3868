// Package theme holds every style of the screens, for a dark or a light
// background and without colour (NO_COLOR). It imports no project
// package.
package theme
