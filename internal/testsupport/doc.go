// Package testsupport holds what hive's tests share and the product never
// imports: a temporary home directory for a whole test binary, so that no
// test writes under the developer's own ~/.cache/hive or ~/.hive, and (in
// its sub-packages) the fake model servers the real agent CLIs are driven
// against.
package testsupport
