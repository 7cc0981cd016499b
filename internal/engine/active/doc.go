// Package active keeps how long hive ran a run: the time between its
// events, less the gaps before each resume (hive was not running) and the
// time of answers given with `hive answer` while it was down. Time arrives
// inside the events; it never reads the clock.
package active
