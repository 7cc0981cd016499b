package protocol

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Message
	}{
		{"progress", "PROGRESS: Task 2/5 complete: feat(03-01): add user model",
			[]Message{{Kind: Progress, Task: 2, Total: 5, Text: "feat(03-01): add user model"}}},
		{"progress inside prose", "Done with that.\n\nPROGRESS: Task 1/3 complete: feat(01-02): scaffold\nNext I will...",
			[]Message{{Kind: Progress, Task: 1, Total: 3, Text: "feat(01-02): scaffold"}}},
		{"complete", "PLAN COMPLETE\n\n**Plan:** 03-01\n**Tasks:** 3/3\n**SUMMARY:** .planning/phases/03-auth/03-01-SUMMARY.md\n\n**Commits:**\n- abc1234 feat(03-01): model\n- def5678 feat(03-01): api\n",
			[]Message{{Kind: Complete, Plan: "03-01", Task: 3, Total: 3, Summary: ".planning/phases/03-auth/03-01-SUMMARY.md", Commits: []string{"abc1234 feat(03-01): model", "def5678 feat(03-01): api"}}}},
		{"standalone heading", "## PLAN COMPLETE\n\n**Plan:** 02-02\n**Tasks:** 2/2",
			[]Message{{Kind: Complete, Plan: "02-02", Task: 2, Total: 2}}},
		{"plan id with name", "## PLAN COMPLETE\n\n**Plan:** 03-03 Dashboard Layout\n**Tasks:** 2/2",
			[]Message{{Kind: Complete, Plan: "03-03", Task: 2, Total: 2}}},
		{"failed", "PLAN FAILED\n\n**Plan:** 01-04\n**Tasks:** 1/3\n**Error:** database migration failed: relation exists",
			[]Message{{Kind: Failed, Plan: "01-04", Task: 1, Total: 3, Text: "database migration failed: relation exists"}}},
		{"two messages in one block", "PROGRESS: Task 3/3 complete: docs\nPLAN COMPLETE\n**Plan:** 01-01\n**Tasks:** 3/3",
			[]Message{{Kind: Progress, Task: 3, Total: 3, Text: "docs"}, {Kind: Complete, Plan: "01-01", Task: 3, Total: 3}}},
		{"prose mentioning the words", "I will print PLAN COMPLETE when done; PROGRESS: soon", nil},
		{"garbage", "\x00\xff{\"type\":", nil},
		{"messages quoted in a code fence", "The parser must accept:\n```text\nPLAN FAILED\n**Error:** x\n```\n~~~\nPROGRESS: Task 1/2 complete: y\n~~~\nPROGRESS: Task 2/2 complete: z",
			[]Message{{Kind: Progress, Task: 2, Total: 2, Text: "z"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Parse(tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q)\n got %+v\nwant %+v", tt.text, got, tt.want)
			}
		})
	}
}

// TestSeedMessageTable has one case per row of seed 000's "Message
// Protocol Reference", with the placeholders filled in.
func TestSeedMessageTable(t *testing.T) {
	checkpoint := "CHECKPOINT: human-verify\nPLAN: 03-02\nPROGRESS: 4/6\n\n### Checkpoint Details\n**What was built:** dashboard\n\n### Awaiting\nType \"approved\" or describe issues"
	deviation := "DEVIATION: rule-4\nPLAN: 03-01\nTASK: 2 - Add sessions\n\n### Discovery\nThe ORM cannot express it.\n\nProceed with proposed change? (yes / different approach / defer)"
	tests := []struct {
		row  string
		text string
		want []Message
	}{
		{"Progress", "PROGRESS: Task 2/5 complete: feat(03-01): add user model",
			[]Message{{Kind: Progress, Task: 2, Total: 5, Text: "feat(03-01): add user model"}}},
		{"Checkpoint", checkpoint, []Message{{Kind: Checkpoint, Plan: "03-02", Task: 4, Total: 6, Checkpoint: &CheckpointData{
			Type: TypeHumanVerify, Plan: "03-02", Done: 4, Total: 6,
			Details: "**What was built:** dashboard", Awaiting: `Type "approved" or describe issues`, Raw: checkpoint}}}},
		{"Deviation", deviation, []Message{{Kind: Deviation, Plan: "03-01", Deviation: &DeviationData{
			Rule: "rule-4", Plan: "03-01", Task: "2 - Add sessions",
			Details: "### Discovery\nThe ORM cannot express it.\n\nProceed with proposed change? (yes / different approach / defer)", Raw: deviation}}}},
		{"Complete", "PLAN COMPLETE\n\n**Plan:** 03-01\n**Tasks:** 3/3\n**SUMMARY:** .planning/phases/03-auth/03-01-SUMMARY.md\n\n**Commits:**\n- abc1234 feat(03-01): model",
			[]Message{{Kind: Complete, Plan: "03-01", Task: 3, Total: 3, Summary: ".planning/phases/03-auth/03-01-SUMMARY.md", Commits: []string{"abc1234 feat(03-01): model"}}}},
		{"Failed", "PLAN FAILED\n\n**Plan:** 03-01\n**Tasks:** 1/3\n**Error:** tests fail",
			[]Message{{Kind: Failed, Plan: "03-01", Task: 1, Total: 3, Text: "tests fail"}}},
	}
	for _, tt := range tests {
		t.Run(tt.row, func(t *testing.T) {
			got := Parse(tt.text)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %s\nwant %s", dump(got), dump(tt.want))
			}
		})
	}

	t.Run("Checkpoint Response", func(t *testing.T) {
		msg := CheckpointResponse("approved")
		if msg != "CHECKPOINT_RESPONSE: approved" {
			t.Fatalf("CheckpointResponse = %q", msg)
		}
		if k, b, ok := ParseResponse(msg); !ok || k != ReplyCheckpoint || b != "approved" {
			t.Errorf("ParseResponse(%q) = %q, %q, %v", msg, k, b, ok)
		}
	})
	t.Run("Deviation Response", func(t *testing.T) {
		msg := DeviationResponse(" defer ")
		if msg != "DEVIATION_RESPONSE: defer" {
			t.Fatalf("DeviationResponse = %q", msg)
		}
		if k, b, ok := ParseResponse(msg); !ok || k != ReplyDeviation || b != "defer" {
			t.Errorf("ParseResponse(%q) = %q, %q, %v", msg, k, b, ok)
		}
	})
}

func TestParseResponse(t *testing.T) {
	tests := []struct {
		text, kind, body string
		ok               bool
	}{
		{"CHECKPOINT_RESPONSE: sqlite", ReplyCheckpoint, "sqlite", true},
		{"  CHECKPOINT_RESPONSE:the titles\r\nare not sorted\r\n", ReplyCheckpoint, "the titles\nare not sorted", true},
		{"DEVIATION_RESPONSE: yes", ReplyDeviation, "yes", true},
		{"CHECKPOINT_RESPONSE:", ReplyCheckpoint, "", true},
		{"What is the status?", "", "", false},
		{"checkpoint_response: lower case is not the protocol", "", "", false},
		{"Answer: CHECKPOINT_RESPONSE: x", "", "", false},
	}
	for _, tt := range tests {
		k, b, ok := ParseResponse(tt.text)
		if k != tt.kind || b != tt.body || ok != tt.ok {
			t.Errorf("ParseResponse(%q) = %q, %q, %v; want %q, %q, %v", tt.text, k, b, ok, tt.kind, tt.body, tt.ok)
		}
	}
	if got := CheckpointResponse(""); got != "CHECKPOINT_RESPONSE:" {
		t.Errorf("empty answer renders %q", got)
	}
}

// cpWant is what a testdata file must parse to: one checkpoint.
type cpWant struct {
	typ, plan   string
	done, total int
	standalone  bool
	details     string // prefix
	awaiting    string
	options     []string // ids
	completed   []CompletedTask
	current     *CurrentTask
}

// TestCheckpointFiles parses the seeds' examples (copied verbatim), the
// sim's real output (captured from `hive __sim`) and the return formats
// real GSD-style executors use.
func TestCheckpointFiles(t *testing.T) {
	simDone := func(commit string, n string) []CompletedTask {
		return []CompletedTask{{Number: 1, Name: "step 1 of " + n, Commit: commit, Files: []string{"d/a.go"}}}
	}
	blocked := func(n int, name string) *CurrentTask {
		return &CurrentTask{Number: n, Name: name, Status: "Blocked on checkpoint"}
	}
	tests := map[string]cpWant{
		// seed 000 §3.1, verbatim
		"seed000_human_verify.txt": {typ: TypeHumanVerify, plan: "03-02", done: 4, total: 6,
			details: "**What was built:** Responsive dashboard at http://localhost:3000/dashboard\n**How to verify:**\n1. Visit", awaiting: `Type "approved" or describe layout issues`},
		"seed000_decision.txt": {typ: TypeDecision, plan: "03-01", done: 2, total: 6,
			details: "**Decision:** Select authentication provider\n", awaiting: "Select: supabase, clerk, or nextauth",
			options: []string{"supabase", "clerk", "nextauth"}},
		"seed000_human_action.txt": {typ: TypeHumanAction, plan: "03-03", done: 3, total: 8,
			details: "**Action:** Complete email verification for SendGrid\n", awaiting: `Type "done" when email verified`},
		"seed000_checkpoint_template.txt": {typ: "type", plan: "{plan_id}", details: "{type-specific content}", awaiting: "{what is needed from user}"},
		// seed 002 checkpoint_return_format, verbatim
		"seed002_checkpoint_return.txt": {typ: "type", standalone: true, details: "{what-built / decision / action details}", awaiting: "{resume-signal from plan}",
			completed: []CompletedTask{{1, "Create user model", "abc123f", []string{"src/models/user.ts"}}, {2, "Add API endpoints", "def456g", []string{"src/api/users.ts"}}},
			current:   &CurrentTask{Number: 3, Name: "Verify deployment", Status: "Blocked on checkpoint"}},
		// internal/sim, captured
		"sim_team_decision.txt": {typ: TypeDecision, plan: "01-04", done: 1, total: 3, details: "**Decision:** Which storage backend?",
			awaiting: "Select: json-file or sqlite", options: []string{"json-file", "sqlite"}},
		"sim_team_human_verify.txt": {typ: TypeHumanVerify, plan: "01-05", done: 1, total: 3, details: "**What was built:** Implement step 2.\n**How to verify:**",
			awaiting: `Type "approved" or describe issues`},
		"sim_team_human_action.txt": {typ: TypeHumanAction, plan: "01-07", done: 1, total: 3, details: "**Action:** Create the API key",
			awaiting: `Type "done" when complete`},
		"sim_standalone_decision.txt": {typ: TypeDecision, plan: "01-04", done: 1, total: 3, standalone: true, details: "**Decision:** Which storage backend?",
			awaiting: "Select: json-file or sqlite", options: []string{"json-file", "sqlite"},
			completed: simDone("8c1ba51", "01-04"), current: blocked(2, "Choose the storage backend")},
		"sim_standalone_human_verify.txt": {typ: TypeHumanVerify, plan: "01-06", done: 1, total: 3, standalone: true, details: "**What was built:**",
			awaiting: `Type "approved" or describe issues`, completed: simDone("635c5eb", "01-06"), current: blocked(2, "Verify the CLI output")},
		"sim_standalone_human_action.txt": {typ: TypeHumanAction, plan: "01-07", done: 1, total: 3, standalone: true, details: "**Action:** Create the API key",
			awaiting: `Type "done" when complete`, completed: simDone("195abe1", "01-07"), current: blocked(2, "Create the API key")},
		// GSD executors' CHECKPOINT REACHED return
		"gsd_reached_human_verify.txt": {typ: TypeHumanVerify, plan: "02-03", done: 2, total: 3, standalone: true,
			details: "**What was built:**\nLogin form backed by the session API.\n\n**How to verify:**\n\n1. Run `npm run dev`", awaiting: `Type "approved" or describe issues to fix.`,
			completed: []CompletedTask{{1, "Build login form", "a1b2c3d", []string{"src/login.tsx", "src/auth.ts"}}, {2, "Wire session API", "e4f5a6b", []string{"src/api/session.ts"}}},
			current:   &CurrentTask{Number: 3, Name: "Check the login flow in a browser", Status: "awaiting verification", BlockedBy: "a human has to click through it"}},
		"gsd_reached_decision_table.txt": {typ: TypeDecision, plan: "03-02", done: 1, total: 4, standalone: true,
			details: "**Decision needed:**\nWhich backend stores queued jobs?", awaiting: "Select: postgres | redis", options: []string{"postgres", "redis"},
			completed: []CompletedTask{{1, "Scaffold the queue package", "9f8e7d6", []string{"internal/queue/queue.go"}}},
			current:   &CurrentTask{Number: 2, Name: "Pick the queue backend", Status: "awaiting decision", BlockedBy: "the plan leaves the backend open"}},
		"gsd_reached_auth_gate.txt": {typ: TypeHumanAction, plan: "01-02", done: 1, total: 3, standalone: true,
			details: "**Automation attempted:**\nRan `fly deploy`.", awaiting: `Type "done" when authenticated.`,
			completed: []CompletedTask{{1, "Create the Fly app config", "0a1b2c3", []string{"fly.toml"}}},
			current:   &CurrentTask{Number: 2, Name: "Deploy the API to Fly", Status: "blocked", BlockedBy: "flyctl is not logged in"}},
		// Plan-Build-Run style (seed 004): upper-case types, XML body
		"pbr_uppercase_human_verify.txt": {typ: TypeHumanVerify, plan: "04-01", done: 2, total: 3, details: "**What was built:** Settings page",
			awaiting:  `Type "approved" or describe issues`,
			completed: []CompletedTask{{1, "Add the settings page", "1111111", []string{"app/settings/page.tsx"}}, {2, "Persist settings", "2222222", []string{"app/api/settings.ts", "lib/db.ts"}}}},
		"pbr_xml_heading.txt":         {typ: TypeHumanVerify, standalone: true, details: "<checkpoint>\n  <type>human-verify</type>", awaiting: "approved"},
		"auth_gate.txt":               {typ: TypeAuthGate, plan: "04-02", done: 1, total: 4, details: "**Task blocked:** 2 - Deploy the preview", awaiting: `Type "done" after setting the token`},
		"architectural_deviation.txt": {typ: TypeArchDeviation, plan: "05-01", done: 2, total: 5, standalone: true, details: "**Discovery:** The payment SDK", awaiting: "Proceed with proposed change? (yes / different approach / defer)"},
		// seed 000 §5.6: no header, both sections
		"headerless.txt": {typ: TypeHumanVerify, details: "**What was built:** The CSV importer", awaiting: `Type "approved" or describe issues`},
	}
	for file, w := range tests {
		t.Run(file, func(t *testing.T) {
			text := readTestdata(t, file)
			for _, variant := range []struct{ name, text string }{{"LF", text}, {"CRLF", strings.ReplaceAll(text, "\n", "\r\n")}} {
				msgs := Parse(variant.text)
				if len(msgs) != 1 || msgs[0].Kind != Checkpoint || msgs[0].Checkpoint == nil {
					t.Fatalf("%s: got %s, want one checkpoint", variant.name, dump(msgs))
				}
				m, cp := msgs[0], msgs[0].Checkpoint
				if m.Plan != w.plan || m.Task != w.done || m.Total != w.total {
					t.Errorf("%s: message plan/task/total = %q %d/%d", variant.name, m.Plan, m.Task, m.Total)
				}
				var ids []string
				for _, o := range cp.Options {
					ids = append(ids, o.ID)
				}
				got := cpWant{typ: cp.Type, plan: cp.Plan, done: cp.Done, total: cp.Total, standalone: cp.Standalone,
					details: w.details, awaiting: cp.Awaiting, options: ids, completed: cp.Completed, current: cp.Current}
				if !strings.HasPrefix(cp.Details, w.details) {
					t.Errorf("%s: Details = %q, want prefix %q", variant.name, cp.Details, w.details)
				}
				if !reflect.DeepEqual(got, w) {
					t.Errorf("%s:\n got %+v\nwant %+v", variant.name, got, w)
				}
				if file != "headerless.txt" && cp.Raw != strings.TrimSpace(text) {
					t.Errorf("%s: Raw is not the message:\n%s", variant.name, cp.Raw)
				}
			}
		})
	}
}

// TestSeedDecisionExample checks every field of seed 000's decision
// example, options included.
func TestSeedDecisionExample(t *testing.T) {
	text := readTestdata(t, "seed000_decision.txt")
	msgs := Parse(text)
	if len(msgs) != 1 {
		t.Fatalf("got %s", dump(msgs))
	}
	details := text[strings.Index(text, "**Decision:**"):strings.Index(text, "\n\n### Awaiting")]
	want := &CheckpointData{
		Type: TypeDecision, Plan: "03-01", Done: 2, Total: 6, Details: details,
		Awaiting: "Select: supabase, clerk, or nextauth",
		Options: []Option{
			{"supabase", "Built-in with our DB, generous free tier", "1. **supabase** - Built-in with our DB, generous free tier\nPros: Row-level security integration\nCons: Less customizable UI, ecosystem lock-in"},
			{"clerk", "Beautiful pre-built UI, best DX", "2. **clerk** - Beautiful pre-built UI, best DX\nPros: Excellent docs, pre-built components\nCons: Paid after 10k MAU, vendor lock-in"},
			{"nextauth", "Self-hosted, maximum control", "3. **nextauth** - Self-hosted, maximum control\nPros: Free, no vendor lock-in\nCons: More setup work, DIY security"},
		},
		Raw: strings.TrimSpace(text),
	}
	if got := msgs[0].Checkpoint; !reflect.DeepEqual(got, want) {
		t.Errorf("got  %s\nwant %s", dump(got), dump(want))
	}
}

func TestSeedDeviationExample(t *testing.T) {
	text := readTestdata(t, "seed000_deviation.txt")
	msgs := Parse(text)
	want := []Message{{Kind: Deviation, Plan: "{plan_id}", Deviation: &DeviationData{
		Rule: "rule-4", Plan: "{plan_id}", Task: "{current_task}",
		Details: text[strings.Index(text, "### Discovery"):len(strings.TrimRight(text, "\n"))],
		Raw:     strings.TrimSpace(text),
	}}}
	if !reflect.DeepEqual(msgs, want) {
		t.Errorf("got  %s\nwant %s", dump(msgs), dump(want))
	}
}

func TestSeveralMessagesInOneBlock(t *testing.T) {
	text := readTestdata(t, "multi.txt")
	msgs := Parse(strings.ReplaceAll(text, "\n", "\r\n"))
	var kinds []Kind
	for _, m := range msgs {
		kinds = append(kinds, m.Kind)
	}
	if want := []Kind{Progress, Checkpoint, Deviation, Failed}; !reflect.DeepEqual(kinds, want) {
		t.Fatalf("kinds = %v, want %v\n%s", kinds, want, dump(msgs))
	}
	cp := msgs[1].Checkpoint
	if cp.Awaiting != "Select: utf8 or detect" || !strings.HasSuffix(cp.Raw, "Select: utf8 or detect") {
		t.Errorf("the checkpoint did not end at the DEVIATION header: %s", dump(cp))
	}
	if want := []Option{{"utf8", "accept UTF-8 only", "- utf8: accept UTF-8 only"}, {"detect", "guess the encoding per file", "- detect: guess the encoding per file"}}; !reflect.DeepEqual(cp.Options, want) {
		t.Errorf("options = %s", dump(cp.Options))
	}
	d := msgs[2].Deviation
	if d.Rule != "rule-4" || d.Plan != "06-01" || d.Task != "3 - Store imports" || !strings.HasSuffix(d.Details, "(yes / different approach / defer)") {
		t.Errorf("deviation = %s", dump(d))
	}
	if msgs[3].Text != "gave up waiting" {
		t.Errorf("failed = %s", dump(msgs[3]))
	}

	// Two sim messages glued together stay two: the second header follows
	// the first one's sections.
	a, b := readTestdata(t, "sim_team_human_verify.txt"), readTestdata(t, "sim_standalone_decision.txt")
	msgs = Parse(a + "\n" + b)
	if len(msgs) != 2 || msgs[0].Checkpoint.Type != TypeHumanVerify || msgs[1].Checkpoint.Type != TypeDecision || !msgs[1].Checkpoint.Standalone || msgs[0].Checkpoint.Standalone {
		t.Errorf("glued checkpoints = %s", dump(msgs))
	}
}

func TestCheckpointVariants(t *testing.T) {
	tests := []struct {
		name, text string
		check      func(*CheckpointData) bool
	}{
		{"type in checkpoint: form", "CHECKPOINT: checkpoint:human-verify\nPLAN: 01-01",
			func(c *CheckpointData) bool { return c.Type == TypeHumanVerify && c.Plan == "01-01" }},
		{"wording instead of type", "CHECKPOINT: Decision Required\n\n### Checkpoint Details\n**Options:**\n[a] Keep REST\n[b] Move to gRPC\n\n### Awaiting\nSelect a or b",
			func(c *CheckpointData) bool {
				return c.Type == TypeDecision && len(c.Options) == 2 && c.Options[0] == Option{"a", "Keep REST", "[a] Keep REST"} && c.Options[1].ID == "b"
			}},
		{"inline bracket options", "CHECKPOINT: decision\n\n### Checkpoint Details\nWhich port?\nOptions: [8080] default [9090] alt\n\n### Awaiting\npick",
			func(c *CheckpointData) bool {
				return len(c.Options) == 2 && c.Options[0].ID == "8080" && c.Options[0].Name == "default" && c.Options[1].ID == "9090"
			}},
		{"bold field variant and progress with Task", "CHECKPOINT: human_verify\n**Plan**: 07-02\nPROGRESS: Task 3/5\n\n### Awaiting\nok?",
			func(c *CheckpointData) bool {
				return c.Type == TypeHumanVerify && c.Plan == "07-02" && c.Done == 3 && c.Total == 5 && c.Awaiting == "ok?"
			}},
		{"details without heading", "CHECKPOINT: human-action\nPLAN: 02-01\nPROGRESS: 1/2\n\n**What you need to do:** create the bucket\n\n### Awaiting\ndone?",
			func(c *CheckpointData) bool {
				return c.Details == "**What you need to do:** create the bucket" && c.Awaiting == "done?"
			}},
		{"awaiting field", "## CHECKPOINT REACHED\n\n**Type:** decision\n**Plan:** 01-02\n**Progress:** 1/3 tasks complete\n\nPick a cache.\n- lru: in memory\n- redis: shared\n\n**Awaiting:** lru or redis",
			func(c *CheckpointData) bool {
				return c.Standalone && c.Awaiting == "lru or redis" && c.Details == "Pick a cache.\n- lru: in memory\n- redis: shared" && len(c.Options) == 2
			}},
		{"current task as plain line", "## CHECKPOINT REACHED\n**Type:** Human Verify\n\n### Current Task\nTask 4: Check the report\n\n### Awaiting\napproved?",
			func(c *CheckpointData) bool {
				return c.Type == TypeHumanVerify && c.Current != nil && *c.Current == CurrentTask{Number: 4, Name: "Check the report"}
			}},
		{"known field type beats a placeholder header", "CHECKPOINT: {type}\n**Type:** decision\n### Awaiting\nx",
			func(c *CheckpointData) bool { return c.Type == TypeDecision }},
		{"header type beats field type", "CHECKPOINT: auth-gate\n**Type:** human-action\n### Awaiting\nx",
			func(c *CheckpointData) bool { return c.Type == TypeAuthGate }},
		{"unknown type kept as a slug", "CHECKPOINT: Physics Check Required\nPLAN: 01-01",
			func(c *CheckpointData) bool { return c.Type == "physics-check-required" }},
		{"no type anywhere", "## CHECKPOINT REACHED\n\nSomething odd happened.",
			func(c *CheckpointData) bool {
				return c.Type == TypeUnknown && c.Standalone && c.Details == "Something odd happened."
			}},
		{"progress above total is ignored", "CHECKPOINT: decision\nPROGRESS: 7/3",
			func(c *CheckpointData) bool { return c.Done == 0 && c.Total == 0 }},
		{"escaped bar in a task name", "## CHECKPOINT REACHED\n### Completed Tasks\n| # | Task | Commit | Files |\n|---|---|---|---|\n| 1 | a \\| b | abc | - |\n### Awaiting\nx",
			func(c *CheckpointData) bool {
				return len(c.Completed) == 1 && c.Completed[0].Name == "a | b" && c.Completed[0].Files == nil
			}},
		{"bold header", "**CHECKPOINT: human-action**\n\n### Awaiting\nType done",
			func(c *CheckpointData) bool { return c.Type == TypeHumanAction && !c.Standalone }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := Parse(tt.text)
			if len(msgs) != 1 || msgs[0].Checkpoint == nil {
				t.Fatalf("got %s, want one checkpoint", dump(msgs))
			}
			if !tt.check(msgs[0].Checkpoint) {
				t.Errorf("unexpected %s", dump(msgs[0].Checkpoint))
			}
		})
	}
}

// TestNotAMessage: prose, summaries and the orchestrator's own words are
// not executor messages.
func TestNotAMessage(t *testing.T) {
	for _, text := range []string{
		"Please verify the layout; I made a decision to use flexbox.",
		"Awaiting your decision on the checkpoint. How to verify: open the page.",
		"## Checkpoint: human-verify\n\nAuto-approved (auto_advance=true). Build passes.",
		"## Checkpoint: Human-Verify (Task 4 — Deferred Visual Checklist)\n\n- [ ] Top bar shows a badge",
		"- **Tasks:** 1 (checkpoint: human-verify)",
		"Checkpoint: human-verify approved by the user.",
		"I will send CHECKPOINT: decision if needed.",
		"DEVIATION: none",
		"## Deviations from Plan\n\n**1. [Rule 1 - Bug] Fixed the query**",
		"### Checkpoint Details\nOnly details, nothing awaited.",
		"### Awaiting\nno details before it\n### Checkpoint Details\nx",
		"CHECKPOINT_RESPONSE: approved",
		"",
	} {
		if msgs := Parse(text); len(msgs) != 0 {
			t.Errorf("Parse(%q) = %s, want nothing", text, dump(msgs))
		}
	}
}

func TestDeviationVariants(t *testing.T) {
	tests := []struct {
		text string
		want DeviationData
	}{
		{"DEVIATION: Rule 4\n**Plan:** 02-01\n**Task:** Add cache\nUse Redis instead.",
			DeviationData{Rule: "rule-4", Plan: "02-01", Task: "Add cache", Details: "Use Redis instead."}},
		{"## DEVIATION: rule_04\nPLAN: 02-01", DeviationData{Rule: "rule-4", Plan: "02-01"}},
		{"DEVIATION: architectural\nTASK: 3\n\nx", DeviationData{Rule: TypeArchDeviation, Task: "3", Details: "x"}},
	}
	for _, tt := range tests {
		msgs := Parse(tt.text)
		if len(msgs) != 1 || msgs[0].Deviation == nil {
			t.Errorf("Parse(%q) = %s", tt.text, dump(msgs))
			continue
		}
		tt.want.Raw = strings.TrimSpace(tt.text)
		if got := *msgs[0].Deviation; !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q)\n got %+v\nwant %+v", tt.text, got, tt.want)
		}
	}
}

func TestNormType(t *testing.T) {
	for in, want := range map[string]string{
		"human-verify": TypeHumanVerify, "checkpoint:human-verify": TypeHumanVerify, "HUMAN-VERIFY": TypeHumanVerify,
		"Human Verify": TypeHumanVerify, "human_verify": TypeHumanVerify, "Verification Required": TypeHumanVerify,
		"decision": TypeDecision, "DECISION": TypeDecision, "Decision Required": TypeDecision, "checkpoint:decision": TypeDecision,
		"human-action": TypeHumanAction, "HUMAN-ACTION": TypeHumanAction, "Action Required": TypeHumanAction,
		"human-action ... need vercel login": TypeHumanAction,
		"AUTH-GATE":                          TypeAuthGate, "auth gate": TypeAuthGate, "ARCHITECTURAL-DEVIATION": TypeArchDeviation,
		"[human-verify | decision | human-action]": TypeHumanVerify,
		"": "", "  ": "", "Confirmation Required": "confirmation-required",
	} {
		if got := normType(in); got != want {
			t.Errorf("normType(%q) = %q, want %q", in, got, want)
		}
	}
}

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRefusedHeadingKeepsWhatFollows: a summary's "## Checkpoint:" heading
// is refused without swallowing the real messages after it.
func TestRefusedHeadingKeepsWhatFollows(t *testing.T) {
	msgs := Parse("## Checkpoint: human-verify\nAuto-approved.\nPROGRESS: Task 2/3 complete: feat: x\n## Checkpoint: decision\nCHECKPOINT: decision\nPLAN: 01-01")
	if len(msgs) != 2 || msgs[0].Kind != Progress || msgs[1].Kind != Checkpoint || msgs[1].Checkpoint.Plan != "01-01" || msgs[1].Checkpoint.Standalone {
		t.Errorf("got %s", dump(msgs))
	}
}

// TestLargeInputs guards against quadratic scans: each of these would take
// minutes if a refused or merged header were rescanned to the end.
func TestLargeInputs(t *testing.T) {
	for _, line := range []string{"## Checkpoint: human-verify", "CHECKPOINT: decision", "DEVIATION: none", "### Checkpoint Details", "PLAN COMPLETE", "x"} {
		text := strings.Repeat(line+"\n", 20000)
		Parse(text)
		Parse(strings.Repeat(line+"\nsome prose\n", 10000))
	}
}

// ParseResponse reads a reply of hive to an executor, as the sim and
// the agents do (the tests' check that a reply keeps that shape): kind is
// ReplyCheckpoint or ReplyDeviation, body the answer with surrounding space
// removed.
func ParseResponse(text string) (kind, body string, ok bool) {
	t := strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
	for _, k := range []string{ReplyCheckpoint, ReplyDeviation} {
		if b, found := strings.CutPrefix(t, k+":"); found {
			return k, strings.TrimSpace(b), true
		}
	}
	return "", "", false
}
