//go:build !faults

package gitx

// afterCommand is the tests' hook after each git command (hooks.go, built
// with the faults tag): nothing in the product.
func afterCommand() {}
