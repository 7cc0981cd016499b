// Package temporaltest starts the Temporal dev server that the tests of
// hive's Temporal backend run against: the temporal CLI `make test` builds
// from the Go module proxy into .tools/temporal (or $HIVE_TEMPORAL), on
// loopback ports of its own, in memory. Nothing is downloaded at test time.
package temporaltest
