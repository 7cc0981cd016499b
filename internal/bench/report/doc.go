// Package report is what every group of hive bench speaks: the Options it
// is measured with, and the Rows it gives back, each a figure beside its
// target, judged pass or miss (or given for information, skipped or failed
// with a note that says why). A Report gathers the rows of a bench run and
// prints them as an aligned table or as JSON. It imports no hive package,
// so that the groups' packages and internal/bench, which runs them, share
// it without a cycle.
package report
