// Package tuitest holds what the tests of hive's terminal screens share
// (internal/tui and its packages): golden screens, a screen's fit in its
// window, words in order, and key presses as the terminal reports them.
// Test support: the hive binary never imports it.
package tuitest
