// Package project makes the phases that hive bench's groups run: random
// DAGs of plans, heavy-tailed in their tasks and durations (with the lower
// bound no schedule can beat), and generated git repositories whose phase
// holds a DAG's plans, each plan owning one file, with the agents' work
// prepared in advance so that instant sim agents can finish it. The
// makespan group schedules the DAGs on a virtual clock; the runner's, the
// Temporal backend's and hive-dev's groups run the projects.
package project
