// Package phaserun is the implementers' phase of hive run: the
// architect's plans run as a phase of their own by the runner, here in
// the run's worktree with the phase's journal beside them (Local), or on
// the workers of a distributed backend (a Runner of theirs). It answers
// the budget checkpoint of the phase's unfinished run with the raise the
// human gave the run (RaiseText), starts the phase's agents on the
// fallback agent where the run fell back (OnFallback), gives them the
// run's environment (WithEnv), and reads what the phase's run ended with
// into the event the pipeline machine steps (Ended). The briefing of each
// plan reaches workers through the run's worktree (SaveBriefs,
// SavedBriefs) or its git remote (PublishBriefs, RemoteBriefs).
package phaserun
