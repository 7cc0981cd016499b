// Package sched is the engine's dependency graph and ready queues: which
// plans may start, in which order, and which wave rigid mode runs. It knows
// plans by their position in the run's spec and their states as the engine
// tells them; it never starts anything itself.
package sched
