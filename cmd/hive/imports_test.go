package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hivectl/hive/internal/testsupport"
)

func TestMain(m *testing.M) { os.Exit(testsupport.WithTempHome(m).Run()) }

const module = "github.com/hivectl/hive/internal/"

// allowed lists, for each package, the hive packages it may import. The
// pure core (engine, protocol, plan) imports none, and, with every package
// it depends on, only the standard library (plan's readers, under it, also
// read YAML); only
// cli composes the I/O packages into commands, and the runner the I/O of a
// run. A new edge is a design decision: make it here, with a reason.
var allowed = map[string][]string{
	// The vocabulary both machines share: spend, ceilings, reports, the
	// loop guard.
	"work": {},
	// Text shortened for a line: the first that says something, on one line.
	"words": {},
	// The exit codes of hive's commands, with the error that carries one.
	"exit": {},
	// The engine's vocabulary: its events, commands, checkpoints,
	// snapshot and exported state, which its callers and the journal
	// speak (raft's raftpb beside raft).
	"phase":  {"work"},
	"engine": {"engine/active", "engine/attend", "engine/budget", "engine/checkpoints", "engine/integrate", "engine/limits", "engine/pause", "engine/plans", "engine/rollover", "engine/sched", "engine/verify", "phase", "work"},
	// The engine's sub-machines, each with one job and its own state: the
	// dependency graph and ready queues (sched), what the run may spend and
	// has (budget), the phase verification (verify), how long hive ran the
	// run (active), when it stops for a human (attend), a live session's
	// handoff to a fresh one (rollover), the merges, resolvers and gates of
	// worktree mode (integrate), what it asks humans and how their answers
	// read (checkpoints), each plan's record and its agent's own transitions
	// (plans), the wait for a provider's limits (limits), a pause of the
	// whole team (pause).
	"engine/sched":       {"phase"},
	"engine/active":      {"phase"},
	"engine/attend":      {"phase"},
	"engine/budget":      {"phase", "work"},
	"engine/verify":      {"engine/budget", "phase"},
	"engine/rollover":    {"phase"},
	"engine/integrate":   {"phase", "work"},
	"engine/checkpoints": {"phase", "work"},
	"engine/plans":       {"engine/budget", "engine/checkpoints", "engine/integrate", "engine/rollover", "engine/sched", "phase", "work"},
	"engine/limits":      {"phase", "work"},
	"engine/pause":       {"phase"},

	"protocol": {"protocol/hivereport"},
	"plan":     {},
	"redact":   {},
	// Split from plan, on its model: the paths a plan names (planpath), a
	// file's frontmatter and the markup of its body, one file read
	// (parse), the .planning/ folder read (load), a phase checked as a
	// graph (validate).
	"plan/planpath":    {},
	"plan/markup":      {},
	"plan/frontmatter": {"plan", "plan/markup"},
	"plan/parse":       {"plan", "plan/frontmatter", "plan/markup", "plan/planpath"},
	"plan/load":        {"plan", "plan/parse", "plan/planpath"},
	"plan/validate":    {"plan", "plan/load", "plan/planpath"},
	// The config files' keys, their field tables and hive's types;
	// jsonfile: the JSON text beneath the keys (lines, errors, values).
	"config":          {"config/jsonfile"},
	"config/jsonfile": {},
	"journal":         {},
	"gitx":            {},
	// hive's worktrees, made, listed and cleared by git commands run
	// through gitx (its Repo, its lock).
	"gitx/worktrees": {"gitx"},
	// The lock files a killed git left in hive's worktrees and branches
	// (the common git dir is gitx's to find).
	"gitx/stalelocks": {"gitx"},
	"notify":          {},
	// What a phase run tells a human away from its terminal, with links
	// to answer on hive serve.
	"notify/phasenotify": {"config", "phase", "notify", "runner", "serve", "tui", "work"},
	"tracking":           {},
	"demo":               {},
	"testrun":            {},
	"pricing":            {},
	"handoff":            {},
	// A HIVE_REPORT's JSON, and the looser forms of one, read into a
	// work.Report; protocol finds where it stands among an agent's messages.
	"protocol/hivereport": {"work"},
	// gh's side of GitHub: issues in, how a pull request closes one.
	"github": {},
	// A developer's tool (make test-times): reads go test -json, no hive package.
	"testtimes": {},
	// Role contracts check a work.Report; they read their own files.
	"contract": {"work"},
	"index":    {"testrun"}, // the index reads test and build commands as the pipeline runs them
	"roles":    {"roleplan", "workflows"},
	// What hive makes of a shell-Hive .hive/ folder (its workflows are workflows' to parse).
	"shellhive": {"workflows"},
	// The journal-first loop both local hosts run around their machine.
	"journalfirst": {"journal"},
	// hive run's shell: the journal-first loop around the pipeline machine
	// and the executor of its commands, each a package of its own under
	// piperun, with phases run by the runner (in worktrees as
	// integration's Git says, made by worktrees; one run at a time: lock).
	"piperun": {"agent", "phase", "work", "gitx", "gitx/worktrees", "index", "journal", "journalfirst", "pipeline", "roleplan", "workflows", "plan/load", "pricing", "runner", "runner/integration", "runner/lock", "piperun/checks", "piperun/delivery", "piperun/evaluation", "piperun/phaserun", "piperun/postmortem", "piperun/roleagent", "piperun/rolecontext", "piperun/runjournal", "piperun/runreport"},
	// What hive run keeps in its journal beside the machine's events, and
	// a run read back from it (memory names the confidence record it keeps).
	"piperun/runjournal": {"confidence", "journal", "memory", "pipeline", "roleplan", "workflows"},
	// The account of a run, from its journal alone (its commits from git;
	// the screenshots kept where screenshots keeps them).
	"piperun/runreport": {"confidence", "gitx", "journal", "pipeline", "piperun/runjournal", "piperun/screenshots", "roleplan", "work", "workflows"},
	// The browser validator's screenshots its report lists, kept out of
	// the run's worktree: no hive package but the report's.
	"piperun/screenshots": {"work"},
	// One agent call outside the run's machine: its HIVE_REPORT read by
	// the protocol, its usage priced.
	"piperun/oneshot": {"agent", "pricing", "protocol", "protocol/hivereport", "work"},
	// The planner picks a new run's workflow in one call (oneshot), given
	// hive's index; what it chose is runjournal's record.
	"piperun/planner": {"agent", "gitx", "index", "piperun/oneshot", "piperun/runjournal", "roleplan", "roles", "workflows"},
	// hive's own lint (the plans read by load, checked by validate), tests
	// and build in a run's worktree (testrun finds and runs the project's
	// commands).
	"piperun/checks": {"gitx", "plan", "plan/load", "plan/validate", "roleplan", "testrun"},
	// The evaluators' verdicts (oneshot calls held to their contract) and
	// the computed confidence, from checks' runs and the run's journal.
	"piperun/evaluation": {"agent", "confidence", "contract", "gitx", "journal", "piperun/checks", "piperun/oneshot", "plan", "plan/load", "pricing", "roleplan", "roles", "workflows"},
	// What a role is told: its prompt (roles), the memory's warnings and
	// the context curated for it, journaled as runjournal's records; a
	// plan executor's briefing is the runner's prompt's.
	"piperun/rolecontext": {"confidence", "gitx", "index", "journal", "memory", "piperun/runjournal", "plan", "roleplan", "roles", "runner/prompt", "testrun", "workflows"},
	// A role's agent: its HIVE_REPORT read by the protocol and held to its
	// contract, its usage priced by oneshot's meter, its tool calls
	// fingerprinted as the runner's sessions do, its screenshots kept.
	"piperun/roleagent": {"agent", "contract", "gitx", "piperun/oneshot", "piperun/screenshots", "pricing", "protocol", "roleplan", "runner/sessions", "work"},
	// The implementers' phase, run by the runner (replay: the budget
	// checkpoint of its unfinished run; prompt: its plans' briefings).
	"piperun/phaserun": {"agent", "phase", "gitx", "journal", "plan", "roleplan", "runner", "runner/prompt", "runner/replay", "work"},
	// What a finished run leaves: its record in the memory, CLAUDE.md's
	// learnings (claudemd), the postmortem model's paragraph (oneshot,
	// told runreport's facts).
	"piperun/postmortem": {"agent", "claudemd", "gitx", "journal", "memory", "piperun/oneshot", "piperun/runjournal", "piperun/runreport", "pricing", "roleplan", "roles", "work", "workflows"},
	// The run's branch and what becomes of it: merged, pushed, or a pull
	// request opened and followed through gh (github), described by
	// runreport; the tracking files it restores are planning's, the
	// worktree it leaves worktrees'; what a watch found is split as the
	// machine's follow splits it.
	"piperun/delivery": {"github", "gitx", "gitx/worktrees", "journal", "pipeline/follow", "piperun/runjournal", "piperun/runreport", "roleplan", "runner/planning"},
	// The project's memory is read from hive run's journal and warns its roles.
	"memory": {"confidence", "journal", "pipeline", "roleplan", "workflows"},
	// hive's section of CLAUDE.md, and nothing else of it.
	"claudemd": {},
	// Computed confidence judges plans and runs as plain data (the
	// pipeline routes on it).
	"confidence": {},
	"agent":      {"redact", "work"}, // a turn's limit is the machines' vocabulary
	// The CLIs hive runs as agents (Claude Code, codex, aider, exec, the
	// sim), each a Launcher of agent's, its processes agent's to run.
	"agent/adapter": {"agent", "work"},
	// The pipeline decides like the engine and speaks its HIVE_REPORT, in
	// the words of roleplan: the vocabulary of hive run (its spec, events,
	// commands, checkpoints, snapshot), which callers and the journal use
	// without the machine; the workflows of roles it runs are workflows'.
	"workflows": {"words"},
	"roleplan":  {"confidence", "phase", "work", "workflows", "words"},
	"pipeline":  {"confidence", "engine", "pipeline/budget", "pipeline/findings", "pipeline/follow", "pipeline/jobs", "roleplan", "work", "workflows", "words"},
	// The machine's parts, each with its own state: its jobs and their
	// agenda (jobs), the budget as the run goes (budget), the reviewing
	// roles' findings (findings), the run's pull request followed (follow).
	"pipeline/jobs":     {"roleplan", "work", "workflows"},
	"pipeline/budget":   {"pipeline/jobs", "roleplan", "work"},
	"pipeline/findings": {"pipeline/jobs", "roleplan", "work", "workflows", "words"},
	"pipeline/follow":   {"pipeline/jobs", "roleplan", "words"},
	// The sim agent behind hive __sim: the entry point picks the bench
	// agent or a session, and hands the session's first prompt to a role
	// (roleplay) or to the plan's executor. Under it: the stream-json
	// dialect, the settings and faults, what may touch the repository, and
	// the session's process.
	"sim":            {"sim/benchagent", "sim/executor", "sim/faults", "sim/repo", "sim/roleplay", "sim/session"},
	"sim/stream":     {},
	"sim/faults":     {"sim/stream"},            // a setting is the context curve the stream reports
	"sim/repo":       {"plan", "plan/planpath"}, // a plan's paths and must_haves
	"sim/session":    {"sim/faults", "sim/repo", "sim/stream"},
	"sim/executor":   {"plan", "plan/parse", "plan/planpath", "sim/faults", "sim/repo", "sim/session"},
	"sim/roleplay":   {"sim/faults", "sim/repo", "sim/session"},
	"sim/benchagent": {"sim/faults", "sim/stream"},
	"scaffold":       {"config"},
	// The terminal screens show the machines' state and hand answers over
	// as values: they never drive the runner. Both ask in tuikit's answer
	// box and draw with its styles and text layout (a plan's state looks
	// the same on both; a spend is work's).
	"tui/tuikit": {"phase", "work"},
	// execute-phase's dashboard shows the engine's state (gitx: a plan's
	// branch; journal: the run it resumes) and hands answers over as
	// engine values.
	"tui": {"phase", "gitx", "journal", "tui/tuikit", "work"},
	// hive run's screen shows the pipeline's state, and the implementers'
	// plans in the engine's states.
	"tui/pipelinescreen": {"phase", "roleplan", "tui/tuikit", "workflows"},
	// The one path of a human's answer into a journal: hive answer's and
	// hive serve's (tui names the checkpoints as the terminal does).
	"answer": {"engine", "journal", "piperun/runjournal", "redact", "roleplan", "tui", "phase"},
	// What hive serve shows is read from the journals as hive status
	// reads them (runner/lock: which phase a hive process runs now; tui
	// names the checkpoints as the terminal does).
	"serve/views": {"engine", "journal", "pipeline", "roleplan", "runner/lock", "tui", "work", "phase"},
	// hive serve's pages render the views (tui: a limit's wait as the
	// terminal says it).
	"serve/pages": {"serve/views", "tui", "work"},
	// hive serve answers through answer and shows the views as its pages.
	"serve": {"answer", "redact", "serve/pages", "serve/views"},
	// execute-phase's loop: the engine, its journal, and the executors of
	// its commands, each a package of its own under runner (handoff: the
	// file a pause leaves, kept out of git; stalelocks: what a killed
	// agent's git left in a tree workers share).
	"runner": {"agent", "engine", "gitx", "gitx/stalelocks", "handoff", "journal", "journalfirst", "plan", "plan/load", "pricing", "runner/check", "runner/integration", "runner/lock", "runner/planning", "runner/prompt", "runner/replay", "runner/sessions", "runner/workspace", "work", "phase", "words"},
	// A run's engine rebuilt from its journal.
	"runner/replay": {"engine", "phase", "journal"},
	// The phase locks and their holders: no hive package.
	"runner/lock": {},
	// The planning files a run writes, views of the engine's state (the
	// handoff's and the tracking files' formats are their packages').
	"runner/planning": {"phase", "handoff", "plan", "plan/load", "tracking", "work"},
	// Spot-checks, must_haves, the verifier's report and the gate, read
	// from a plan's tree.
	"runner/check": {"gitx", "plan", "plan/parse", "plan/planpath"},
	// The integration branch and the plans' worktrees (made by worktrees,
	// cleared of stale git locks by stalelocks); a merge commit carries
	// the tracking files (planning).
	"runner/integration": {"phase", "gitx", "gitx/stalelocks", "gitx/worktrees", "plan", "plan/planpath", "runner/planning"},
	// What agents are told: the words of a live message are the
	// protocol's; the verifier is told where its report goes (check).
	"runner/prompt": {"phase", "gitx", "plan", "protocol", "runner/check", "work", "words"},
	// Agent sessions: their output read by the protocol, priced, and
	// told what prompt says.
	"runner/sessions": {"agent", "phase", "pricing", "protocol", "runner/prompt", "work", "words"},
	// A run's git work, and a worker's over a git remote, on the
	// integration branch, checked by check, writing planning's files (a
	// plan's worktree is worktrees' to make).
	"runner/workspace": {"phase", "gitx", "gitx/worktrees", "plan", "runner/check", "runner/integration", "runner/planning"},
	// hive clean: hive's worktrees (integration's names, listed and
	// removed by worktrees) of phases no live run locks.
	"runner/cleanup": {"gitx", "gitx/worktrees", "runner/integration", "runner/lock"},
	// hive bench runs its groups one after another, each a package of its
	// own, all speaking report's rows and options (report imports no hive
	// package). The groups are clients of the engine's and the runner's
	// public APIs. No fake model server: that is devbench's.
	"bench":        {"bench/budgetbench", "bench/makespanbench", "bench/pipelinebench", "bench/report", "bench/runnerbench", "bench/temporalbench"},
	"bench/report": {},
	// Random DAGs' plans in generated repositories, the agents' work
	// prepared as the bench agent (sim/benchagent) expects it.
	"bench/project": {"phase", "gitx", "plan", "plan/load", "sim/benchagent"},
	// The makespan and budget groups drive the engine alone on a virtual
	// clock.
	"bench/makespanbench": {"bench/project", "bench/report", "engine", "phase"},
	"bench/budgetbench":   {"bench/report", "engine", "phase"},
	// The runner's groups run generated projects through the real runner
	// and journal with sim agents (their modes and context curve); the
	// overhead group counts the engine's events with the makespan
	// group's simulation.
	"bench/runnerbench": {"agent", "agent/adapter", "bench/makespanbench", "bench/project", "bench/report", "engine", "phase", "journal", "runner", "runner/replay", "sim/benchagent", "sim/stream"},
	// The pipeline group drives the pipeline machine on its fixture
	// objectives and scores the roles with confidence.
	"bench/pipelinebench":            {"bench/pipelinebench/objectives", "bench/report", "confidence", "pipeline", "roleplan", "work", "workflows"},
	"bench/pipelinebench/objectives": {},
	// The temporal group runs a phase through the Temporal backend's
	// workflow, and locally as the runner's groups do.
	"bench/temporalbench": {"agent/adapter", "bench/project", "bench/report", "bench/runnerbench", "engine", "phase", "runner", "temporal"},
	// bench's tokens group, with the real claude against the fake model
	// server (a test program): hive-dev's, not the hive binary's. It runs
	// its phases as the runner's groups do (runnerbench, project); its
	// share row runs hive run (piperun) on the claude e2e test's health
	// service.
	"devbench": {"agent/adapter", "bench", "bench/project", "bench/report", "bench/runnerbench", "e2e/e2etest", "phase", "gitx", "journal", "piperun", "piperun/runreport", "pricing", "roleplan", "testsupport/fakeanthropic", "testsupport/journaltest"},
	"cli":      {"*"},
	// What the config and a command's flags make of a run, for the local
	// host and Temporal's: its agents, prices, budget, journal, workflow.
	"runconfig": {"agent", "agent/adapter", "config", "phase", "exit", "github", "gitx", "journal", "memory", "piperun", "piperun/planner", "piperun/runjournal", "plan", "pricing", "redact", "roleplan", "runner", "runner/integration", "runner/lock", "runner/replay", "shellhive", "work", "workflows"},
	// What a hive worker serves for hive run on Temporal: its workflow's
	// commands, carried out by piperun, and its phases, run by the runner
	// as phaserun runs them (the plans' briefings, the budget's raise);
	// the run's journal view is runjournal's; the worktree a worker
	// leaves is worktrees' to remove.
	"runworker": {"agent", "config", "engine", "exit", "gitx", "gitx/worktrees", "journal", "piperun", "piperun/phaserun", "piperun/runjournal", "redact", "roleplan", "runconfig", "runner", "runner/integration", "runner/workspace", "temporal", "temporal/objective", "workflows", "phase"},
	// hive's client of the Temporal server: it starts, follows and answers
	// the runs of both machines, begun in the folder as local runs are
	// (and hive serve's views of the phases' workflows: serve/views).
	"temporalhost": {"config", "engine", "exit", "gitx", "journal", "piperun", "piperun/runjournal", "plan", "redact", "roleplan", "runconfig", "runner", "runner/lock", "runner/workspace", "runworker", "serve/views", "temporal", "temporal/objective", "work", "phase", "words"},
	// A run as plain lines: execute-phase's and hive run's, live or
	// replayed from a journal (hive run's records: runjournal), hive
	// report (runreport), and agents' logs (hive run's with its pipeline
	// view: pipelinescreen; text as the screens wrap it: tuikit).
	"lines": {"agent/adapter", "confidence", "engine", "gitx", "journal", "pipeline", "piperun", "piperun/runjournal", "piperun/runreport", "plan", "roleplan", "runner", "tui", "tui/pipelinescreen", "tui/tuikit", "work", "phase", "words"},
	// What every run spent, by role and model, read from the journals.
	"costs": {"phase", "journal", "roleplan", "runconfig", "work"},
	// The command reference is written from cli's command tree.
	"cli/gendocs": {"cli"},
	// The Temporal backend's workflows are the machines, the engine's
	// (temporal) and the pipeline's (temporal/objective, whose phase is a
	// child workflow of the engine's); their scripts are the machines',
	// read by one test helper each for the machine's own test and
	// Temporal's.
	"temporal":                {"engine", "journal", "pipeline", "roleplan", "phase"},
	"temporal/objective":      {"engine", "pipeline", "roleplan", "phase", "temporal", "work"},
	"engine/enginescript":     {"phase", "work"},
	"pipeline/pipelinescript": {"confidence", "roleplan", "work", "workflows"},
	"e2e/claude":              {}, // tests only
	"e2e/codex":               {}, // tests only
	// The e2e fixtures: phases for the runner, and hive run's objective
	// with the checks of a pipeline run, shared by each CLI's tests, and
	// the fake model's rules for that run (fakeanthropic).
	"e2e/e2etest":               {"agent", "phase", "gitx", "journal", "piperun", "plan", "plan/load", "plan/validate", "roleplan", "runner", "testsupport/fakeanthropic", "work", "workflows"},
	"testsupport":               {},
	"testsupport/fakeanthropic": {},
	"testsupport/fakeopenai":    {"testsupport"},
	"testsupport/fakegithub":    {"testsupport"},
	"testsupport/temporaltest":  {"phase"},
	"testsupport/gittest":       {"gitx"},
	"testsupport/journaltest":   {"journal"},
	"testsupport/runnertest":    {"gitx", "gitx/worktrees", "phase", "plan", "plan/load", "plan/validate", "testsupport/gittest"},
	"testsupport/tuitest":       {},
	"testsupport/plantest":      {"plan"},
	// Runs the sim as a child process for the tests of its packages.
	"testsupport/simtest": {"protocol", "protocol/hivereport", "sim"},
}

// pure packages may depend, transitively, on nothing outside the standard
// library but what is listed.
var pure = map[string][]string{
	"words":      {},
	"work":       {},
	"phase":      {module + "work"},
	"engine":     {module + "engine/active", module + "engine/attend", module + "engine/budget", module + "engine/checkpoints", module + "engine/integrate", module + "engine/limits", module + "engine/pause", module + "engine/plans", module + "engine/rollover", module + "engine/sched", module + "engine/verify", module + "phase", module + "work"},
	"protocol":   {module + "protocol/hivereport", module + "work"},
	"plan":       {},
	"workflows":  {module + "words"},
	"roleplan":   {module + "phase", module + "confidence", module + "work", module + "workflows", module + "words"},
	"pipeline":   {module + "phase", module + "confidence", module + "pipeline/budget", module + "pipeline/findings", module + "pipeline/follow", module + "pipeline/jobs", module + "roleplan", module + "work", module + "workflows", module + "words"},
	"contract":   {module + "work"},
	"pricing":    {},
	"handoff":    {},
	"shellhive":  {module + "workflows", module + "words"},
	"claudemd":   {},
	"confidence": {},
	// Split from the pipeline, and as pure.
	"pipeline/jobs":     {module + "phase", module + "confidence", module + "roleplan", module + "work", module + "workflows", module + "words"},
	"pipeline/budget":   {module + "phase", module + "confidence", module + "pipeline/jobs", module + "roleplan", module + "work", module + "workflows", module + "words"},
	"pipeline/findings": {module + "phase", module + "confidence", module + "pipeline/jobs", module + "roleplan", module + "work", module + "workflows", module + "words"},
	"pipeline/follow":   {module + "phase", module + "confidence", module + "pipeline/jobs", module + "roleplan", module + "work", module + "workflows", module + "words"},
	// The engine's sub-machines, as pure.
	"engine/sched":       {module + "phase", module + "work"},
	"engine/budget":      {module + "phase", module + "work"},
	"engine/verify":      {module + "engine/budget", module + "phase", module + "work"},
	"engine/active":      {module + "phase", module + "work"},
	"engine/attend":      {module + "phase", module + "work"},
	"engine/rollover":    {module + "phase", module + "work"},
	"engine/integrate":   {module + "phase", module + "work"},
	"engine/checkpoints": {module + "phase", module + "work"},
	"engine/plans":       {module + "engine/budget", module + "engine/checkpoints", module + "engine/integrate", module + "engine/rollover", module + "engine/sched", module + "phase", module + "work"},
	"engine/limits":      {module + "phase", module + "work"},
	"engine/pause":       {module + "phase", module + "work"},
	// Split from protocol, and as pure.
	"protocol/hivereport": {module + "work"},
	// Split from plan, and as pure; its readers read YAML.
	"plan/planpath":    {},
	"plan/markup":      {},
	"plan/frontmatter": {module + "plan", module + "plan/markup", "gopkg.in/yaml.v3"},
	"plan/parse":       {module + "plan", module + "plan/frontmatter", module + "plan/markup", module + "plan/planpath", "gopkg.in/yaml.v3"},
	"plan/load":        {module + "plan", module + "plan/frontmatter", module + "plan/markup", module + "plan/parse", module + "plan/planpath", "gopkg.in/yaml.v3"},
	"plan/validate":    {module + "plan", module + "plan/frontmatter", module + "plan/load", module + "plan/markup", module + "plan/parse", module + "plan/planpath", "gopkg.in/yaml.v3"},
}

func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
	}
	return strings.Fields(string(out))
}

// TestImportRules holds every package of hive to its allow-list.
func TestImportRules(t *testing.T) {
	lines := goList(t, "-f", "{{.ImportPath}}|{{join .Imports \",\"}}", "./internal/...")
	if len(lines) < len(allowed)-2 {
		t.Fatalf("go list found %d packages: is the test running in cmd/hive?", len(lines))
	}
	for _, line := range lines {
		path, imports, _ := strings.Cut(line, "|")
		name := strings.TrimPrefix(path, module)
		allow, known := allowed[name]
		if !known {
			t.Errorf("%s is a new package: add it to the allow-list of %s with what it may import", name, "cmd/hive/imports_test.go")
			continue
		}
		if len(allow) == 1 && allow[0] == "*" {
			continue
		}
		for _, imp := range strings.Split(imports, ",") {
			dep, ok := strings.CutPrefix(imp, module)
			if ok && !contains(allow, dep) {
				t.Errorf("%s imports %s, which its allow-list (%v) does not name", name, dep, allow)
			}
		}
	}
	for name, extra := range pure {
		for _, dep := range goList(t, "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./internal/"+name) {
			if dep != module+name && !contains(extra, dep) {
				t.Errorf("%s depends on %s: it may use only the standard library%s", name, dep, also(extra))
			}
		}
	}
}

// TestNoTestCodeInHive: the hive binary links no test program (the fake
// model and GitHub servers, the e2e fixtures, devbench's groups, which
// need them, the machines' script readers). cmd/hive-dev is hive with those.
func TestNoTestCodeInHive(t *testing.T) {
	deps := goList(t, "-deps", "./cmd/hive")
	if !contains(deps, module+"cli") {
		t.Fatalf("go list -deps ./cmd/hive: %v: is the test running in cmd/hive?", deps)
	}
	for _, dep := range deps {
		name, ours := strings.CutPrefix(dep, module)
		if ours && (strings.HasPrefix(name, "testsupport") || strings.HasPrefix(name, "e2e/") || name == "devbench" || strings.HasSuffix(name, "script")) {
			t.Errorf("the hive binary links %s, test code: import it from a _test file or cmd/hive-dev", dep)
		}
	}
}

// TestNoFaultHooksInHive: the hooks by which the tests kill hive at a
// crash point or fill its disk (runner.CrashAt, integration.CrashAt,
// planning.CrashAt, gitx.AfterCommand, runconfig.JournalFaults) are built
// only with the faults tag, which make test gives the tests: the hive
// binary has none.
func TestNoFaultHooksInHive(t *testing.T) {
	hooks := regexp.MustCompile(`(?m)^var (CrashAt|AfterCommand|JournalFaults)\b`)
	checked := 0
	for _, line := range goList(t, "-deps", "-f", "{{if not .Standard}}{{.Dir}}|{{join .GoFiles \",\"}}{{end}}", "./cmd/hive") {
		dir, files, _ := strings.Cut(line, "|")
		if !strings.Contains(dir, "internal") {
			continue
		}
		for _, f := range strings.Split(files, ",") {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			checked++
			if m := hooks.Find(data); m != nil {
				t.Errorf("%s declares %s in the hive binary: put it behind the faults build tag", filepath.Join(dir, f), m)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("checked %d files of the hive binary: is go list -deps ./cmd/hive right?", checked)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func also(extra []string) string {
	if len(extra) == 0 {
		return ""
	}
	sorted := append([]string(nil), extra...)
	sort.Strings(sorted)
	return " and " + strings.Join(sorted, ", ")
}
