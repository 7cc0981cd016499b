// Package fakeanthropic is a fake Anthropic Messages API for tests that run
// the real Claude Code CLI (or any Anthropic client) on loopback.
//
// # Use
//
//	s := fakeanthropic.New(t, fakeanthropic.Script{Rules: append(
//		fakeanthropic.Steps("task", "Do task 1",
//			fakeanthropic.Write(filepath.Join(repo, "hello.txt"), "hello\n"),
//			fakeanthropic.Bash("git add hello.txt && git commit -q -m 'feat: hello'"),
//			fakeanthropic.Text("PROGRESS: Task 1/1 complete: hello.txt"),
//		),
//		fakeanthropic.Rule{Name: "greet", Match: fakeanthropic.LastUserContains("hi"),
//			Reply: fakeanthropic.Static(fakeanthropic.Text("Hello"))},
//	)})
//	// env: ANTHROPIC_BASE_URL=s.URL() ANTHROPIC_API_KEY=test-key ...
//	s.Requests()     // every request: path, headers (secrets REDACTED), parsed body, Conv, InputTokens, Rule
//	s.MainRequests() // only the /v1/messages requests answered by the script
//
// POST /v1/messages is answered as Server-Sent Events when the body has
// "stream": true (message_start, ping, content_block_start,
// content_block_delta with text_delta / input_json_delta split in 40-byte
// chunks, content_block_stop, message_delta with stop_reason and usage,
// message_stop) and as one JSON message otherwise. POST
// /v1/messages/count_tokens returns the estimate. HEAD /api/hello gets 200.
// Any other path gets 200 "{}" and is listed by UnknownPaths.
//
// Replies are chosen by a Script: Rules are tried in order and the first
// whose Match accepts the Conversation (and whose Times is not used up)
// answers. Matching is stateless by default (it looks at the conversation,
// which carries the full history), so a retried request gets the same
// answer. Steps(name, trigger, r0, r1, …) answers the request with i
// assistant messages since the last user prompt containing trigger with
// ri: the idiom for "call Write, then Bash, then say PROGRESS". A main
// request no rule matches is a test error (t.Errorf) unless
// Script.AllowUnmatched. Reply.Status/ErrorType inject API errors (e.g.
// 529 overloaded_error); Reply.Delay slows an answer.
//
// Usage and prompt caching: every reply reports what it billed, and
// Request.Usage records it. The input is split the way the API's prompt
// cache splits it (see promptCache): the longest prefix an earlier request
// wrote at a cache_control breakpoint is read, the rest up to the last
// breakpoint is written, and only what follows is plain input; prefixes
// under CacheMinTokens are not cached, and Script.NoPromptCache turns the
// cache off. Output tokens are estimated from the reply's blocks unless
// Reply.OutputTokens says how many to bill (a costly turn). Against Claude
// Code 2.1.330 a second session in the same folder reads the ~4,400-token
// system prompt from the cache, and each request of a turn reads the
// previous one whole.
//
// Side requests: Script.IsSide (default DefaultIsSide: the request offers
// no tools) classifies requests that must not consume rules; Script.Side
// (default DefaultSide) answers them. Claude Code's main loop always offers
// tools. A test that runs claude with no tools at all must set IsSide.
//
// Context and compaction: Script.ContextGrowth makes a session's reported
// context grow by that many tokens per request (per assistant message of
// the conversation, reported as read from the cache and recorded in
// Request.Usage and Request.Inflation), so that a test can drive the real
// CLI near its context window in a few requests. Claude Code's request for
// a summary of the conversation (IsCompaction: its last user message
// carries CompactionMarker) is answered by Script.Compact, default
// DefaultCompact, and never consumes a rule; Server.Compactions lists those
// requests and MainRequests leaves them out.
//
// # Facts measured with Claude Code 2.1.330 (as root, no internet)
//
// Invocation and isolation used by the tests: env ANTHROPIC_BASE_URL,
// ANTHROPIC_API_KEY=test-key (init line reports apiKeySource
// "ANTHROPIC_API_KEY"), CLAUDE_CONFIG_DIR and HOME in temp dirs,
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, DISABLE_TELEMETRY=1,
// CLAUDE_CODE_MAX_RETRIES=0; cwd a temp git repo with user.name/user.email
// set in the repo config (HOME is empty, so git has no identity otherwise).
// Permissions as root: `--permission-mode dontAsk` for a text-only turn;
// `--permission-mode acceptEdits --allowedTools Write,Bash` lets the Write
// tool and `git add … && git commit …` through Bash run with no denial
// (`Write,Bash(git add:*),Bash(git commit:*)` works too). IS_SANDBOX and
// --dangerously-skip-permissions are not needed.
//
// Endpoints: with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 the CLI calls
// only POST /v1/messages, always with "stream": true. Without that variable
// it also sends one HEAD /api/hello (connectivity probe) at start-up. No
// count_tokens call, no title-generation, quota-probe or Bash-prefix
// (small model) side request was seen in -p mode, one-shot or live, with
// either setting; the side-request machinery is kept for other versions
// and modes (DefaultIsSide never fired against 2.1.330).
//
// Headers of POST /v1/messages: anthropic-version 2023-06-01;
// anthropic-beta claude-code-20250219, interleaved-thinking-2025-05-14,
// context-management-2025-06-27, per-turn-control-2026-07-01,
// mid-conversation-tool-changes-2026-07-01,
// thinking-token-count-2026-05-13, advanced-tool-use-2025-11-20,
// effort-2025-11-24, thinking-display-updates-2026-08-18; x-api-key;
// x-app cli; user-agent "claude-cli/2.1.330 (external, sdk-cli)";
// x-claude-code-session-id (the session_id of the stream-json lines);
// anthropic-dangerous-direct-browser-access true; x-stainless-* (package
// version 0.128.0, retry-count, timeout 600, runtime node).
//
// Body: model "claude-opus-5-5" (the default with an API key), max_tokens
// 128000, thinking {type: adaptive, display: updates}, context_management
// {edits: [clear_thinking_20251015]}, output_config {effort: medium},
// metadata.user_id (a JSON string with device_id and session_id), stream
// true, ~50 KB in all. system is 3 text blocks: an
// "x-anthropic-billing-header: cc_version=2.1.330…" line, "You are a
// Claude agent, built on Anthropic's Claude Agent SDK." and the main prompt
// (both with cache_control ephemeral). tools (12): Agent, Bash, Edit,
// ListAgents, Read, ReportFindings, ScheduleWakeup, Skill, ToolSearch,
// Workflow, DeferredToolPlaceholder, Write. The first request's messages
// are user[text,text,text] (a <system-reminder> with git status, a
// <system-reminder> with commit attribution, then the prompt) followed by a
// role "system" message (environment: cwd, platform, model, deferred
// tools): messages may contain role "system", which this package keeps as
// a Message. The estimate (system + messages characters / 4) is ≈ 4400
// tokens for "hi"; tool schemas are not counted.
//
// Tool round trip: the reply assistant[tool_use Write {file_path, content}]
// comes back in the next request as … assistant[tool_use]
// user[tool_result "File created successfully at: PATH (file state is
// current in your context — no need to Read it back)"]; Bash
// {command, description} comes back as user[tool_result "(Bash completed
// with no output)"]. The stream-json output shows one assistant line per
// block and a user line per tool result. A live session with one task turn
// (Write, Bash, text) and one follow-up made exactly 4 POST /v1/messages
// with shapes of 2, 4, 6 and 8 messages; the follow-up carries the whole
// history: user[text×3] system[text] assistant[tool_use] user[tool_result]
// assistant[tool_use] user[tool_result] assistant[text] user[text].
// result.result is the last text block; total_cost_usd is computed by the
// CLI from the usage we report (Opus list prices) and
// modelUsage[*].contextWindow is 1000000.
//
// Compaction (measured by inflating the reported usage with ContextGrowth;
// see TestClaudeCompacts): the CLI compacts on its own ("auto") once the
// latest response's input + cache_creation + cache_read + output reaches
// about 967,000 tokens, the 1,000,000 window less 33,000 (966,995: no;
// 967,003: yes). It checks before every API request: at the start of a
// turn (after the turn's system/init line) and in the middle of one (after
// a tool_result's user line), in one-shot and live stream-json sessions
// alike. It first sends the compaction request: the same model, tools (12),
// thinking and max_tokens as the main loop, the history, and a last user
// message that begins "CRITICAL: Respond with TEXT ONLY. Do NOT call any
// tools." and ends "REMINDER: Do NOT call any tools. Respond with plain
// text only — an <analysis> block followed by a <summary> block. Tool
// calls will be rejected and you will fail the task." An answer without a
// <summary> block is asked for once more, the same request with a
// paragraph appended ("For this reply only: write what the instructions
// above ask for, with the summary inside <summary></summary> tags. …"),
// and then taken as it is. stdout then shows, in this order:
//
//	{"type":"system","subtype":"status","status":"compacting","compact_output_chars":0,"session_id":…,"uuid":…}
//	{"type":"system","subtype":"status","status":null,"compact_result":"success","session_id":…,"uuid":…}
//	{"type":"system","subtype":"compact_boundary","uuid":…,"compact_metadata":{"trigger":"auto",
//	 "pre_tokens":967005,"post_tokens":2610,"cumulative_dropped_tokens":964395,"duration_ms":25,
//	 "preserved_segment":{"head_uuid":…,"anchor_uuid":…,"tail_uuid":…},"preserved_messages":{…}},
//	 "logical_parent_uuid":…,"session_id":…}
//	{"type":"user","message":{"role":"user","content":[{"type":"text","text":"This session is being
//	 continued from a previous conversation that ran out of context. The summary below covers the
//	 earlier portion of the conversation.\n\n<system-reminder>…</system-reminder>\nSummary:\n(the
//	 <summary> block's text)\n\nIf you need specific details from before compaction … read the full
//	 transcript at: ….jsonl\nContinue the conversation from where it left off …"}]},…,"isSynthetic":true}
//
// pre_tokens is the latest response's usage plus what was added since (a
// few tokens); post_tokens (≈2,600) is the estimate of what is kept: the
// summary message and the last exchange (the next request carries 5
// messages, one of them an assistant message). The turn then goes on and
// ends as usual; the next request's usage is small again. When the
// compaction request fails (400 "prompt is too long"), the CLI sends it
// again with ever fewer of the oldest messages (each size twice), then
// prints
// {"type":"system","subtype":"status","status":null,"compact_result":"failed","compact_error":"exhausted",…}
// and sends the main request uncompacted; when compaction fails again with
// the reported context past the window, it ends the turn with an assistant
// "Prompt is too long" (all usage 0) and a result with is_error true,
// subtype "success", result "Prompt is too long", terminal_reason
// "blocking_limit".
//
// Timings on the build machine: one-shot `claude -p hi` 0.6–0.8 s; live
// turn 1 (three API calls, a file write and a git commit) 0.7–0.8 s;
// follow-up turn 40–55 ms; exit after stdin is closed 25–35 ms.
//
// Permission prompts (`-p --input-format stream-json --output-format
// stream-json --verbose --permission-prompt-tool stdio --permission-mode
// default --allowedTools Read`, the model calling Bash "echo hi > out.txt"):
// the CLI prints the assistant tool_use line, then one stdout line
//
//	{"type":"control_request","request_id":"d06c6e7d-…(a UUID)",
//	 "request":{"subtype":"can_use_tool","tool_name":"Bash","display_name":"Bash",
//	  "input":{"command":"echo hi > out.txt","description":"run echo hi > out.txt"},
//	  "description":"run echo hi > out.txt",
//	  "permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"echo hi *"}],"behavior":"allow","destination":"localSettings"},
//	   {"type":"addDirectories","directories":["/tmp/…cwd"],"destination":"session"}],
//	  "blocked_path":"/tmp/…cwd/out.txt","tool_use_id":"toolu_fake_0001_0"}}
//
// and waits (no API call) until one stdin line answers it. Allow:
// {"type":"control_response","response":{"subtype":"success","request_id":ID,
// "response":{"behavior":"allow","updatedInput":{…the input…}}}}; the tool
// runs and its user line carries tool_result_meta permission_decision
// {decision "accept", source "user_temporary"}. {"behavior":"allow"} with no
// updatedInput is accepted too and runs the tool unchanged. Deny:
// {"behavior":"deny","message":M}: the tool does not run, the model gets
// tool_result is_error true with content M, tool_result_meta says
// non_execution_kind "permission-rule", decision "reject", source
// "user_reject", the turn goes on, and result.permission_denials lists
// {tool_name, tool_use_id, tool_input}. Each further call asks again (a
// second Bash call got a new request_id). With `--permission-mode
// acceptEdits` the CLI asks for `sh -c 'echo ran > perm.txt'` but lets
// `echo ran > perm.txt` (a redirect into the cwd, taken as an edit) run
// without asking.
package fakeanthropic
