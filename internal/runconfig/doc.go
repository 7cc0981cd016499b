// Package runconfig is what a project's configuration (.hive/config.json)
// and a command's flags make of a run, for the local host and Temporal's
// alike: the agents of its roles (picked by role, checked before anything
// starts, wrapped with the project's secrets), their prices and model
// ladders, the budget and its estimates from the project's history, the
// policy at a usage limit, the run's journal, and for hive run the
// workflow, context files and routing of a new run or the settings a
// resumed run started with. It decides nothing a run does; it only reads
// what the user asked for.
package runconfig
