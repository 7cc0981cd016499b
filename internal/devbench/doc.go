// Package devbench is hive bench's groups that drive the real agent CLIs
// against hive's fake model servers: the token cost of checkpoints in team
// and standalone mode, the prompt cache's share of a phase, and hive's own
// share of a hive run's wall time, the real Claude Code playing every role.
// The fake servers are test programs, so the hive binary does not link
// this package: cmd/hive-dev, hive with these groups in bench, does (make
// bench runs it).
package devbench

import "github.com/hivectl/hive/internal/bench"

// Groups are the groups that replace hive's own of the same names in
// cmd/hive-dev's bench.
func Groups() []bench.Group {
	return []bench.Group{{Name: "tokens", Measure: tokenRows}}
}
