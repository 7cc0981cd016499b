// Package benchagent is the sim as a bench agent: HIVE_SIM_MODE=instant or
// checkpoint (EnvMode) turns `hive __sim` into an agent that does no file
// or git work at all, so that `hive bench` measures hive rather than the
// sim. In instant mode it prints PLAN COMPLETE at once (after
// HIVE_SIM_HOLD); in checkpoint mode it raises one human-verify checkpoint
// first, noting when it asked and when it got the answer in the file named
// by HIVE_SIM_TRACE. The plan's SUMMARY and commit must already exist
// (`hive bench` prepares them and lists the commits in CommitsFile).
package benchagent
