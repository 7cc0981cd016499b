// Package follow follows a run's pull request (Spec.Follow, rules 4). Once
// the roles are done, the job FollowJob delivers the work as a pull
// request (CmdDeliver) and watches it (CmdWatch). What the watch finds on
// the pull request's head, failed checks and open review threads, goes to
// the implementer as a fix loop does; its fix is pushed and the threads
// are answered (CmdPush); then the new head is watched. The run ends when
// the pull request is merged (complete) or closed (aborted); after the
// workflow's fix loops, or when a push fails, a human decides. The machine
// (internal/pipeline) owns the following and lends it its jobs.
package follow
