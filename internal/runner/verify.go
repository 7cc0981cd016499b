package runner

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/plan"
)

//go:embed prompts/verifier.md
var verifierTemplate string

var verifierPrompt = template.Must(template.New("verifier").Parse(verifierTemplate))

// checkMustHaves checks every plan's must_haves against the files under
// root: each artifact exists and contains its text, each key link's pattern
// is found in its file. It returns the gaps, one line each.
func checkMustHaves(root string, plans []*plan.Plan) []string {
	var gaps []string
	read := func(p *plan.Plan, rel, what string) (string, bool) {
		clean, err := plan.SafeRelPath(rel)
		if err != nil {
			gaps = append(gaps, fmt.Sprintf("%s: %s %q: %v", p.ID, what, rel, err))
			return "", false
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(clean)))
		if err != nil {
			gaps = append(gaps, fmt.Sprintf("%s: %s %s is missing", p.ID, what, clean))
			return "", false
		}
		return string(data), true
	}
	for _, p := range plans {
		for _, a := range p.MustHaves.Artifacts {
			if strings.TrimSpace(a.Path) == "" {
				continue
			}
			text, ok := read(p, a.Path, "artifact")
			if ok && a.Contains != "" && !strings.Contains(text, a.Contains) {
				gaps = append(gaps, fmt.Sprintf("%s: artifact %s does not contain %q", p.ID, a.Path, a.Contains))
			}
		}
		for _, k := range p.MustHaves.KeyLinks {
			from, _ := plan.SplitKeyLinkRef(k.From) // "src/app.js (handleSubmit)" names src/app.js; prose names no file
			if from == "" || k.Pattern == "" {
				continue
			}
			text, ok := read(p, from, "key link source")
			if !ok {
				continue
			}
			found := strings.Contains(text, k.Pattern)
			if re, err := regexp.Compile(k.Pattern); err == nil {
				found = found || re.MatchString(text)
			}
			if !found {
				gaps = append(gaps, fmt.Sprintf("%s: key link %s → %s: pattern %q not found in %s", p.ID, k.From, k.To, k.Pattern, from))
			}
		}
	}
	return gaps
}

// verificationPath is the phase's report: NN-VERIFICATION.md.
func verificationPath(ph *plan.Phase) string {
	return filepath.ToSlash(filepath.Join(ph.Dir, ph.Number+"-VERIFICATION.md"))
}

// checkPhase checks the phase's must_haves mechanically in dir (seed
// 002): gaps_found with the gaps, or passed, after which the engine may
// have a verifier agent review the rest.
func (r *runner) checkPhase(dir string) engine.Event {
	ev := engine.Event{Type: engine.EvVerified, Text: engine.VerifyPassed, Reason: engine.MechanicalOnly}
	if gaps := checkMustHaves(dir, r.o.Phase.Plans); len(gaps) > 0 {
		ev.Text = engine.VerifyGapsFound
		ev.Reason = strings.Join(gaps, "\n") + "\n" + gapsCommand(r.o.Phase)
	}
	return ev
}

// verifierPrompt is the verifier agent's prompt.
func (r *runner) verifierPrompt() (string, error) {
	var plans []string
	for _, p := range r.o.Phase.Plans {
		plans = append(plans, p.Path)
	}
	var b strings.Builder
	err := verifierPrompt.Execute(&b, map[string]any{"PhaseNumber": r.o.Phase.Number, "PhaseSlug": r.o.Phase.Slug,
		"Report": verificationPath(r.o.Phase), "Plans": plans})
	return b.String(), err
}

// readReport reads the verifier's report in dir, and commits it on the
// integration branch: its status is what the engine routes.
func (r *runner) readReport(ctx context.Context, dir string) engine.Event {
	ev := engine.Event{Type: engine.EvVerified}
	report := verificationPath(r.o.Phase)
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(report)))
	if err != nil {
		ev.Text, ev.Reason = engine.VerifyHumanNeeded, "the verifier wrote no "+report+"; check the phase by hand"
		return ev
	}
	status, body := reportStatus(string(data))
	switch status {
	case engine.VerifyPassed, engine.VerifyHumanNeeded:
		ev.Text, ev.Reason = status, body
	case engine.VerifyGapsFound:
		ev.Text, ev.Reason = status, body+"\n"+gapsCommand(r.o.Phase)
	default:
		ev.Text, ev.Reason = engine.VerifyHumanNeeded, fmt.Sprintf("%s has status %q, not passed, human_needed or gaps_found; read it and decide", report, status)
	}
	if r.integ != nil {
		ig := r.o.Repo.At(dir)
		if err := ig.Locked(ctx, func() error {
			return ig.CommitAll(ctx, "hive: verification of phase "+r.o.Phase.Number+": "+status, report)
		}); err != nil {
			r.note("", "record "+report+": "+err.Error())
		}
	}
	return ev
}

// gapsCommand is the command that plans the fixes of a phase's gaps.
func gapsCommand(ph *plan.Phase) string {
	return fmt.Sprintf("Plan the fixes with: /gsd:plan-phase %s --gaps", ph.Number)
}

var statusLine = regexp.MustCompile(`(?m)^status:\s*"?([a-z_]+)"?\s*$`)

// reportStatus reads a VERIFICATION.md's status and a short body.
func reportStatus(text string) (status, body string) {
	if m := statusLine.FindStringSubmatch(text); m != nil {
		status = m[1]
	}
	body = text
	if strings.HasPrefix(body, "---\n") {
		if end := strings.Index(body[4:], "\n---\n"); end >= 0 {
			body = body[4+end+5:]
		}
	}
	return status, clipLines(strings.TrimSpace(body), 40)
}
