package prompt

import (
	"testing"

	"github.com/hivectl/hive/internal/phase"
)

// The engine's send commands become the protocol's words (seed 000's
// appendix), which the agents' prompts teach them to read.
func TestMessageText(t *testing.T) {
	for _, tt := range []struct {
		c    phase.Command
		want string
	}{
		{phase.Command{Message: phase.MsgCheckpointResponse, Text: " approved "}, "CHECKPOINT_RESPONSE: approved"},
		{phase.Command{Message: phase.MsgDeviationResponse, Text: "defer"}, "DEVIATION_RESPONSE: defer"},
		{phase.Command{Message: phase.MsgPing, Text: "5m0s"}, "PING: hive has seen no output from you for 5m0s. If you are still working, reply with a PROGRESS line."},
	} {
		if got := Message(tt.c); got != tt.want {
			t.Errorf("Message(%s %q) = %q, want %q", tt.c.Message, tt.c.Text, got, tt.want)
		}
	}
}
