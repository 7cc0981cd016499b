package prompt

import (
	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/protocol"
)

// Message is the text a send command tells a live agent. The engine
// says what to tell; the words are the protocol's (and the continuation
// prompts are prompt.go's): hive's text to agents lives outside the engine.
func Message(c engine.Command) string {
	switch c.Message {
	case engine.MsgCheckpointResponse:
		return protocol.CheckpointResponse(c.Text)
	case engine.MsgDeviationResponse:
		return protocol.DeviationResponse(c.Text)
	case engine.MsgPing:
		return protocol.Ping(c.Text)
	case engine.MsgLoop:
		return "hive's loop guard: " + c.Text
	case engine.MsgRollover:
		return protocol.Rollover(c.Plan, c.Text)
	}
	return c.Text
}
