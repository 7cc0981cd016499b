// Package demo creates the repository `hive demo` runs against: a small Go
// project ("bookshelf", a CLI that tracks books) with a GSD .planning/ folder
// whose one phase has six plans in three waves, including a diamond
// dependency, and a variant in which two plans of one wave stop at
// checkpoints. The files are embedded templates under project/ and
// checkpoints/ (an overlay), so the demo needs no network and looks like a
// real GSD project to every other package.
//
// The package only writes into the directory it is given, and only when that
// directory is missing or empty. It does not run agents or hive; tests and
// `hive demo` do that.
package demo
