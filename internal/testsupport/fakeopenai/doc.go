// Package fakeopenai is a fake OpenAI Responses API for tests that run the
// real codex CLI (0.169.0) on loopback, with scripted model turns.
//
//	s := fakeopenai.New(t, fakeopenai.Script{
//		{UserText: "Execute", TurnToolOutputs: 0, Reply: fakeopenai.Run(`git commit --allow-empty -m "feat(01-01): x"`)},
//		{UserText: "Execute", TurnToolOutputs: 1, Reply: fakeopenai.Say("PROGRESS: Task 1/1 complete: x")},
//	})
//	cmd := s.Command(fakeopenai.CodexBinary(t), repo, t.TempDir(),
//		"exec", "--json", "-m", fakeopenai.Model, "--dangerously-bypass-approvals-and-sandbox", "Execute plan 01-01")
//
// # Facts measured with codex-cli 0.169.0 (linux x64, as root, no internet)
//
// Pointing codex at the server: `codex [-c …] exec --json -m MODEL
// --dangerously-bypass-approvals-and-sandbox PROMPT </dev/null` with
//
//	-c model_provider=fake
//	-c 'model_providers.fake={name="fake",base_url="http://127.0.0.1:PORT/v1",wire_api="responses",env_key="FAKE_API_KEY",request_max_retries=0,stream_max_retries=0}'
//
// and env FAKE_API_KEY=test (sent as "Authorization: Bearer test") and
// CODEX_HOME=<temp dir> (sessions live there; resume needs the same home).
// The -c flags work before the subcommand and after it (`codex exec -c …`),
// and also for `codex exec resume`. --skip-git-repo-check is not needed with
// --dangerously-bypass-approvals-and-sandbox, even outside a git repository.
// A CODEX_HOME under /tmp only prints a warning on stderr ("Refusing to create
// helper binaries under temporary dir"). Stderr also gets "Reading additional
// input from stdin..."; stdout carries only JSONL. A whole `exec` turn against
// the fake takes ≈ 0.4–0.7 s.
//
// Model names: an unknown name (e.g. "gpt-fake", even "gpt-5") works but adds
// an event {"type":"item.completed","item":{"type":"error","message":"Model
// metadata for `gpt-5` not found. Defaulting to fallback metadata; …"}} before
// turn.started. "gpt-5.5" (Model) is known: no such event; its tools are
// exec_command, write_stdin, request_user_input, apply_patch, view_image,
// get_goal, create_goal, update_goal, tool_search, web_search. ("gpt-6-sol" is
// known too but sends no tools list at all.)
//
// Endpoint: codex makes exactly one kind of call, POST /v1/responses (base_url
// + "/responses"), one per model step; no /v1/models or other calls were seen
// (unknown paths are logged with t.Logf and answered 404). Request headers:
// Accept: text/event-stream, Authorization: Bearer <key>, Content-Type:
// application/json (uncompressed), Originator: codex_exec, User-Agent:
// "codex_exec/0.169.0 (…)", Session-Id and Thread-Id and X-Client-Request-Id
// (= the thread id), X-Codex-Window-Id ("<thread>:0"), X-Codex-Beta-Features
// ("remote_compaction_v2"), X-Codex-Turn-Metadata (JSON: turn_id, sandbox,
// workspaces, model, …).
//
// Request body: model, stream=true, input (items), tools, tool_choice="auto",
// parallel_tool_calls, reasoning, store=false, include
// ["reasoning.encrypted_content"], prompt_cache_key (= thread id),
// client_metadata; no "instructions" (the system prompt is the first input
// item, a role=developer message). Input of a first turn: developer message
// (≈ 30 KB of prompt), developer message (skills), user message
// (<environment_context> with cwd, shell, date), user message (the prompt).
// After a tool call the next request appends
//
//	{"type":"function_call","id":"fc_…","name":"exec_command","arguments":"{\"cmd\":\"…\"}","call_id":"call_…","status":"completed"}
//	{"type":"function_call_output","id":"fco_…","call_id":"call_…","output":"Chunk ID: 96cf70\nWall time: 0.0305 seconds\nProcess exited with code 0\nOriginal token count: 13\nOutput:\n…"}
//
// A resumed thread (`codex exec resume THREAD_ID --json "next"`, same
// CODEX_HOME) sends the whole earlier conversation (the earlier user prompt and
// assistant message) followed by the new user message; its thread.started
// carries the same thread_id, and Session-Id stays the thread id.
//
// Shell tool: "exec_command" (unified exec), a function with parameters
// {cmd (required), workdir, login, shell, tty, yield_time_ms,
// max_output_tokens, justification, prefix_rule, sandbox_permissions}. codex
// runs it as `/bin/bash -lc "<cmd>"` in the turn's cwd and reports it as
// item.started/item.completed of type command_execution (command,
// aggregated_output, exit_code, status).
//
// Response: Server-Sent Events "event: T\ndata: {"type":T,…}\n\n". The fake
// sends response.created, response.in_progress, then per output item
// response.output_item.added, (message) response.content_part.added,
// response.output_text.delta…, response.output_text.done,
// response.content_part.done, (function_call)
// response.function_call_arguments.delta/.done, response.output_item.done, and
// finally response.completed whose response.usage (input_tokens,
// input_tokens_details.cached_tokens, output_tokens,
// output_tokens_details.reasoning_tokens, total_tokens) becomes turn.completed's
// usage (input_tokens, cached_input_tokens, cache_write_input_tokens (always 0
// here), output_tokens, reasoning_output_tokens), summed over all responses of
// the turn (measured: 1000+2000 input → 3000). codex needs only the
// output_item.done items and response.completed (with response.id); a
// response without usage counts as 0.
//
// Errors (with retries off): HTTP 400 → events error + turn.failed whose
// message is the raw error JSON body; HTTP 500 → "We’re currently experiencing
// high demand, which may cause temporary errors."; a response.failed event →
// "stream disconnected before completion: <message>". codex exits 1 in all
// three cases, after one request.
package fakeopenai
