package pages

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/serve/views"
	"github.com/hivectl/hive/internal/work"
)

// A run that waits for its provider's usage limit says so on its page and
// in the dashboard's list, with when it goes on; a finished run does not,
// and a run that fell back says that.
func TestPagesShowTheLimitWait(t *testing.T) {
	until := time.Now().Add(2*time.Hour + 13*time.Minute + 10*time.Second)
	wait := &work.LimitWait{Kind: work.LimitUsage, Until: until, Since: time.Now(), Job: "01-02"}
	v := views.RunView{Key: "phase-1", Kind: "phase", ID: 1, Title: "Phase 01", State: "running", Limit: wait}
	render := func(name string, p Page) string {
		var b bytes.Buffer
		if err := pages().ExecuteTemplate(&b, name, p); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	want := "waiting for the usage limit&#39;s reset at " + until.Local().Format("15:04") + " (in 2h13m)"
	if got := render("run", Page{View: &v}); !strings.Contains(got, want) || !strings.Contains(got, "hive answer limit resume-now") {
		t.Errorf("the run's page lacks %q:\n%s", want, got)
	}
	if got := render("dashboard", Page{Runs: []views.RunView{v}}); !strings.Contains(got, want) {
		t.Errorf("the dashboard lacks %q:\n%s", want, got)
	}
	v.State = "stopped" // --on-limit stop, or hive was stopped: nothing goes on by itself
	if got := render("run", Page{View: &v}); !strings.Contains(got, "run its command again to go on") {
		t.Errorf("a stopped run's page does not say how to go on:\n%s", got)
	}
	done := time.Now()
	v.Finished, v.State, v.Fallback = &done, "finished", true
	if got := render("run", Page{View: &v}); strings.Contains(got, "waiting for") || !strings.Contains(got, "switched the run to the fallback agent") {
		t.Errorf("a finished run's page shows a wait, or not its fallback:\n%s", got)
	}
}
