package delivery

import (
	"context"
	"fmt"
	"strings"

	"github.com/hivectl/hive/internal/gitx"
	"github.com/hivectl/hive/internal/gitx/worktrees"
	"github.com/hivectl/hive/internal/piperun/runjournal"
)

// NewBranch names the branch of a run starting now: hive/WORKFLOW/SLUG,
// the slug made of the objective's first words (run-N when it has none
// in ASCII), with -2, -3... added when a branch of that name, or one that
// git could not keep beside it (hive/full/x beside hive/full/x/y), exists.
func NewBranch(ctx context.Context, repo *gitx.Repo, workflow, objective string, run int64) string {
	wf := refWords(workflow, 40)
	if wf == "" {
		wf = "custom"
	}
	sl := BranchSlug(objective)
	if sl == "" {
		sl = fmt.Sprintf("run-%d", run)
	}
	var refs []string
	if out, err := repo.Git(ctx, "for-each-ref", "--format=%(refname)", "refs/heads/"); err == nil {
		for _, r := range strings.Split(out, "\n") {
			if r = strings.TrimPrefix(strings.TrimSpace(r), "refs/heads/"); r != "" {
				refs = append(refs, r)
			}
		}
	}
	taken := func(name string) bool {
		for _, r := range refs {
			if r == name || strings.HasPrefix(r, name+"/") || strings.HasPrefix(name, r+"/") {
				return true
			}
		}
		return gitx.CheckBranchName(ctx, name) != nil
	}
	base := "hive/" + wf + "/" + sl
	for n := 1; n <= 100; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		if !taken(name) {
			return name
		}
	}
	// A hundred runs of one objective, or a branch hive/WORKFLOW in the
	// way: the run's number is free.
	return runjournal.Branch(run)
}

// BranchSlug is the objective's first words as a branch name's last part:
// lowercase ASCII letters and digits, joined by -, at most 40 characters;
// "" when the objective has no such word.
func BranchSlug(objective string) string { return refWords(objective, 40) }

// refWords joins the ASCII words of s, lowercased (common accented
// letters as their plain ones), with -, as many as fit in limit.
func refWords(s string, limit int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if f, ok := unaccent[r]; ok {
			b.WriteString(f)
		} else {
			b.WriteRune(r)
		}
	}
	words := strings.FieldsFunc(b.String(), func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9')
	})
	out := ""
	for _, w := range words {
		switch {
		case out == "" && len(w) > limit:
			return w[:limit]
		case out == "":
			out = w
		case len(out)+1+len(w) > limit:
			return out
		default:
			out += "-" + w
		}
	}
	return out
}

// unaccent spells the accented letters of the Latin alphabets in ASCII,
// so that "vérifier" is "verifier", not "v-rifier".
var unaccent = func() map[rune]string {
	m := map[rune]string{'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d", 'þ': "th", 'ð': "d"}
	for plain, accented := range map[string]string{
		"a": "àáâãäåāăą", "c": "çćĉċč", "e": "èéêëēĕėęě", "g": "ĝğġģ", "i": "ìíîïĩīĭįı",
		"n": "ñńņňŉ", "o": "òóôõöōŏő", "s": "śŝşš", "t": "ţťŧ", "u": "ùúûüũūŭůűų", "y": "ýÿŷ", "z": "źżž",
	} {
		for _, r := range accented {
			m[r] = plain
		}
	}
	return m
}()

// LeftBranch is the branch of a run stopped before its spec was journaled:
// the one checked out in its worktree at dir.
func LeftBranch(ctx context.Context, repo *gitx.Repo, dir string, run int64) string {
	if wts, err := worktrees.List(ctx, repo); err == nil {
		for _, wt := range wts {
			if gitx.SameDir(wt.Path, dir) && wt.Branch != "" {
				return wt.Branch
			}
		}
	}
	return runjournal.Branch(run)
}
