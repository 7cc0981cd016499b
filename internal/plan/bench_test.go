package plan

import (
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkParseSummary(b *testing.B) {
	const rel = ".planning/phases/01-foundation/01-01-SUMMARY.md"
	data, err := os.ReadFile(filepath.Join(fixture, rel))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if s, _ := ParseSummary(rel, data); s == nil || s.SelfCheck == "" {
			b.Fatal("parse failed")
		}
	}
}

// BenchmarkLoadProject reads the whole fixture project: every phase, plan
// and SUMMARY, as `hive lint` and `hive execute-phase` do first.
func BenchmarkLoadProject(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		p, err := LoadProject(fixture)
		if err != nil || len(p.Phases) == 0 {
			b.Fatal("load failed:", err)
		}
	}
}
