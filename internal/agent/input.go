package agent

import (
	"bytes"
	"encoding/json"
)

// What hive writes to a live stream-json session (Dialect.Input "stream"):
// Process.Send, Interrupt and AnswerPermission write these lines. What an
// agent prints is read by its CLI's adapter (package adapter).

// UserMessage renders a stream-json input line carrying text as the user's turn.
func UserMessage(text string) []byte {
	b, _ := json.Marshal(map[string]any{
		"type":    "user",
		"message": map[string]any{"role": "user", "content": text},
	})
	return append(b, '\n')
}

// PermissionResponse renders the control_response that answers a
// can_use_tool request: allow (running the tool with input, the request's
// own input JSON) or deny (message is what the model is told).
func PermissionResponse(requestID string, allow bool, input, message string) []byte {
	var resp map[string]any
	if allow {
		in := json.RawMessage(input)
		if !json.Valid(in) {
			in = json.RawMessage("{}")
		}
		resp = map[string]any{"behavior": "allow", "updatedInput": in}
	} else {
		if message == "" {
			message = "permission denied"
		}
		resp = map[string]any{"behavior": "deny", "message": message}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b) // ends the line with '\n'
	enc.SetEscapeHTML(false)   // the input goes back as the CLI printed it
	enc.Encode(map[string]any{
		"type":     "control_response",
		"response": map[string]any{"subtype": "success", "request_id": requestID, "response": resp},
	})
	return b.Bytes()
}
