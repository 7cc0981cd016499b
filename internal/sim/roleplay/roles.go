package roleplay

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/sim/faults"
	"github.com/hivectl/hive/internal/sim/repo"
)

var combPlan = regexp.MustCompile(`Resolve the merge conflict of plan (\S+)`)

// resolveConflicts plays the resolver (role comb): a merge is in progress
// in the working tree; it keeps both sides of every conflict (ours, then
// theirs), commits the merge and reports PLAN COMPLETE. The comb-fail
// fault makes it give up instead.
func (a *agent) resolveConflicts(prompt string) error {
	id := "?"
	if m := combPlan.FindStringSubmatch(prompt); m != nil {
		id = m[1]
	}
	if a.Set.ForPlan(id).Has(faults.FaultCombFail) {
		a.Out.Text(fmt.Sprintf("PLAN FAILED\n**Plan:** %s\n**Error:** simulated: cannot reconcile the two sides", id))
		a.SetEOFExit(0) // its work is done: closing its input ends it cleanly, as a real CLI's does
		a.Out.EndTurn()
		return nil
	}
	out, err := a.Git.Run("diff", "--name-only", "--diff-filter=U", "-z")
	if err != nil {
		return err
	}
	var files []string
	for _, f := range strings.Split(out, "\x00") {
		if f == "" {
			continue
		}
		rel, err := repo.CheckPath(a.Dir, a.RealDir, f)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(filepath.Join(a.Dir, rel))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(a.Dir, rel), []byte(unionMerge(string(data))), 0o644); err != nil {
			return err
		}
		files = append(files, rel)
	}
	if len(files) > 0 {
		if _, err := a.Git.Run(append([]string{"add", "-f", "--"}, files...)...); err != nil {
			return err
		}
	}
	if _, err := a.Git.Run("commit", "--no-edit", "--no-verify", "-q"); err != nil {
		return err
	}
	a.Out.Text(fmt.Sprintf("Resolved %s by keeping both sides.\n\nPLAN COMPLETE\n**Plan:** %s", strings.Join(files, ", "), id))
	a.SetEOFExit(0)
	a.Out.EndTurn()
	return nil
}

// unionMerge resolves conflict blocks by keeping both sides.
func unionMerge(text string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		l := strings.TrimRight(line, "\n")
		if strings.HasPrefix(l, "<<<<<<< ") || l == "=======" || strings.HasPrefix(l, ">>>>>>> ") || strings.HasPrefix(l, "||||||| ") {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// verifyPhase plays the verifier: it writes NN-VERIFICATION.md with the
// status HIVE_SIM_VERIFY asks for (passed by default) and ends its turn.
func (a *agent) verifyPhase() error {
	status := a.Set.Verify
	if status == "" {
		status = "passed"
	}
	dir, phase := os.Getenv("HIVE_PHASE_DIR"), os.Getenv("HIVE_PHASE")
	rel, err := repo.CheckPath(a.Dir, a.RealDir, filepath.ToSlash(filepath.Join(dir, phase+"-VERIFICATION.md")))
	if err != nil {
		return err
	}
	body := fmt.Sprintf("---\nphase: %q\nstatus: %s\nverified: %s\n---\n\n# Phase %s verification\n\n## Results\n\n", phase, status, time.Now().UTC().Format("2006-01-02"), phase)
	switch status {
	case "human_needed":
		body += "- Run the program and check that its output reads well (only a person can judge this).\n"
	case "gaps_found":
		body += "- Gap: the simulated verifier was told to find one.\n"
	default:
		body += "- Every must_have holds.\n"
	}
	if err := os.WriteFile(filepath.Join(a.Dir, rel), []byte(body), 0o644); err != nil {
		return err
	}
	a.Out.Text("VERIFICATION COMPLETE: " + status)
	a.SetEOFExit(0)
	a.Out.EndTurn()
	return nil
}
