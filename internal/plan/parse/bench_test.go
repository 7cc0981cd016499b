package parse_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hivectl/hive/internal/plan/parse"
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
		if s, _ := parse.Summary(rel, data); s == nil || s.SelfCheck == "" {
			b.Fatal("parse failed")
		}
	}
}

func BenchmarkParsePlan(b *testing.B) {
	const rel = ".planning/phases/01-foundation/01-01-PLAN.md"
	data, err := os.ReadFile(filepath.Join(fixture, rel))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if p, _ := parse.Plan(rel, data); p == nil || len(p.Tasks) != 2 {
			b.Fatal("parse failed")
		}
	}
}
