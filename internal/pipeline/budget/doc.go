// Package budget holds a pipeline run's budget as the run goes (seed 003
// §5): its ceilings as a human raised them, the rung of the model ladders
// new sessions start on, and the role sessions' turns in flight. From what
// the run's jobs have spent it says how a job's next session may start,
// which ceiling holds it, and which agents a turn past a ceiling stops;
// the machine (internal/pipeline) asks the human.
package budget
