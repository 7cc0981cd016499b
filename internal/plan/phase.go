package plan

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// FindPhase resolves what a user typed: "3", "03", "3.1", "03-authentication",
// "authentication", or a path to the folder.
func (p *Project) FindPhase(arg string) (*Phase, error) {
	a := strings.TrimSpace(filepath.ToSlash(arg))
	if filepath.IsAbs(arg) {
		if rel, err := filepath.Rel(p.Root, arg); err == nil {
			a = filepath.ToSlash(rel)
		}
	}
	a = path.Base(path.Clean(strings.TrimSuffix(a, "/")))
	var matches []*Phase
	for _, try := range []func(*Phase) bool{
		func(ph *Phase) bool { return path.Base(ph.Dir) == a },
		func(ph *Phase) bool { return IsNumLike(a) && ph.Number != "" && CompareNum(ph.Number, a) == 0 },
		func(ph *Phase) bool {
			m := phaseDirRE.FindStringSubmatch(a)
			return m != nil && m[2] != "" && CompareNum(ph.Number, m[1]) == 0 && ph.Slug == m[2]
		},
		func(ph *Phase) bool { return ph.Slug != "" && strings.EqualFold(ph.Slug, a) },
	} {
		for _, ph := range p.Phases {
			if try(ph) {
				matches = append(matches, ph)
			}
		}
		if len(matches) > 0 {
			break
		}
	}
	switch {
	case len(matches) == 1:
		return matches[0], nil
	case len(matches) > 1:
		return nil, fmt.Errorf("phase %q is ambiguous: it matches %s; name the folder", arg, phaseNames(matches))
	case len(p.Phases) == 0 && len(p.Ignored) > 0:
		return nil, fmt.Errorf("phase %q not found: %s has no folder named NN-name (03-auth), only %s, which hive does not read; rename them (see `hive lint`)", arg, PhasesDir, strings.Join(p.Ignored, ", "))
	case len(p.Phases) == 0:
		return nil, fmt.Errorf("phase %q not found: %s has no phase folders; create %s/01-<name>/ with NN-MM-PLAN.md files", arg, PhasesDir, PhasesDir)
	}
	return nil, fmt.Errorf("phase %q not found; available phases: %s", arg, phaseNames(p.Phases))
}

func phaseNames(phs []*Phase) string {
	names := make([]string, len(phs))
	for i, ph := range phs {
		names[i] = path.Base(ph.Dir)
	}
	return strings.Join(names, ", ")
}

// Plan returns the plan with that id, or nil. "3-1" finds "03-01".
func (p *Phase) Plan(id string) *Plan {
	for _, pl := range p.Plans {
		if pl.ID == id {
			return pl
		}
	}
	for _, pl := range p.Plans {
		if NormalizeDep(id, pl.ID) == pl.ID {
			return pl
		}
	}
	return nil
}

// SummaryPath is the repository-relative path of the plan's SUMMARY.md, which
// marks the plan done: the file load.Phase matched to the plan, whatever GSD
// naming it follows, else NN-MM-SUMMARY.md next to the plan, where a SUMMARY
// still to be written goes.
func (p *Plan) SummaryPath() string {
	if p.MatchedSummary != "" {
		return p.MatchedSummary
	}
	return path.Join(path.Dir(p.Path), p.ID+"-SUMMARY.md")
}
