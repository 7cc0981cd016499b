// Package makespanbench is hive bench's makespan group: on random DAGs of
// 100 and 1,000 plans it runs the pure engine to the end on a virtual
// clock, each agent finishing its plan after the plan's duration, and
// compares dynamic scheduling (priorities from task counts, and from
// duration estimates off by about 30%) against the lower bound no schedule
// can beat, and rigid waves against dynamic. No process starts and no
// time passes: the figures are the engine's decisions alone. The overhead
// group (runnerbench) drives the same simulation to count the engine's
// events per second.
package makespanbench
