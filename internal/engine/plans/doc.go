// Package plans is the engine's record of each plan of a run: what a
// snapshot shows of it (phase.PlanStatus), and the bookkeeping of its
// agents (the current attempt, whether its process lives, the spot-check
// out, the watchdog's and the loop guard's view of it), of its answers and
// of its continuations; with the transitions that concern the plan's own
// agent alone, and its exported form. The engine moves plans between
// states.
package plans
