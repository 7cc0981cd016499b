package adapter

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/hivectl/hive/internal/agent"
)

func FuzzStreamJSON(f *testing.F) {
	for _, s := range []string{
		`{"type":"system","subtype":"init","session_id":"s1"}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"PROGRESS: Task 1/2 complete: x"},{"type":"tool_use"}]}}`,
		`{"type":"assistant","message":{"content":"plain"}}`,
		`{"type":"assistant","message":{"content":null}}`,
		`{"type":"assistant","message":{"content":[1,"a",null,{"type":"text","text":7}]}}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"done","usage":{"input_tokens":1,"output_tokens":2},"total_cost_usd":0.5,"permission_denials":[{"tool_name":"Bash"},null]}`,
		`{"type":"result","usage":{"input_tokens":1e99}}`,
		`{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"}}}`,
		`{"type":"control_request","request_id":"r1","request":null}`,
		`{"type":""}`, `[]`, `null`, `"x"`, "\x00", `{"type":"x"}{"type":"y"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseLine(b)
		outs, err2 := (&turnMeter{}).outputs(b)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("ParseLine and the stream-json dialect disagree: %v / %v", err, err2)
		}
		if err != nil {
			if len(outs) != 0 {
				t.Fatalf("outputs with an error")
			}
			return
		}
		if l.Type == "" {
			t.Fatal("a line without a type was accepted")
		}
		if l.Type == "control_request" && l.Input != "" && !json.Valid([]byte(l.Input)) {
			t.Fatalf("permission input %q is not JSON", l.Input)
		}
		for _, o := range outs {
			switch o.Kind {
			case agent.OutText:
				if o.Text == "" {
					t.Fatal("empty text block")
				}
			case agent.OutPermission:
				if o.RequestID == "" || !json.Valid([]byte(o.Input)) {
					t.Fatalf("bad permission request %+v", o)
				}
				// The answer to it is always one valid JSON line.
				resp := agent.PermissionResponse(o.RequestID, true, o.Input, "")
				if !json.Valid(resp) || resp[len(resp)-1] != '\n' {
					t.Fatalf("bad response %q", resp)
				}
			case agent.OutResult:
			default:
				t.Fatalf("unexpected output kind %d", o.Kind)
			}
		}
		// Whatever hive sends back is one line of valid JSON.
		for _, text := range l.Texts {
			m := agent.UserMessage(text)
			if !json.Valid(m) || m[len(m)-1] != '\n' || (utf8.ValidString(text) && countNL(m) != 1) {
				t.Fatalf("bad user message %q", m)
			}
		}
	})
}

func countNL(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}

func FuzzCodexJSONL(f *testing.F) {
	for _, s := range []string{
		`{"type":"thread.started","thread_id":"t1"}`,
		`{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"PLAN COMPLETE"}}`,
		`{"type":"item.completed","item":{"type":"command_execution","command":"ls"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":120,"cached_input_tokens":0,"output_tokens":7}}`,
		`{"type":"turn.failed","error":{"message":"model overloaded"}}`,
		`{"type":"turn.failed","error":"plain"}`, `{"type":"turn.failed","error":null}`,
		`{"type":"error","message":"stream disconnected"}`,
		`{"type":"item.completed","item":null}`, `{"type":"turn.completed","usage":[]}`, `not json`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		outs, err := codexOutputs(b)
		if err != nil && len(outs) != 0 {
			t.Fatal("outputs with an error")
		}
		for _, o := range outs {
			switch o.Kind {
			case agent.OutText:
				if o.Text == "" {
					t.Fatal("empty text")
				}
			case agent.OutResult:
			default:
				t.Fatalf("unexpected output kind %d", o.Kind)
			}
		}
	})
}

// Found by FuzzStreamJSON: a plain-string content that is empty gave an
// empty text block (testdata/fuzz/FuzzStreamJSON/6f870eb4de5903e3).
func TestEmptyStringContentIsNoText(t *testing.T) {
	outs, err := (&turnMeter{}).outputs([]byte(`{"type":"assistant","message":{"content":""}}`))
	if err != nil || len(outs) != 0 {
		t.Errorf("outputs %+v, %v; want none", outs, err)
	}
}
