// Package config reads, validates and rewrites a project's configuration:
// .planning/config.json, the GSD file (seed 000 §4.2), overlaid by
// .hive/config.json, which holds hive's own keys such as per-role models
// (seed 003 §5.1). It accepts every shape real projects use — the boolean or
// object form of "parallelization", legacy top-level keys, keys from other GSD
// versions — keeps what it does not know so that a rewrite loses nothing, and
// reports a bad value with the file, line, key and what is accepted. One
// field table per object drives decoding, validation and writing; the JSON
// text beneath the keys (the line of each key, errors and notes placed
// there, values as people write them) is jsonfile's. It only reads and
// writes those files: it never decides scheduling, which belongs to the
// engine, and it never reaches the network or the environment.
package config
