// Package chart draws the trainee page's charts: the weight history as a
// line chart with a round axis (WeightChart, YTicks), and one-line
// sparklines (Spark). Pure functions of their data, the width and the
// theme; it imports api, theme and layout.
package chart
