package gitx

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// ErrBadBranch is returned for a name git would not accept as a branch.
var ErrBadBranch = errors.New("invalid branch name")

// PlanBranch is the branch of a plan: hive/<phase>/<plan>. Check it with
// CheckBranchName before use.
func PlanBranch(phase, plan string) string { return "hive/" + phase + "/" + plan }

// CheckBranchName refuses a name that `git check-ref-format --branch` does
// not accept as it is (so no "@{-1}" shorthands), or that starts with "-".
func CheckBranchName(ctx context.Context, name string) error {
	if name == "" || strings.HasPrefix(name, "-") || strings.ContainsAny(name, "\x00\n\r") {
		return fmt.Errorf("%w: %q", ErrBadBranch, name)
	}
	if _, ok := goodBranchNames.Load(name); ok {
		return nil
	}
	out, err := run(ctx, "", "check-ref-format", "--branch", name)
	if err != nil || strings.TrimSpace(out) != name {
		return fmt.Errorf("%w: %q (see `git help check-ref-format`)", ErrBadBranch, name)
	}
	goodBranchNames.Store(name, struct{}{})
	return nil
}

// goodBranchNames holds the names CheckBranchName accepted: whether a name
// is well formed never changes, and a plan's branch is checked at each of
// its steps (worktree, merge, deletion), a git process each.
var goodBranchNames sync.Map
