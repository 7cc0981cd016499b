// Package workflows is hive run's workflows of roles: the roles hive
// knows, a workflow's steps (a role's agent, or hive's own build and
// fix_blocking), the built-in workflows, a workflow file read (hive's
// format or the shell Hive's), the one the planner's answer describes,
// and the one an objective's words pick when none is named. They are
// plain data, as a run's spec (roleplan.Spec) carries them; the pipeline
// machine (internal/pipeline) runs them.
package workflows
