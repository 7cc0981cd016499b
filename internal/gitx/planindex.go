package gitx

import (
	"slices"
	"strings"
)

// PlanIndex finds each plan's commits (Commit.ForPlan) in a list of
// commits without testing every commit against every plan id: each commit
// is filed once under the ids it could be for, so a run of N plans looking
// up its own commits among the run's N commits does N small look-ups, not
// N² message scans.
type PlanIndex struct {
	byKey map[string][]Commit // list order within a key
	// slow holds every commit, for the rare id ForPlan can match without
	// the commit being filed under it (an id with ")" in it).
	slow []Commit
}

// IndexPlans files cs, in their order.
func IndexPlans(cs []Commit) *PlanIndex {
	ix := &PlanIndex{byKey: map[string][]Commit{}}
	ix.Prepend(cs)
	return ix
}

// Prepend files cs ahead of the commits already filed: newer commits of a
// newest-first list.
func (ix *PlanIndex) Prepend(cs []Commit) {
	fresh := map[string][]Commit{}
	for _, c := range cs {
		keys := planKeys(c)
		for i, k := range keys {
			if !slices.Contains(keys[:i], k) { // filed once under each
				fresh[k] = append(fresh[k], c)
			}
		}
	}
	for k, list := range fresh {
		ix.byKey[k] = append(list, ix.byKey[k]...)
	}
	ix.slow = append(append([]Commit(nil), cs...), ix.slow...)
}

// For returns plan id's commits, in list order.
func (ix *PlanIndex) For(id string) []Commit {
	list := ix.byKey[id]
	if strings.Contains(id, ")") {
		list = ix.slow
	}
	var out []Commit
	for _, c := range list {
		if c.ForPlan(id) {
			out = append(out, c)
		}
	}
	return out
}

// planKeys are the ids c may be for: every text between a "(" and the next
// ")" of its subject or body (ForPlan's "(id)", for any id without ")"),
// and each Hive-Plan or Hive-Task trailer's value, whole and without its
// "/task" suffix. ForPlan decides; a key only narrows the search.
func planKeys(c Commit) []string {
	var keys []string
	for _, text := range []string{c.Subject, c.Body} {
		for i := 0; i < len(text); i++ {
			if text[i] != '(' {
				continue
			}
			if end := strings.IndexByte(text[i+1:], ')'); end >= 0 {
				keys = append(keys, text[i+1:i+1+end])
			}
		}
		for _, line := range strings.Split(text, "\n") {
			rest, ok := strings.CutPrefix(line, "Hive-Plan: ")
			if !ok {
				rest, ok = strings.CutPrefix(line, "Hive-Task: ")
			}
			if !ok {
				continue
			}
			keys = append(keys, rest)
			if i := strings.LastIndexByte(rest, '/'); i >= 0 {
				keys = append(keys, rest[:i])
			}
		}
	}
	return keys
}
