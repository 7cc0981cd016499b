package index

import (
	"slices"
	"testing"
)

// The config's "tools" limits the tools found to those it lists, in the
// order found; an empty list limits nothing.
func TestAllowed(t *testing.T) {
	found := []string{"docker", "psql", "go", "make"}
	for _, tc := range []struct {
		only, want []string
	}{
		{nil, found},
		{[]string{}, found},
		{[]string{"make", "go"}, []string{"go", "make"}},
		{[]string{"psql", "not-installed"}, []string{"psql"}},
		{[]string{"not-installed"}, nil},
	} {
		if got := Allowed(found, tc.only); !slices.Equal(got, tc.want) {
			t.Errorf("Allowed(%q) = %q, want %q", tc.only, got, tc.want)
		}
	}
}
