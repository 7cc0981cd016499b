package config

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivectl/hive/internal/config/jsonfile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func mustParse(t *testing.T, data string) *Config {
	t.Helper()
	c, err := Parse([]byte(data))
	if err != nil {
		t.Fatalf("Parse(%s): %v", data, err)
	}
	return c
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// writeRepo makes a repository root holding the given files.
func writeRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// known returns c without its notes, which name lines and legacy keys and so
// differ between a file and its rewrite.
func known(c *Config) Config {
	k := *c
	k.notes = nil
	return k
}

func TestDefaults(t *testing.T) {
	want := Default()
	checks := []struct {
		name string
		got  any
		want any
	}{
		{"mode", want.Mode, "interactive"},
		{"depth", want.Depth, "standard"},
		{"workflow", [4]bool{want.Workflow.Research, want.Workflow.PlanCheck, want.Workflow.Verifier, want.Workflow.UseWorktrees}, [4]bool{true, true, true, true}},
		{"planning", want.Planning.CommitDocs && !want.Planning.SearchGitignored, true},
		{"parallelization.enabled", want.Parallelization.Enabled, true},
		{"parallelization.plan_level", want.Parallelization.PlanLevel, true},
		{"parallelization.task_level", want.Parallelization.TaskLevel, false},
		{"parallelization.skip_checkpoints", want.Parallelization.SkipCheckpoints, true},
		{"parallelization.max_concurrent_agents", want.Parallelization.MaxConcurrentAgents, 3},
		{"parallelization.min_plans_for_parallel", want.Parallelization.MinPlansForParallel, 2},
		{"parallelization.dynamic_scheduling", want.Parallelization.DynamicScheduling, false},
		{"teams.execution_team", want.Teams.ExecutionTeam, true},
		{"gates", want.Gates, Gates{true, true, true, true, true, true, true, true, "", nil}},
		{"safety", want.Safety, Safety{true, true, nil}},
		{"git.branching_strategy", want.Git.BranchingStrategy, "none"},
		{"git.worktree_dir", want.Git.WorktreeDir, ""},
		{"timeouts.stall", want.Timeouts.Stall, 5 * time.Minute},
		{"retries.agent", want.Retries.Agent, 1},
		{"model(default)", want.Model("default"), ModelSpec{CLI: "claude"}},
		{"model(architect)", want.Model("architect"), ModelSpec{CLI: "claude"}},
		{"notifications", want.Notifications, Notifications{Bell: true, Desktop: true}},
		{"secrets.env", want.Secrets.Env, []string{}},
		{"worktree_setup.copy", want.Workflow.WorktreeSetup.Copy, []string{}},
		{"MaxConcurrent", want.MaxConcurrent(), 3},
		{"Dynamic", want.Dynamic(), false},
		{"TeamMode", want.TeamMode(), true},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}

	// Every way of saying "nothing configured" gives the defaults.
	loaded, err := Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string]*Config{
		"Load without files": loaded,
		"{}":                 mustParse(t, "{}"),
		"seed 000 §4.2":      mustParse(t, string(readTestdata(t, "gsd-seed-4.2.json"))),
		"empty file":         mustParse(t, " \n"),
		"byte-order mark":    mustParse(t, "\xef\xbb\xbf{}"),
		"nulls":              mustParse(t, `{"mode": null, "parallelization": null, "timeouts": {"stall": null}}`),
	}
	for name, got := range sources {
		if !reflect.DeepEqual(known(got), known(want)) {
			t.Errorf("%s: got %+v, want the defaults", name, got)
		}
	}
	if n := sources["seed 000 §4.2"].Notes(); len(n) != 0 {
		t.Errorf("the seed's own file gives notes: %q", n)
	}
}

func TestParallelizationForms(t *testing.T) {
	tests := []struct {
		name          string
		json          string
		enabled       bool
		maxAgents     int
		maxConcurrent int
		minPlans      int
	}{
		{"boolean true", `{"parallelization": true}`, true, 3, 3, 2},
		{"boolean false", `{"parallelization": false}`, false, 3, 1, 2},
		{"object", `{"parallelization": {"enabled": true, "max_concurrent_agents": 5, "min_plans_for_parallel": 3}}`, true, 5, 5, 3},
		{"object disabled", `{"parallelization": {"enabled": false, "max_concurrent_agents": 8}}`, false, 8, 1, 2},
		{"object without enabled", `{"parallelization": {"max_concurrent_agents": 4}}`, true, 4, 4, 2},
		{"plan level off", `{"parallelization": {"plan_level": false, "max_concurrent_agents": 4}}`, true, 4, 1, 2},
		{"whole number written 6.0", `{"parallelization": {"max_concurrent_agents": 6.0}}`, true, 6, 6, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustParse(t, tt.json)
			p := c.Parallelization
			if p.Enabled != tt.enabled || p.MaxConcurrentAgents != tt.maxAgents || p.MinPlansForParallel != tt.minPlans {
				t.Errorf("got %+v", p)
			}
			if got := c.MaxConcurrent(); got != tt.maxConcurrent {
				t.Errorf("MaxConcurrent() = %d, want %d", got, tt.maxConcurrent)
			}
			if !p.PlanLevel && tt.name != "plan level off" || p.TaskLevel || !p.SkipCheckpoints {
				t.Errorf("other sub-keys are not the defaults: %+v", p)
			}
		})
	}
}

func TestLegacyTopLevelKeys(t *testing.T) {
	tests := []struct {
		name      string
		json      string
		dynamic   bool // Parallelization.DynamicScheduling
		branching string
		commit    bool
		note      string
	}{
		{"dynamic_scheduling", `{"dynamic_scheduling": true}`, true, "none", true,
			"line 1: dynamic_scheduling: read as parallelization.dynamic_scheduling, where a rewrite moves it"},
		{"dynamic_scheduling with boolean parallelization", `{"parallelization": true, "dynamic_scheduling": true}`, true, "none", true, ""},
		{"nested dynamic_scheduling wins", `{"dynamic_scheduling": true, "parallelization": {"dynamic_scheduling": false}}`, false, "none", true,
			"line 1: dynamic_scheduling: ignored, since parallelization.dynamic_scheduling is set too; a rewrite drops it"},
		{"object without the key keeps the top-level one", `{"dynamic_scheduling": true, "parallelization": {"enabled": true}}`, true, "none", true, ""},
		{"branching_strategy", `{"branching_strategy": "milestone"}`, false, "milestone", true,
			"line 1: branching_strategy: read as git.branching_strategy, where a rewrite moves it"},
		{"nested branching_strategy wins", `{"branching_strategy": "phase", "git": {"branching_strategy": "none"}}`, false, "none", true, ""},
		{"commit_docs", `{"commit_docs": false}`, false, "none", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustParse(t, tt.json)
			if c.Parallelization.DynamicScheduling != tt.dynamic || c.Git.BranchingStrategy != tt.branching || c.Planning.CommitDocs != tt.commit {
				t.Errorf("got dynamic=%v branching=%q commit_docs=%v", c.Parallelization.DynamicScheduling, c.Git.BranchingStrategy, c.Planning.CommitDocs)
			}
			if tt.note != "" && !contains(c.Notes(), tt.note) {
				t.Errorf("notes %q lack %q", c.Notes(), tt.note)
			}
			// A rewrite puts the key in its nested place and drops the old one.
			out, err := c.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range legacyKeys {
				if bytes.Contains(out, []byte("\n  \""+l.key+"\"")) {
					t.Errorf("rewrite keeps top-level %s:\n%s", l.key, out)
				}
			}
		})
	}

	// Dynamic scheduling needs team mode (seed 000 §4.3).
	c := mustParse(t, `{"dynamic_scheduling": true, "teams": {"execution_team": false}}`)
	if c.Dynamic() || c.TeamMode() {
		t.Errorf("Dynamic() = %v, TeamMode() = %v without an execution team", c.Dynamic(), c.TeamMode())
	}
	if c := mustParse(t, `{"dynamic_scheduling": true}`); !c.Dynamic() {
		t.Error("Dynamic() = false with dynamic_scheduling and team mode")
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

// A config.json from a later GSD version: hive reads what it knows and notes
// the rest, without an error.
func TestOtherGSDVersion(t *testing.T) {
	root := writeRepo(t, map[string]string{PlanningFile: string(readTestdata(t, "gsd-other-version.json"))})
	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != "yolo" || c.Planning.CommitDocs || !c.Parallelization.Enabled || !c.Dynamic() ||
		c.Git.BranchingStrategy != "phase" || c.Workflow.Research || c.Workflow.UseWorktrees {
		t.Errorf("known keys misread: %+v", c)
	}
	wantNotes := []string{
		".planning/config.json:3: granularity: not used by hive; kept as is",
		`.planning/config.json:4: model_profile: GSD's model profile; hive uses it for a Claude role whose model "models" does not set (hive models shows which)`,
		`.planning/config.json:5: model_overrides: GSD's per-agent models; hive uses them for a Claude role whose model "models" does not set (hive models shows which)`,
		".planning/config.json:8: commit_docs: read as planning.commit_docs, where a rewrite moves it",
		".planning/config.json:10: dynamic_scheduling: read as parallelization.dynamic_scheduling, where a rewrite moves it",
		".planning/config.json:11: branching_strategy: read as git.branching_strategy, where a rewrite moves it",
		".planning/config.json:12: context_window: not used by hive; kept as is",
		".planning/config.json:13: brave_search: not used by hive; kept as is",
		".planning/config.json:18: workflow.auto_advance: not used by hive; kept as is",
		".planning/config.json:19: workflow.nyquist_validation: not used by hive; kept as is",
		".planning/config.json:21: workflow.subagent_timeout: not used by hive; kept as is",
		".planning/config.json:24: git.base_branch: not used by hive; kept as is",
		".planning/config.json:25: git.phase_branch_template: not used by hive; kept as is",
		".planning/config.json:26: git.milestone_branch_template: not used by hive; kept as is",
		".planning/config.json:27: git.quick_branch_template: not used by hive; kept as is",
		".planning/config.json:29: hooks: not used by hive; kept as is",
		".planning/config.json:32: agent_skills: not used by hive; kept as is",
	}
	if got := c.Notes(); !reflect.DeepEqual(got, wantNotes) {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantNotes, "\n"))
	}
}

func TestValidationErrors(t *testing.T) {
	tests := []struct {
		name string
		file string // PlanningFile by default
		json string
		want string // the whole error message
	}{
		{"agents below range", "", `{
  "mode": "interactive",
  "depth": "standard",
  "parallelization": {
    "enabled": true,
    "plan_level": true,
    "max_concurrent_agents": -2
  }
}`, ".planning/config.json:7: parallelization.max_concurrent_agents: -2 is not allowed; use a whole number from 1 to 64"},
		{"agents above range", "", "{\"parallelization\": {\n\"max_concurrent_agents\": 65}}",
			".planning/config.json:2: parallelization.max_concurrent_agents: 65 is not allowed; use a whole number from 1 to 64"},
		{"agents fractional", "", `{"parallelization": {"max_concurrent_agents": 2.5}}`,
			".planning/config.json:1: parallelization.max_concurrent_agents: 2.5 is not allowed; use a whole number from 1 to 64"},
		{"agents as a string", "", `{"parallelization": {"max_concurrent_agents": "3"}}`,
			`.planning/config.json:1: parallelization.max_concurrent_agents: "3" is not allowed; use a whole number from 1 to 64`},
		{"min plans zero", "", `{"parallelization": {"min_plans_for_parallel": 0}}`,
			".planning/config.json:1: parallelization.min_plans_for_parallel: 0 is not allowed; use a whole number from 1 to 1000"},
		{"parallelization as a string", "", `{"parallelization": "yes"}`,
			`.planning/config.json:1: parallelization: "yes" is not allowed; use true, false or an object`},
		{"boolean as a string", "", "{\n  \"workflow\": {\n    \"research\": \"yes\"\n  }\n}",
			`.planning/config.json:3: workflow.research: "yes" is not allowed; use true or false`},
		{"section as a list", "", `{"gates": [true]}`,
			`.planning/config.json:1: gates: [true] is not allowed; use an object`},
		{"stall zero", HiveFile, `{"timeouts": {"stall": "0s"}}`,
			`.hive/config.json:1: timeouts.stall: "0s" is not allowed; use a duration such as "5m" or "90s", or a number of seconds, greater than 0`},
		{"stall negative seconds", HiveFile, `{"timeouts": {"stall": -5}}`,
			`.hive/config.json:1: timeouts.stall: -5 is not allowed; use a duration such as "5m" or "90s", or a number of seconds, greater than 0`},
		{"stall not a duration", HiveFile, `{"timeouts": {"stall": "soon"}}`,
			`.hive/config.json:1: timeouts.stall: "soon" is not allowed; use a duration such as "5m" or "90s", or a number of seconds, greater than 0`},
		{"branching strategy", "", "{\n\"git\": {\"branching_strategy\": \"trunk\"}}",
			`.planning/config.json:2: git.branching_strategy: "trunk" is not allowed; use none, phase or milestone`},
		{"top-level branching strategy", "", `{"branching_strategy": "Phase"}`,
			`.planning/config.json:1: branching_strategy: "Phase" is not allowed; use none, phase or milestone`},
		{"retries negative", HiveFile, `{"retries": {"agent": -1}}`,
			".hive/config.json:1: retries.agent: -1 is not allowed; use a whole number from 0 to 100"},
		{"model cli", HiveFile, "{\"models\": {\n  \"architect\": {\"cli\": \"gpt\", \"model\": \"o3\"}\n}}",
			`.hive/config.json:2: models.architect.cli: "gpt" is not allowed; use claude, codex, aider, exec or sim`},
		{"model entry an empty name", HiveFile, `{"models": {"architect": " "}}`,
			`.hive/config.json:1: models.architect: " " is not allowed; use a model name such as "sonnet", or an object such as {"cli": "claude", "model": "sonnet"}`},
		{"model entry a number", HiveFile, `{"models": {"architect": 4}}`,
			`.hive/config.json:1: models.architect: 4 is not allowed; use an object such as {"cli": "claude", "model": "sonnet"}, or a model name such as "sonnet"`},
		{"model args", HiveFile, `{"models": {"default": {"args": "--verbose"}}}`,
			`.hive/config.json:1: models.default.args: "--verbose" is not allowed; use a list of strings, such as [".env"]`},
		{"model env", HiveFile, `{"models": {"default": {"env": {"DEBUG": 1}}}}`,
			`.hive/config.json:1: models.default.env: {"DEBUG":1} is not allowed; use an object of strings, such as {"NAME": "value"}`},
		{"long value shortened", "", `{"mode": ["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"]}`,
			`.planning/config.json:1: mode: ["` + strings.Repeat("a", 58) + `… is not allowed; use a string`},
		{"trailing comma", "", "{\n  \"mode\": \"yolo\",\n}\n",
			".planning/config.json:3: invalid JSON: invalid character '}' looking for beginning of object key string (is there a comma before it? JSON allows no trailing commas)"},
		{"comment", "", "{\n  // GSD settings\n  \"mode\": \"yolo\"\n}\n",
			".planning/config.json:2: invalid JSON: invalid character '/' looking for beginning of object key string (JSON allows no comments)"},
		{"truncated", "", "{\n  \"mode\": \"yolo\"",
			".planning/config.json:2: invalid JSON: unexpected end of JSON input"},
		{"not an object", "", `["mode"]`,
			".planning/config.json:1: a JSON array is not allowed; use a JSON object"},
		{"null", "", `null`,
			".planning/config.json:1: null is not allowed; use a JSON object"},
		{"every bad value at once", "", "{\n\"mode\": 1,\n\"retries\": {\"agent\": \"x\"}\n}",
			".planning/config.json:2: mode: 1 is not allowed; use a string\n" +
				`.planning/config.json:3: retries.agent: "x" is not allowed; use a whole number from 0 to 100`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := tt.file
			if file == "" {
				file = PlanningFile
			}
			_, err := Load(writeRepo(t, map[string]string{file: tt.json}))
			if err == nil {
				t.Fatal("Load succeeded")
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", err, tt.want)
			}
			var ce *jsonfile.Error
			if !errors.As(err, &ce) || ce.File != file || ce.Line == 0 {
				t.Errorf("error %#v does not name the file and line", ce)
			}
			// Parse names no file but still the line and the key.
			_, err = Parse([]byte(tt.json))
			if err == nil || !strings.HasPrefix(err.Error(), "line ") {
				t.Errorf("Parse error %q does not start with the line", err)
			}
		})
	}
}

func TestLoadOverlay(t *testing.T) {
	root := writeRepo(t, map[string]string{
		PlanningFile: `{
  "mode": "yolo",
  "parallelization": {"max_concurrent_agents": 4, "isolation": "none"},
  "models": {"architect": {"cli": "codex"}, "tester": {"cli": "sim"}},
  "granularity": "coarse"
}`,
		HiveFile: string(readTestdata(t, "hive.json")),
	})
	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != "yolo" || c.Parallelization.MaxConcurrentAgents != 4 {
		t.Errorf("keys of .planning/config.json lost: %+v", c)
	}
	if c.Timeouts.Stall != 90*time.Second || c.Retries.Agent != 2 || c.Gates.PostMergeCommand != "go test ./..." ||
		c.Notifications.Desktop || !c.Notifications.Bell || !reflect.DeepEqual(c.Workflow.WorktreeSetup.Copy, []string{".env"}) {
		t.Errorf("keys of .hive/config.json lost: %+v", c)
	}
	// A role in .hive replaces the same role; others stay.
	if got := c.Model("architect"); !reflect.DeepEqual(got, ModelSpec{CLI: "claude", Model: "opus"}) {
		t.Errorf("architect = %+v", got)
	}
	if got := c.Model("tester"); !reflect.DeepEqual(got, ModelSpec{CLI: "sim"}) {
		t.Errorf("tester = %+v", got)
	}
	if !contains(c.Notes(), ".planning/config.json:5: granularity: not used by hive; kept as is") {
		t.Errorf("notes %q", c.Notes())
	}
}

func TestModel(t *testing.T) {
	c := mustParse(t, string(readTestdata(t, "hive.json")))
	tests := []struct {
		role string
		want ModelSpec
	}{
		{"default", ModelSpec{CLI: "claude", Model: "sonnet"}},
		{"architect", ModelSpec{CLI: "claude", Model: "opus"}},
		{"documenter", ModelSpec{CLI: "claude", Model: "haiku"}}, // inherits the cli
		{"reviewer", ModelSpec{CLI: "claude", Model: "sonnet"}},  // no entry: the default
		{"evaluator", ModelSpec{CLI: "exec", Path: "./scripts/evaluate.sh", // another cli inherits no model
			Env: map[string]string{"EVAL_STRICT": "1"}}},
		{"implementer", ModelSpec{CLI: "codex", Model: "gpt-5-codex", Args: []string{"--dangerously-bypass-approvals-and-sandbox"}}},
	}
	for _, tt := range tests {
		if got := c.Model(tt.role); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Model(%q) = %+v, want %+v", tt.role, got, tt.want)
		}
	}
	// Without a default entry the built-in one applies.
	bare := &Config{Models: map[string]ModelSpec{"tester": {Model: "haiku"}}}
	if got := bare.Model("tester"); !reflect.DeepEqual(got, ModelSpec{CLI: "claude", Model: "haiku"}) {
		t.Errorf("Model without default = %+v", got)
	}
	// The result shares no memory with the config.
	m := c.Model("implementer")
	m.Args[0] = "changed"
	if c.Models["implementer"].Args[0] == "changed" {
		t.Error("Model returns the config's own slice")
	}
}

// The rewrite of a config from another GSD version: known keys in the seed's
// order, legacy keys moved, unknown keys kept at every level. Regenerate the
// golden file with go test ./internal/config -run TestMarshalGolden -update.
func TestMarshalGolden(t *testing.T) {
	for _, name := range []string{"gsd-other-version", "hive"} {
		t.Run(name, func(t *testing.T) {
			c := mustParse(t, string(readTestdata(t, name+".json")))
			got, err := c.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Marshal differs from %s:\n%s", golden, got)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	inputs := map[string]string{
		"defaults":      "{}",
		"seed":          string(readTestdata(t, "gsd-seed-4.2.json")),
		"other version": string(readTestdata(t, "gsd-other-version.json")),
		"hive":          string(readTestdata(t, "hive.json")),
		"nested unknown": `{
  "parallelization": {"enabled": false, "isolation": "worktree", "max_concurrent_agents": 7},
  "workflow": {"worktree_setup": {"copy": [], "symlink": ["node_modules"]}},
  "models": {"default": {"cli": "codex", "reasoning": {"effort": "high"}}},
  "zeta": 1e2, "alpha": {"b": [1, {"c": null}], "a": "<&>"}
}`,
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			first := mustParse(t, in)
			out, err := first.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			second := mustParse(t, string(out))
			if !reflect.DeepEqual(known(first), known(second)) {
				t.Errorf("round trip changed the config:\n%+v\n%+v\nvia:\n%s", first, second, out)
			}
			again, err := second.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, again) {
				t.Errorf("second rewrite differs:\n%s\n%s", out, again)
			}
		})
	}

	// The unknown keys, top-level and nested, are in the rewrite as written.
	c := mustParse(t, inputs["nested unknown"])
	out, _ := c.Marshal()
	for _, want := range []string{
		"\n    \"isolation\": \"worktree\"\n  },",
		"\"symlink\": [\n        \"node_modules\"\n      ]",
		"\"reasoning\": {\n        \"effort\": \"high\"\n      }",
		"\n  \"alpha\": {\n    \"b\": [\n      1,\n      {\n        \"c\": null\n      }\n    ],\n    \"a\": \"<&>\"\n  },\n  \"zeta\": 1e2\n}\n",
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("rewrite lacks %q:\n%s", want, out)
		}
	}
}

// TestBudgetPricingAndGuard: the keys of budgets and models, read, written
// back unchanged, and refused with the fix when wrong.
func TestBudgetPricingAndGuard(t *testing.T) {
	in := `{"models": {"default": {"cli": "claude", "model": "opus", "ladder": ["opus", "sonnet"]}},
 "budget": {"usd": 12.5, "tokens": 2000000, "plan_usd": 3, "roles": {"architect": 2, "implementer": 8.5}},
 "pricing": {"my-model": {"input": 0.5, "output": 1.5}},
 "loop_guard": {"warn_repeat": 4, "max_calls": 100}}`
	c := mustParse(t, in)
	if c.Budget.USD != 12.5 || c.Budget.Tokens != 2000000 || c.Budget.PlanUSD != 3 || c.Budget.Roles["implementer"] != 8.5 {
		t.Errorf("budget = %+v", c.Budget)
	}
	if p := c.Pricing["my-model"]; p.Input != 0.5 || p.Output != 1.5 {
		t.Errorf("pricing = %+v", c.Pricing)
	}
	if c.LoopGuard.WarnRepeat != 4 || c.LoopGuard.MaxCalls != 100 {
		t.Errorf("loop_guard = %+v", c.LoopGuard)
	}
	if got := c.Model("executor").Ladder; !slices.Equal(got, []string{"opus", "sonnet"}) {
		t.Errorf("executor ladder inherited from default = %v", got)
	}
	out, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	again := mustParse(t, string(out))
	if again.Budget.USD != 12.5 || again.Budget.Roles["architect"] != 2 || again.Pricing["my-model"].Output != 1.5 || again.LoopGuard.WarnRepeat != 4 {
		t.Errorf("round trip lost a key:\n%s", out)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"budget": {"usd": -1}}`, `budget.usd: -1 is not allowed; use a number of dollars, 0 or more (0: no limit)`},
		{`{"budget": {"roles": {"tester": -2}}}`, `budget.roles: {"tester":-2} is not allowed; use an object of dollars per role, such as {"architect": 2, "implementer": 10}`},
		{`{"budget": {"usd": "ten"}}`, `budget.usd: "ten" is not allowed; use a number of dollars, 0 or more (0: no limit)`},
		{`{"pricing": {"m": 3}}`, `pricing.m: 3 is not allowed; use an object such as {"input": 3, "output": 15, "cache_write": 3.75, "cache_read": 0.3}`},
		{`{"loop_guard": {"max_calls": 2.5}}`, `loop_guard.max_calls: 2.5 is not allowed; use a whole number from 0 to 1000000`},
	} {
		_, err := Parse([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s) = %v; want an error containing %q", tc.in, err, tc.want)
		}
	}
}

// TestContextKeys: context.* is read, written back unchanged and refused
// with the fix when wrong.
func TestContextKeys(t *testing.T) {
	c := mustParse(t, `{"context": {"handoff_percent": 40, "handoff_tokens": 120000, "window": 272000, "notes_wait": "90s"}}`)
	want := Context{HandoffPercent: 40, HandoffTokens: 120000, Window: 272000, NotesWait: 90 * time.Second}
	if got := c.Context; got.HandoffPercent != want.HandoffPercent || got.HandoffTokens != want.HandoffTokens || got.Window != want.Window || got.NotesWait != want.NotesWait {
		t.Errorf("context = %+v, want %+v", got, want)
	}
	out, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if again := mustParse(t, string(out)); again.Context.HandoffTokens != 120000 || again.Context.NotesWait != 90*time.Second {
		t.Errorf("round trip lost a key:\n%s", out)
	}
	if out, _ := mustParse(t, `{}`).Marshal(); strings.Contains(string(out), "context") {
		t.Errorf("an unset context was written:\n%s", out)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"context": {"handoff_percent": 150}}`, `context.handoff_percent: 150 is not allowed; use a percentage of the context window, from 1 to 100 (0: the default, 50)`},
		{`{"context": {"handoff_tokens": -5}}`, `context.handoff_tokens: -5 is not allowed; use a whole number from 0 to 100000000`},
	} {
		_, err := Parse([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s) = %v; want an error containing %q", tc.in, err, tc.want)
		}
	}
}

// TestModelNames: the shell Hive's simple config names a model alone
// ("architect": "opus"); hive reads it as that model on the default
// entry's CLI, and its other keys are left to it.
func TestModelNames(t *testing.T) {
	c := mustParse(t, `{"version": 1, "codex_enabled": false, "features": {"fast_mode": false},
 "models": {"default": "sonnet", "architect": "opus", "tester": {"cli": "codex"}}}`)
	for _, tc := range []struct{ role, cli, model string }{
		{"architect", CLIClaude, "opus"},
		{"reviewer", CLIClaude, "sonnet"},
		{"tester", CLICodex, ""}, // another CLI: the default entry's model is not its
	} {
		if m := c.Model(tc.role); m.CLI != tc.cli || m.Model != tc.model {
			t.Errorf("Model(%s) = %s/%s; want %s/%s", tc.role, m.CLI, m.Model, tc.cli, tc.model)
		}
	}
	c = mustParse(t, `{"models": {"default": {"cli": "codex"}, "architect": "o3"}}`)
	if m := c.Model("architect"); m.CLI != CLICodex || m.Model != "o3" {
		t.Errorf("Model(architect) = %s/%s; want codex/o3 (the default entry's CLI)", m.CLI, m.Model)
	}
}

// TestShellHiveRootConfig: the shell Hive's hive.config.json gives its
// models (names alone), under hive's own files; its other keys are not
// read, and a bad entry names that file.
func TestShellHiveRootConfig(t *testing.T) {
	root := writeRepo(t, map[string]string{
		RootFile: `{"_comment": "Hive config", "models": {"default": "sonnet", "architect": "opus", "tester": "haiku"},
 "features": {"auto_mode": false}, "cli_overrides": {}}`,
		HiveFile: `{"models": {"tester": {"cli": "codex"}}}`,
	})
	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ role, cli, model, why string }{
		{"architect", CLIClaude, "opus", "hive.config.json models.architect"},
		{"reviewer", CLIClaude, "sonnet", "hive.config.json models.default"},
		{"tester", CLICodex, "", "the CLI's own default model"},
	} {
		m, why := c.ModelWhy(tc.role)
		if m.CLI != tc.cli || m.Model != tc.model || why != tc.why {
			t.Errorf("ModelWhy(%s) = %s/%s, %q; want %s/%s, %q", tc.role, m.CLI, m.Model, why, tc.cli, tc.model, tc.why)
		}
	}
	if _, ok := c.extra["features"]; ok {
		t.Error("the shell Hive's features were kept as hive's keys")
	}
	_, err = Load(writeRepo(t, map[string]string{RootFile: "{\n\"models\": {\"architect\": 5}}"}))
	if err == nil || !strings.HasPrefix(err.Error(), "hive.config.json:2: models.architect: 5 is not allowed") {
		t.Errorf("a bad entry: %v", err)
	}
}

// TestModelWhy: hive's own models entries decide first, then GSD's
// model_overrides, then its model_profile; each answer names its key.
func TestModelWhy(t *testing.T) {
	c := mustParse(t, `{"model_profile": "budget", "model_overrides": {"gsd-planner": "opus"},
 "models": {"reviewer": {"model": "sonnet"}, "tester": {"cli": "codex"}}}`)
	for _, tc := range []struct{ role, model, why string }{
		{"reviewer", "sonnet", "models.reviewer"},
		{"architect", "opus", "model_overrides.gsd-planner (GSD)"},
		{"executor", "sonnet", "model_profile budget (GSD)"},
		{"verifier", "haiku", "model_profile budget (GSD)"},
		{"tester", "", "the CLI's own default model"},
		{"unknown-role", "", "the CLI's own default model"},
	} {
		m, why := c.ModelWhy(tc.role)
		if m.Model != tc.model || why != tc.why {
			t.Errorf("ModelWhy(%s) = %q, %q; want %q, %q", tc.role, m.Model, why, tc.model, tc.why)
		}
	}
}

// TestBackendKeys: backend.kind and backend.temporal.* are read, written
// back only when set, defaulted by WithDefaults, and a wrong kind names
// what is allowed.
func TestBackendKeys(t *testing.T) {
	c := mustParse(t, `{"backend": {"kind": "temporal", "temporal": {"address": "10.0.0.5:7233", "task_queue": "team", "remote": "origin"}}}`)
	b := c.Backend.WithDefaults()
	want := TemporalBackend{Address: "10.0.0.5:7233", Namespace: "default", TaskQueue: "team", Remote: "origin"}
	if b.Kind != BackendTemporal || b.Temporal.Address != want.Address || b.Temporal.Namespace != want.Namespace ||
		b.Temporal.TaskQueue != want.TaskQueue || b.Temporal.Remote != want.Remote {
		t.Errorf("backend = %+v, want kind temporal and %+v", b, want)
	}
	out, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if again := mustParse(t, string(out)); again.Backend.Temporal.Remote != "origin" || again.Backend.Temporal.Namespace != "" {
		t.Errorf("round trip changed the backend:\n%s", out)
	}
	if out, _ := mustParse(t, `{}`).Marshal(); strings.Contains(string(out), "backend") {
		t.Errorf("an unset backend was written:\n%s", out)
	}
	if d := mustParse(t, `{}`).Backend.WithDefaults(); d.Kind != BackendLocal || d.Temporal.Address != "127.0.0.1:7233" || d.Temporal.TaskQueue != "hive" {
		t.Errorf("default backend = %+v", d)
	}
	_, err = Parse([]byte(`{"backend": {"kind": "cluster"}}`))
	if want := `backend.kind: "cluster" is not allowed; use "local" or "temporal"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a wrong kind: %v; want an error containing %q", err, want)
	}
}

// commands.build and commands.test are read and written back, unset by
// default and left out of a file that does not set them; a wrong type is
// an error naming the key. tests.command (an older hint's name) is read
// as commands.test with a note, and moved by a rewrite; commands.test
// wins over it.
func TestCommands(t *testing.T) {
	if c := Default(); c.Commands.Test != "" || c.Commands.Build != "" {
		t.Errorf("default commands = %+v; want unset (found from the project's files)", c.Commands)
	}
	out, err := Default().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte(`"commands"`)) {
		t.Errorf("a file that sets no command gets commands:\n%s", out)
	}

	c := mustParse(t, `{"commands": {"build": "make dist", "test": "python3 -m pytest -q"}}`)
	if c.Commands.Build != "make dist" || c.Commands.Test != "python3 -m pytest -q" || len(c.Notes()) != 0 {
		t.Errorf("commands = %+v, notes %q", c.Commands, c.Notes())
	}
	if out, err = c.Marshal(); err != nil || !bytes.Contains(out, []byte(`"test": "python3 -m pytest -q"`)) {
		t.Errorf("rewrite loses commands.test: %v\n%s", err, out)
	}

	if _, err := Parse([]byte(`{"commands": {"test": ["pytest"]}}`)); err == nil || !strings.Contains(err.Error(), `commands.test: ["pytest"] is not allowed; use a shell command`) {
		t.Errorf("a list as commands.test: %v", err)
	}

	c = mustParse(t, "{\n  \"tests\": {\"command\": \"pytest -q\"}\n}")
	if c.Commands.Test != "pytest -q" || !contains(c.Notes(), "line 2: tests.command: read as commands.test, where a rewrite moves it") {
		t.Errorf("tests.command: commands %+v, notes %q", c.Commands, c.Notes())
	}
	out, err = c.Marshal()
	if err != nil || bytes.Contains(out, []byte(`"tests"`)) || !bytes.Contains(out, []byte(`"test": "pytest -q"`)) {
		t.Errorf("rewrite does not move tests.command to commands.test: %v\n%s", err, out)
	}

	c = mustParse(t, `{"tests": {"command": "pytest", "timeout": 5}, "commands": {"test": "make check"}}`)
	if c.Commands.Test != "make check" || !contains(c.Notes(), "line 1: tests.command: ignored, since commands.test is set too; a rewrite drops it") ||
		!contains(c.Notes(), "line 1: tests: not used by hive; kept as is") {
		t.Errorf("both: commands %+v, notes %q", c.Commands, c.Notes())
	}
}

// TestLimitsKeys: limits.on_limit is wait, stop or fallback, and the
// fallback is the models.fallback entry; unset, nothing is written.
func TestLimitsKeys(t *testing.T) {
	c := mustParse(t, `{"limits": {"on_limit": "fallback"}, "models": {"fallback": {"cli": "codex", "model": "gpt-5"}}}`)
	if c.Limits.OnLimit != OnLimitFallback || c.Model(FallbackRole).CLI != CLICodex || c.Model(FallbackRole).Model != "gpt-5" {
		t.Errorf("limits = %+v, fallback = %+v", c.Limits, c.Model(FallbackRole))
	}
	out, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if again := mustParse(t, string(out)); again.Limits.OnLimit != OnLimitFallback {
		t.Errorf("round trip lost limits.on_limit:\n%s", out)
	}
	if out, _ := mustParse(t, `{}`).Marshal(); strings.Contains(string(out), "limits") {
		t.Errorf("unset limits were written:\n%s", out)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"limits": {"on_limit": "retry"}}`, `limits.on_limit: "retry" is not allowed; use wait, stop or fallback`},
	} {
		_, err := Parse([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s) = %v; want an error containing %q", tc.in, err, tc.want)
		}
	}
}
