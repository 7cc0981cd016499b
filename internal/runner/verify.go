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
	"time"

	"github.com/hivectl/hive/internal/agent"
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

// verifyPhase runs the phase verification in dir (seed 002): the
// mechanical must_haves checks, then the verifier role, whose report's
// status hive routes.
func (r *runner) verifyPhase(ctx context.Context, dir string) engine.Event {
	ev := engine.Event{Type: engine.EvVerified}
	gaps := checkMustHaves(dir, r.o.Phase.Plans)
	if len(gaps) > 0 {
		ev.Text = engine.VerifyGapsFound
		ev.Reason = strings.Join(gaps, "\n") + "\n" + gapsCommand(r.o.Phase)
		return ev
	}
	l := r.o.Roles["verifier"]
	if l == nil {
		ev.Text, ev.Reason = engine.VerifyPassed, "every must_have checked mechanically (no verifier role configured)"
		return ev
	}
	report := verificationPath(r.o.Phase)
	var plans []string
	for _, p := range r.o.Phase.Plans {
		plans = append(plans, p.Path)
	}
	var b strings.Builder
	err := verifierPrompt.Execute(&b, map[string]any{"PhaseNumber": r.o.Phase.Number, "PhaseSlug": r.o.Phase.Slug, "Report": report, "Plans": plans})
	if err == nil {
		err = r.runRole(ctx, l, "verifier", engine.VerifyID, dir, b.String())
	}
	if err != nil {
		ev.Text, ev.Reason = engine.VerifyHumanNeeded, "the verifier did not finish ("+err.Error()+"); check the phase by hand"
		return ev
	}
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

// runRole runs a one-turn agent of a role (the verifier) in dir and waits
// for its turn to end, or for it to go quiet for the stall timeout.
func (r *runner) runRole(ctx context.Context, l agent.Launcher, role, id, dir, prompt string) error {
	turn := make(chan agent.Output, 1)
	spec := agent.Spec{Plan: id, Attempt: 1, Dir: dir, Prompt: prompt,
		Env:     []string{"HIVE_AGENT_ROLE=" + role, "HIVE_PHASE_DIR=" + r.o.Phase.Dir, "HIVE_PHASE=" + r.o.Phase.Number},
		LogPath: filepath.Join(r.o.Repo.Root, ".hive", "logs", fmt.Sprintf("%s.%s.log", id, time.Now().UTC().Format("20060102T150405"))),
	}
	s, err := l.Start(ctx, spec, func(o agent.Output) {
		if o.Kind == agent.OutResult {
			select {
			case turn <- o:
			default:
			}
		}
	})
	if err != nil {
		return err
	}
	defer s.Stop(r.o.StopGrace)
	tick := time.NewTicker(max(min(r.o.Stall/4, time.Second), 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case o := <-turn:
			if o.IsError {
				return fmt.Errorf("the %s's turn ended in an error: %s", role, clip(o.Text, 200))
			}
			return nil
		case <-s.Done():
			return nil
		case <-tick.C:
			if s.Silent(time.Now()) > r.o.Stall {
				s.Kill()
				return fmt.Errorf("the %s printed nothing for %s", role, r.o.Stall)
			}
		case <-ctx.Done():
			s.Kill()
			return ctx.Err()
		}
	}
}
