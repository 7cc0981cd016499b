// Package budget is the engine's record of what a run may spend and has
// spent (seed 003 §5): the ceilings as raised so far, every turn's usage,
// the model ladder new agents start on, the turns in flight and the budget
// checkpoint while it waits. The engine tells it what was spent and asks
// it what is left; it decides nothing about the plans themselves.
package budget
