package executor

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/hivectl/hive/internal/sim/faults"
)

// EnvPipelineAttempt is the attempt of hive run's implementers' phase that
// a plan's executor works in: faults keyed "implementer" apply to the
// plans' executors of that attempt (implementer=challenge#1).
const EnvPipelineAttempt = "HIVE_PIPELINE_ATTEMPT"

// challengesPlan plays an implementer of hive run's phase that finds the
// architect's plan wrong: a challenge report, and the turn ends.
func (a *Agent) challengesPlan(id string) bool {
	n, err := strconv.Atoi(os.Getenv(EnvPipelineAttempt))
	if err != nil {
		return false
	}
	s := a.Set
	s.Attempt = n
	if !s.ForPlan("implementer").Has(faults.FaultChallenge) {
		return false
	}
	b, _ := json.MarshalIndent(map[string]any{"status": "challenge", "challenged_agent": "architect",
		"issue": "simulated: plan " + id + " names a file that does not fit the codebase", "evidence": "the sim says so",
		"suggestion": "name the files the codebase has", "severity": "blocking"}, "", "  ")
	a.Out.Text(fmt.Sprintf("<!--HIVE_REPORT\n%s\nHIVE_REPORT-->", b))
	a.Out.EndTurn()
	return true
}
