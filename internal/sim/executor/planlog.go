package executor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hivectl/hive/internal/sim/repo"
)

// planCommit is one commit of the plan the sim runs, found by its trailers.
type planCommit struct {
	Hash, Short, Subject string
	Task                 int // Hive-Task number, 0 if none
	Fix                  int // Hive-Fix task number, 0 if none
	WIP                  int // Hive-WIP task number (work in progress), 0 if none
	Summary              bool
}

// planLog returns the commits of g's repository reachable from HEAD, and
// not from since (when set), that carry the trailer "Hive-Plan: <id>",
// oldest first. HEAD, not --all: a task counts as done only when its work is in this checkout,
// so a worktree recreated from the base branch redoes the work an abandoned
// branch holds.
func planLog(g *repo.Git, id, since string) ([]planCommit, error) {
	rng := "HEAD"
	if since != "" {
		rng = since + "..HEAD"
	}
	out, err := g.Run("log", rng, "--fixed-strings", "--grep=Hive-Plan: "+id,
		"--format=%H%x1f%h%x1f%s%x1f%B%x1e")
	if err != nil {
		// Only then is HEAD looked at: an unborn branch has no commits
		// yet, and one process per look-up is what a plan's start costs.
		if errors.Is(err, repo.ErrStopped) {
			return nil, err
		}
		if _, verr := g.Run("rev-parse", "--verify", "--quiet", "HEAD"); verr != nil && !errors.Is(verr, repo.ErrStopped) {
			return nil, nil
		}
		return nil, err
	}
	var list []planCommit
	for _, rec := range strings.Split(out, "\x1e") {
		f := strings.SplitN(strings.TrimLeft(rec, "\n"), "\x1f", 4)
		if len(f) != 4 {
			continue
		}
		c := planCommit{Hash: f[0], Short: f[1], Subject: f[2]}
		// The grep matches prefixes too ("01-0" in "01-02"): keep exact ids.
		if c.readTrailers(id, f[3]) {
			list = append(list, c)
		}
	}
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
	return list, nil
}

// readTrailers sets c's task, fix, WIP and summary marks for plan id from
// a commit message's trailer lines, and reports whether it names the plan
// (Hive-Plan: id).
func (c *planCommit) readTrailers(id, message string) (mine bool) {
	for _, line := range strings.Split(message, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Hive-Plan":
			mine = mine || v == id
		case "Hive-Summary":
			c.Summary = c.Summary || v == id
		case "Hive-Task":
			if n, ok := taskRef(v, id); ok {
				c.Task = n
			}
		case "Hive-Fix":
			if n, ok := taskRef(v, id); ok {
				c.Fix = n
			}
		case "Hive-WIP":
			if n, ok := taskRef(v, id); ok {
				c.WIP = n
			}
		}
	}
	return mine
}

// committedShort is the abbreviated hash in the line `git commit` prints
// for the commit it made ("[branch 1a2b3c4] subject", "[main (root-commit)
// 1a2b3c4] subject"); false when out has no such line.
func committedShort(out string) (string, bool) {
	for _, line := range strings.Split(out, "\n") {
		head, _, ok := strings.Cut(strings.TrimSpace(line), "]")
		if !ok || !strings.HasPrefix(head, "[") {
			continue
		}
		f := strings.Fields(head)
		if h := f[len(f)-1]; len(f) >= 2 && isHex(h) {
			return h, true
		}
	}
	return "", false
}

func isHex(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return len(s) >= 4
}

// taskRef parses "<id>/<n>".
func taskRef(v, id string) (int, bool) {
	rest, ok := strings.CutPrefix(v, id+"/")
	if !ok {
		return 0, false
	}
	var n int
	if _, err := fmt.Sscanf(rest, "%d", &n); err != nil || fmt.Sprint(n) != rest {
		return 0, false
	}
	return n, true
}
