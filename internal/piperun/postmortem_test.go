package piperun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/agent/adapter"
	"github.com/hivectl/hive/internal/piperun/postmortem"
	"github.com/hivectl/hive/internal/piperun/runjournal"
	"github.com/hivectl/hive/internal/piperun/runreport"
	"github.com/hivectl/hive/internal/testsupport/gittest"
	"github.com/hivectl/hive/internal/workflows"
)

// With a postmortem model the run is told by it, journaled before the run
// is finished and kept in postmortem.md; a model that fails leaves hive's
// own paragraph, and says why.
func TestPostmortemModel(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	quick, _ := workflows.Builtin("quick")
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{nil, "Simulated postmortem of add a health check endpoint: the run did what it set out to do."},
		{[]string{"HIVE_SIM_FAULTS=postmortem=badreport"}, "Run 1 (workflow quick) set out to add a health check endpoint and completed"},
	} {
		repo := gittest.Service(t)
		res, _, o := recorded(t, repo, quick, func(o *Options) { o.Postmortem = adapter.Sim{Bin: self, Env: tc.env} })
		run, _, _ := runjournal.Latest(o.Journal) // finished
		rep, err := runreport.Build(t.Context(), o.Journal, repo, run)
		if err != nil || !strings.HasPrefix(rep.Postmortem, tc.want) {
			t.Errorf("postmortem %q (%v); want %q", rep.Postmortem, err, tc.want)
		}
		md, _ := os.ReadFile(filepath.Join(repo.Root, postmortem.Path(res.Run.ID)))
		if !strings.Contains(string(md), tc.want) {
			t.Errorf("postmortem.md:\n%s", md)
		}
		if n := len(journaled(o.Journal, res.Run.ID, runjournal.PostmortemEvent)); n != 1 {
			t.Errorf("%d postmortem record(s)", n)
		}
	}
}
