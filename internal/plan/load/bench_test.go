package load_test

import (
	"testing"

	"github.com/hivectl/hive/internal/plan/load"
)

// BenchmarkLoadProject reads the whole fixture project: every phase, plan
// and SUMMARY, as `hive lint` and `hive execute-phase` do first.
func BenchmarkLoadProject(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		p, err := load.Project(fixture)
		if err != nil || len(p.Phases) == 0 {
			b.Fatal("load failed:", err)
		}
	}
}
