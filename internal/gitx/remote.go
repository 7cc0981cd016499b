package gitx

import (
	"context"
	"fmt"
	"strings"
)

// Workers of a distributed run share work through a git remote: each
// fetches the run's branches into refs of hive's own (never the user's
// remote-tracking refs, and a remote may be a bare URL with no name), and
// pushes the branches it wrote.

// RemoteRef is where hive keeps its copy of the remote's branch.
func RemoteRef(branch string) string { return "refs/hive/remote/" + branch }

// checkRemote refuses a remote that git would read as an option.
func checkRemote(remote string) error {
	if remote == "" || strings.HasPrefix(remote, "-") || strings.ContainsAny(remote, "\x00\n\r") {
		return fmt.Errorf("invalid git remote %q: name a remote (such as origin) or a repository URL", remote)
	}
	return nil
}

// FetchBranches brings the remote's branches named by patterns (branch
// names or refspec globs such as "hive/01/*") to their RemoteRef, and drops
// the copies of those the remote no longer has.
func (r *Repo) FetchBranches(ctx context.Context, remote string, patterns ...string) error {
	if err := checkRemote(remote); err != nil {
		return err
	}
	args := []string{"fetch", "-q", "--prune", "--no-tags", "--no-write-fetch-head", "--end-of-options", remote}
	for _, p := range patterns {
		args = append(args, "+refs/heads/"+p+":"+RemoteRef(p))
	}
	if _, err := r.Git(ctx, args...); err != nil {
		return fmt.Errorf("fetch from %s: %w", remote, err)
	}
	return nil
}

// RefHash is the commit ref names, or "" when there is none.
func (r *Repo) RefHash(ctx context.Context, ref string) string {
	out, err := r.Git(ctx, "rev-parse", "-q", "--verify", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// PushBranch sets the remote's branch to the commit rev. With lease it may
// move the branch anywhere, but only from the commit lease names (""
// means the branch must not exist yet), so that a worker that lost its
// plan never overwrites the work of the one that took it over; without
// lease only a fast-forward is accepted.
func (r *Repo) PushBranch(ctx context.Context, remote, rev, branch string, lease *string) error {
	if err := checkRemote(remote); err != nil {
		return err
	}
	if err := CheckBranchName(ctx, branch); err != nil {
		return err
	}
	args := []string{"push", "-q", "--no-verify"}
	if lease != nil {
		args = append(args, "--force-with-lease=refs/heads/"+branch+":"+*lease)
	}
	args = append(args, "--end-of-options", remote, rev+":refs/heads/"+branch)
	if _, err := r.Git(ctx, args...); err != nil {
		return fmt.Errorf("push %s to %s: %w", branch, remote, err)
	}
	return nil
}

// DeleteRemoteBranches deletes the remote's branches (those it lacks are
// no error).
func (r *Repo) DeleteRemoteBranches(ctx context.Context, remote string, branches ...string) error {
	if err := checkRemote(remote); err != nil {
		return err
	}
	if len(branches) == 0 {
		return nil
	}
	args := []string{"push", "-q", "--no-verify", "--end-of-options", remote}
	for _, b := range branches {
		if err := CheckBranchName(ctx, b); err != nil {
			return err
		}
		args = append(args, ":refs/heads/"+b)
	}
	if _, err := r.Git(ctx, args...); err != nil && !strings.Contains(err.Error(), "remote ref does not exist") {
		return fmt.Errorf("delete branches on %s: %w", remote, err)
	}
	return nil
}

// FileCommit makes a commit of no parent, on no branch, whose tree holds
// one file, name, with data, and returns its hash: a way to hand clones a
// file through a remote (pushed to a branch of its own) without touching
// any branch or tree of the repository.
func (r *Repo) FileCommit(ctx context.Context, name string, data []byte, message string) (string, error) {
	if name == "" || strings.ContainsAny(name, "/\x00\n\t") {
		return "", fmt.Errorf("file commit: invalid file name %q", name)
	}
	blob, err := runInput(ctx, r.Root, data, "hash-object", "-w", "--stdin")
	if err != nil {
		return "", err
	}
	tree, err := runInput(ctx, r.Root, []byte("100644 blob "+strings.TrimSpace(blob)+"\t"+name+"\n"), "mktree")
	if err != nil {
		return "", err
	}
	out, err := r.Git(ctx, append(r.identity(ctx), "commit-tree", "-m", message, "--end-of-options", strings.TrimSpace(tree))...)
	return strings.TrimSpace(out), err
}

// FileAt is the content of file name in commit rev.
func (r *Repo) FileAt(ctx context.Context, rev, name string) ([]byte, error) {
	if strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("invalid revision %q", rev)
	}
	out, err := r.Git(ctx, "cat-file", "blob", rev+":"+name)
	return []byte(out), err
}

// ReachRemote says whether remote (a name or a URL) answers: it lists the
// remote's branches and forgets them.
func (r *Repo) ReachRemote(ctx context.Context, remote string) error {
	if err := checkRemote(remote); err != nil {
		return err
	}
	if _, err := r.Git(ctx, "ls-remote", "-q", "--heads", "--end-of-options", remote); err != nil {
		return fmt.Errorf("reach %s: %w", remote, err)
	}
	return nil
}
