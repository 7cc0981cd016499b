package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestReportTable(t *testing.T) {
	rep := Report{Seed: 3, Quick: true, CPUs: 2, Rows: []Row{
		{Group: "makespan", Name: "dynamic / bound", Figure: "1.010×", Target: "≤ 1.05×", Status: Pass},
		{Group: "tokens", Name: "checkpoint token cost", Figure: "-", Status: Skipped, Note: "claude CLI not installed (make tools)"},
		{Group: "overhead", Name: "per plan", Figure: "9 ms", Target: "≤ 5 ms", Status: Miss},
	}}
	var b bytes.Buffer
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GROUP", "dynamic / bound", "≤ 1.05×", "skipped: claude CLI not installed (make tools)", "miss", "1 of 3 rows missed"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
