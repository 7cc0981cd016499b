//go:build !faults

package planning

// crashPoint is the crash tests' hook (faults.go, built with the faults
// tag): nothing in the product.
func crashPoint(string, ...string) {}
