package adapter

import "testing"

// BenchmarkParseLine parses Claude Code stream-json lines of the kinds a
// session prints most: assistant text, and the result that ends a turn.
func BenchmarkParseLine(b *testing.B) {
	lines := map[string]string{
		"assistant": `{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[{"type":"text","text":"PROGRESS: Task 2/5 complete: feat(03-01): add user model"}],"stop_reason":null,"usage":{"input_tokens":1200,"output_tokens":40}},"parent_tool_use_id":null,"session_id":"0b5c1a52-7d4e-4f7e-9a0c-1d2e3f4a5b6c"}`,
		"result":    `{"type":"result","subtype":"success","is_error":false,"duration_ms":1234,"duration_api_ms":1100,"num_turns":3,"result":"done","session_id":"0b5c1a52-7d4e-4f7e-9a0c-1d2e3f4a5b6c","total_cost_usd":0.0123,"usage":{"input_tokens":1200,"output_tokens":340},"modelUsage":{"claude":{"inputTokens":1200,"outputTokens":340,"contextWindow":200000,"costUSD":0.0123}},"permission_denials":[]}`,
	}
	for _, name := range []string{"assistant", "result"} {
		line := []byte(lines[name])
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseLine(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
