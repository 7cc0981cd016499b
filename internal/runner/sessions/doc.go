// Package sessions is the executor of a run's agent sessions: it starts
// the agent a job asks for (a plan's executor, a conflict's resolver, the
// phase's verifier) as the run's Spec composes it, stops it, sends a
// live one what the engine says and answers its permission requests. It
// turns what agents print into the engine's events (progress,
// checkpoints, reports, PLAN COMPLETE held until its turn has ended, each
// turn's usage priced at its model's price, a provider's limit) and
// reports the silences the watchdog sees. It keeps only the live sessions
// of this process; what they mean is the engine's to decide.
package sessions
