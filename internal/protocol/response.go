package protocol

import "strings"

// Reply kinds returned by ParseResponse: the wire prefixes of hive's
// answers to an executor (seed 000's appendix).
const (
	ReplyCheckpoint = "CHECKPOINT_RESPONSE"
	ReplyDeviation  = "DEVIATION_RESPONSE"
)

// CheckpointResponse is the message that answers a CHECKPOINT.
func CheckpointResponse(answer string) string {
	return reply(ReplyCheckpoint, answer)
}

// DeviationResponse is the message that answers a DEVIATION.
func DeviationResponse(decision string) string {
	return reply(ReplyDeviation, decision)
}

// Ping asks a live agent that has printed nothing for silence whether it
// is still working.
func Ping(silence string) string {
	return "PING: hive has seen no output from you for " + silence + ". If you are still working, reply with a PROGRESS line."
}

func reply(kind, body string) string {
	return strings.TrimSpace(kind + ": " + strings.TrimSpace(body))
}

// ParseResponse reads a reply of hive to an executor: kind is
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
