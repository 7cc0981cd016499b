package github

import (
	"context"
	"strings"
	"testing"
)

func TestCloses(t *testing.T) {
	for url, want := range map[string]string{
		"https://github.com/acme/svc/issues/7":        "Closes acme/svc#7",
		"https://git.example.com/team/api/issues/123": "Closes team/api#123",
		"": "Closes #7",
	} {
		if got := (Issue{Number: 7, URL: url}).Closes(); got != want {
			t.Errorf("Closes of %q = %q, want %q", url, got, want)
		}
	}
}

func TestText(t *testing.T) {
	got := Issue{Number: 7, Title: "Add a health check", URL: "https://github.com/acme/svc/issues/7", Labels: []string{"hive", "api"},
		Body: "GET /healthz answers 200.\n", Comments: []Comment{{Author: "ana", Body: "No auth on it."}}}.Text()
	for _, want := range []string{"# Issue #7: Add a health check\n", "https://github.com/acme/svc/issues/7\n", "Labels: hive, api\n",
		"\nGET /healthz answers 200.\n", "\n## Comment by ana\n\nNo auth on it.\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("Text lacks %q:\n%s", want, got)
		}
	}
}

// A reference that is not an issue's is refused before gh runs (it is
// never a flag gh would take, nor anything but a number or an address).
func TestViewRefusesWhatIsNotAnIssue(t *testing.T) {
	for _, ref := range []string{"seven", "--web", "7 8", "https://github.com/acme/svc/pull/7", "../7"} {
		if _, err := View(context.Background(), "/nonexistent/gh", t.TempDir(), ref); err == nil || !strings.Contains(err.Error(), "is not an issue") {
			t.Errorf("View(%q): %v", ref, err)
		}
	}
}
