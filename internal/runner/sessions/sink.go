package sessions

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hivectl/hive/internal/agent"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/pricing"
	"github.com/hivectl/hive/internal/protocol"
	"github.com/hivectl/hive/internal/words"
	"github.com/hivectl/hive/internal/work"
)

// sink receives agent Outputs on the agents' goroutines and turns them into
// events for the loop.
func (a *Agents) sink(o agent.Output) {
	switch o.Kind {
	case agent.OutText:
		for _, m := range protocol.Parse(o.Text) {
			ev := phase.Event{Plan: o.Plan, Attempt: o.Attempt}
			if m.Plan != "" && m.Plan != o.Plan {
				a.inbox.Note(o.Plan, fmt.Sprintf("message names plan %s, not %s; taken as %s's", m.Plan, o.Plan, o.Plan))
			}
			switch m.Kind {
			case protocol.Progress:
				ev.Type, ev.Task, ev.Total, ev.Text = phase.EvProgress, m.Task, m.Total, m.Text
			case protocol.Complete:
				// Claude writes one line per content block: a SUMMARY commit
				// may still follow this text in the same turn. The disk is
				// checked once the turn (or the process) has ended.
				ev.Type, ev.Commits, ev.Text = phase.EvPlanComplete, m.Commits, m.Summary
				a.mu.Lock()
				a.held[sessionKey{o.Plan, o.Attempt}] = &ev
				a.mu.Unlock()
				continue
			case protocol.Failed:
				ev.Type, ev.Reason = phase.EvPlanFailed, m.Text
			case protocol.Checkpoint:
				ev.Type, ev.Checkpoint = phase.EvCheckpoint, checkpointOf(m.Checkpoint)
			case protocol.HiveReport:
				if m.Report.Err != "" {
					a.inbox.Note(o.Plan, "unreadable HIVE_REPORT (kept in the log): "+m.Report.Err)
					continue
				}
				ev.Type, ev.Report = phase.EvReport, &m.Report.Report
			case protocol.Deviation:
				ev.Type = phase.EvDeviation
				ev.Checkpoint = &phase.Checkpoint{Details: m.Deviation.Details, Raw: m.Deviation.Raw, Awaiting: "yes / different approach / defer"}
			default:
				continue
			}
			a.inbox.Send(ev)
		}
	case agent.OutPermission:
		a.inbox.Send(phase.Event{Type: phase.EvCheckpoint, Plan: o.Plan, Attempt: o.Attempt, Checkpoint: permissionCheckpoint(o)})
	case agent.OutToolCall:
		a.inbox.Send(phase.Event{Type: phase.EvToolCall, Plan: o.Plan, Attempt: o.Attempt, Tool: o.Tool, Text: Fingerprint(o.Tool, o.Input)})
	case agent.OutSpend:
		a.inbox.Send(a.usage(phase.EvSpend, o))
	case agent.OutCompacted:
		a.inbox.Send(phase.Event{Type: phase.EvCompacted, Plan: o.Plan, Attempt: o.Attempt, Text: o.Text, PreTokens: o.PreTokens, ContextTokens: o.Context})
	case agent.OutGarbage:
		a.inbox.Note(o.Plan, "unparseable agent output (kept in the log): "+clip(o.Text, 120))
	case agent.OutResult:
		if o.IsError {
			msg := clip(o.Text, 500)
			if msg == "" {
				msg = "(the CLI gave no message)"
			}
			switch {
			case o.Stalled:
				a.inbox.Note(o.Plan, "the interrupted turn ended: "+msg)
			case o.Limit != nil:
				// The provider's limit, not the agent's work: the engine
				// waits for it to pass.
				a.mu.Lock()
				fallback := a.fallbacks[sessionKey{o.Plan, o.Attempt}]
				a.mu.Unlock()
				a.inbox.Send(phase.Event{Type: phase.EvLimited, Plan: o.Plan, Attempt: o.Attempt,
					Limit: &work.Limit{Kind: o.Limit.Kind, Reset: o.Limit.ResetAt(a.now()), Window: o.Limit.Window, Text: msg, Fallback: fallback}})
			default:
				// The CLI's own error text (an API error, a turn limit) fails
				// the plan; the human, or --yes, decides whether to retry.
				a.inbox.Send(phase.Event{Type: phase.EvPlanFailed, Plan: o.Plan, Attempt: o.Attempt, Reason: "the agent's turn ended in an error: " + msg})
			}
		}
		if len(o.Denied) > 0 {
			a.inbox.Note(o.Plan, fmt.Sprintf("the agent was refused %d tool call(s): %s (allow them in models.executor args, e.g. --allowedTools)", len(o.Denied), strings.Join(o.Denied, ", ")))
		}
		// A PLAN COMPLETE said in the turn goes first: the turn's end
		// then finds the plan being checked, not an agent to hand over.
		a.releaseHeld(o)
		// Every turn's end is an event, with or without usage: the engine
		// decides what a turn that ended means (the verifier's report is
		// read then).
		a.inbox.Send(a.usage(phase.EvUsage, o))
	case agent.OutExit:
		a.releaseHeld(o)
		a.inbox.Send(phase.Event{Type: phase.EvAgentExited, Plan: o.Plan, Attempt: o.Attempt, ExitCode: o.ExitCode, Reason: o.Err})
	}
}

// usage is the event of a request's spend (EvSpend) or a turn's end
// (EvUsage): its tokens, priced by hive at the price of the model that did
// the turn (as the CLI says, else the model the session was started with).
// A model without a price leaves the turn to the CLI's own figure.
func (a *Agents) usage(typ phase.EventType, o agent.Output) phase.Event {
	u := o.Usage
	ev := phase.Event{Type: typ, Plan: o.Plan, Attempt: o.Attempt,
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CostUSD: o.CostUSD,
		CacheReadTokens: u.CacheReadInputTokens, CacheWriteTokens: u.CacheCreationInputTokens}
	ev.Model = o.Model
	if ev.Model == "" {
		a.mu.Lock()
		ev.Model = a.models[sessionKey{o.Plan, o.Attempt}]
		a.mu.Unlock()
	}
	usd, ok := a.prices.Cost(ev.Model, pricing.Usage{Input: u.InputTokens, Output: u.OutputTokens,
		CacheWrite: u.CacheCreationInputTokens, CacheRead: u.CacheReadInputTokens})
	ev.Priced, ev.TurnUSD = ok, usd
	ev.ContextTokens, ev.ContextWindow = o.Context, o.Window
	if ev.ContextWindow == 0 {
		ev.ContextWindow = pricing.ContextWindow(ev.Model)
	}
	return ev
}

// Fingerprint identifies a tool call's input for the loop guard without
// journaling it whole (a Write carries a whole file): a hash of the input,
// then what it does in a few words for the human.
func Fingerprint(tool, input string) string {
	sum := sha256.Sum256([]byte(tool + "\x00" + input))
	return hex.EncodeToString(sum[:8]) + " " + clip(inputSummary(tool, input), 80)
}

// permissionCheckpoint is the checkpoint of an agent's permission request.
func permissionCheckpoint(o agent.Output) *phase.Checkpoint {
	return &phase.Checkpoint{
		Type:      "permission",
		Details:   o.Tool + " wants to run: " + inputSummary(o.Tool, o.Input),
		Awaiting:  "allow, deny, or always (allow this tool for the rest of the run)",
		Options:   []string{"allow", "deny", "always"},
		Raw:       "request " + o.RequestID + ": " + o.Input,
		Tool:      o.Tool,
		RequestID: o.RequestID,
		Input:     o.Input,
	}
}

// inputSummary says in a line what a tool call would do: the command of a
// Bash call, the file of a Write or Edit, else the input itself.
func inputSummary(tool, input string) string {
	var in map[string]any
	if json.Unmarshal([]byte(input), &in) == nil {
		for _, k := range SummaryKeys() {
			if v, ok := in[k].(string); ok && v != "" {
				return clip(words.OneLine(v), 300)
			}
		}
	}
	return clip(words.OneLine(input), 300)
}

// SummaryKeys are the fields of a tool call's input that say what the call
// does (its command, its file), in the order a summary prefers them.
func SummaryKeys() []string {
	return []string{"command", "file_path", "path", "notebook_path", "url", "pattern"}
}

// releaseHeld sends the PLAN COMPLETE held back for o's session, if any.
func (a *Agents) releaseHeld(o agent.Output) {
	k := sessionKey{o.Plan, o.Attempt}
	a.mu.Lock()
	ev := a.held[k]
	delete(a.held, k)
	a.mu.Unlock()
	if ev != nil {
		a.inbox.Send(*ev)
	}
}

// checkpointOf turns a parsed CHECKPOINT message into the engine's record.
func checkpointOf(c *protocol.CheckpointData) *phase.Checkpoint {
	cp := &phase.Checkpoint{
		Type:       c.Type,
		Done:       c.Done,
		Total:      c.Total,
		Details:    c.Details,
		Awaiting:   c.Awaiting,
		Standalone: c.Standalone,
		Raw:        c.Raw,
	}
	if c.Current != nil {
		cp.Task = c.Current.Number
	}
	for _, o := range c.Options {
		cp.Options = append(cp.Options, o.ID)
	}
	return cp
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
