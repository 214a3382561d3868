// Package layout is how the pages lay text out in cells: the title bar,
// padding, cutting with …, centring, wrapping at spaces, tab labels and
// the frame's line fitter. It imports api and theme.
package layout
