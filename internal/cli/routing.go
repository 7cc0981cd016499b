package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hivectl/hive/internal/config"
	"github.com/hivectl/hive/internal/memory"
	"github.com/hivectl/hive/internal/pipeline"
)

// routing is how a new run routes on evidence: evaluation (--evaluate or
// routing.evaluate), the confidence floor, and, for a quick objective
// with routing.skip_proven, the roles this project's memory proves.
func routing(o *runOptions, cfg *config.Config, root, objective string) (pipeline.Routing, error) {
	r := cfg.Routing
	out := pipeline.Routing{Evaluate: o.evaluate || r.Evaluate, Floor: r.Floor(), Quick: pipeline.IsQuick(objective)}
	if !out.Evaluate {
		out.Floor = 0 // no evaluation, no computed confidence to hold to it
	}
	if !r.SkipProven || !out.Quick {
		return out, nil
	}
	runs, min := r.ProvenRuns, r.ProvenConfidence
	if runs == 0 {
		runs = 3
	}
	if min == 0 {
		min = 63
	}
	st, err := memory.Open(filepath.Join(root, memory.Path))
	if err != nil {
		return out, fmt.Errorf("routing.skip_proven reads the project's memory: %w (hive memory rebuild remakes it)", err)
	}
	defer st.Close()
	if out.Proven, err = st.Proven(runs, min); err != nil {
		return out, err
	}
	if len(out.Proven) > 0 {
		fmt.Fprintf(o.stderr, "routing: proven here (the last %d runs at %d/70 or more): %s; a quick objective may leave them out\n", runs, min, strings.Join(out.Proven, ", "))
	}
	return out, nil
}
