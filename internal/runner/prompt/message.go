package prompt

import (
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/protocol"
)

// Message is the text a send command tells a live agent. The engine
// says what to tell; the words are the protocol's (and the continuation
// prompts are prompt.go's): hive's text to agents lives outside the engine.
func Message(c phase.Command) string {
	switch c.Message {
	case phase.MsgCheckpointResponse:
		return protocol.CheckpointResponse(c.Text)
	case phase.MsgDeviationResponse:
		return protocol.DeviationResponse(c.Text)
	case phase.MsgPing:
		return protocol.Ping(c.Text)
	case phase.MsgLoop:
		return "hive's loop guard: " + c.Text
	case phase.MsgRollover:
		return protocol.Rollover(c.Plan, c.Text)
	}
	return c.Text
}
