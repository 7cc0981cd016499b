package pipelinebench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/hivectl/hive/internal/bench/pipelinebench/objectives"
	"github.com/hivectl/hive/internal/bench/report"
)

// The pipeline group (`hive bench pipeline`) measures hive's routing
// itself (seed 003 §3): thirty fixture objectives, each run many times
// under three configurations (the implementer alone, the fixed full
// pipeline, and the planned pipeline with evaluators and computed
// confidence) by hive's real pipeline machine, the roles played by a
// seeded stochastic policy. It reports, per configuration, how often the
// hidden acceptance tests pass on what the run delivered, the tokens it
// billed and the human checkpoints it raised, and how well computed
// confidence, beside the agents' own, foretells the hidden tests (Brier
// score and a reliability table).

// pipelineTrials is how many times each objective runs under each
// configuration, each with its own random stream.
func pipelineTrials(quick bool) int {
	if quick {
		return 3
	}
	return 40
}

// pipelineSummary is what the runs of one configuration add up to.
type pipelineSummary struct {
	Config                string
	Runs, Passed          int
	Tokens, EvalTokens    int64
	Checkpoints           int
	BrierComputed         float64
	BrierSelf             float64
	ComputedBins, SelfBin []reliabilityBin
	ByClass               map[string][2]int // class → passed, runs
}

// reliabilityBin is one row of a reliability table: the runs whose
// confidence fell in [Lo, Hi), what they said on average, how many passed.
type reliabilityBin struct {
	Lo, Hi       float64
	Runs, Passed int
	Said         float64 // mean confidence
}

var binEdges = []float64{0, 0.5, 0.7, 0.85, 0.95, 1.0001}

// pipelineRuns runs the simulations on measured outcomes. Run k of an
// objective draws from its own stream, seeded by the objective, the
// language, k and the configuration, so a run is the same whatever else
// is measured.
func pipelineRuns(out objectives.Outcomes, seed uint64, trials int, pol benchPolicy) ([]pipelineSummary, error) {
	var sums []pipelineSummary
	for ci, cfg := range benchConfigs {
		var results []simResult
		for oi, o := range objectives.All {
			for li, lang := range objectives.Languages {
				for k := range trials {
					rng := rand.New(rand.NewPCG(seed, uint64(((oi*len(objectives.Languages)+li)*1000+k)*len(benchConfigs)+ci)))
					res, err := simulate(cfg, o, lang, out, pol, rng)
					if err != nil {
						return nil, err
					}
					results = append(results, res)
				}
			}
		}
		sums = append(sums, summarise(cfg.Name, results))
	}
	return sums, nil
}

func summarise(config string, results []simResult) pipelineSummary {
	s := pipelineSummary{Config: config, ByClass: map[string][2]int{}}
	computed, self := make([]reliabilityBin, len(binEdges)-1), make([]reliabilityBin, len(binEdges)-1)
	for i := range computed {
		computed[i].Lo, computed[i].Hi = binEdges[i], min(1, binEdges[i+1])
		self[i].Lo, self[i].Hi = computed[i].Lo, computed[i].Hi
	}
	for _, r := range results {
		s.Runs++
		outcome := 0.0
		c := s.ByClass[r.Class]
		c[1]++
		if r.Pass {
			s.Passed++
			outcome = 1
			c[0]++
		}
		s.ByClass[r.Class] = c
		s.Tokens += r.Tokens
		s.EvalTokens += r.EvalTokens
		s.Checkpoints += r.Checkpoints
		s.BrierComputed += (r.Computed - outcome) * (r.Computed - outcome)
		s.BrierSelf += (r.SelfReported - outcome) * (r.SelfReported - outcome)
		addToBin(computed, r.Computed, r.Pass)
		addToBin(self, r.SelfReported, r.Pass)
	}
	if s.Runs > 0 {
		s.BrierComputed /= float64(s.Runs)
		s.BrierSelf /= float64(s.Runs)
	}
	for i := range computed {
		computed[i].Said /= float64(max(1, computed[i].Runs))
		self[i].Said /= float64(max(1, self[i].Runs))
	}
	s.ComputedBins, s.SelfBin = computed, self
	return s
}

func addToBin(bins []reliabilityBin, said float64, passed bool) {
	for i := range bins {
		if said < binEdges[i+1] || i == len(bins)-1 {
			bins[i].Runs++
			bins[i].Said += said
			if passed {
				bins[i].Passed++
			}
			return
		}
	}
}

func (s pipelineSummary) passRate() float64   { return float64(s.Passed) / float64(max(1, s.Runs)) }
func (s pipelineSummary) tokensPerRun() int64 { return s.Tokens / int64(max(1, s.Runs)) }

// Rows measures the group and reports it.
func Rows(ctx context.Context, o report.Options) []report.Row {
	trials := pipelineTrials(o.Quick)
	dir, err := os.MkdirTemp("", "hive-bench-pipeline-")
	if err != nil {
		return []report.Row{report.ErrorRow("pipeline", "hidden-test pass rate", err)}
	}
	defer os.RemoveAll(dir)
	out, err := objectives.Measure(ctx, dir)
	if err != nil {
		return []report.Row{report.ErrorRow("pipeline", "hidden-test pass rate", err)}
	}
	sums, err := pipelineRuns(out, o.Seed, trials, defaultPolicy)
	if err != nil {
		return []report.Row{report.ErrorRow("pipeline", "hidden-test pass rate", err)}
	}
	harsh, err := pipelineRuns(out, o.Seed, trials, harshPolicy)
	if err != nil {
		return []report.Row{report.ErrorRow("pipeline", "under a harsher policy", err)}
	}
	return append(pipelineReport(sums, trials), harshRow(harsh))
}

// harshRow is the goals' figures under harshPolicy, on one row.
func harshRow(sums []pipelineSummary) report.Row {
	by := map[string]pipelineSummary{}
	var pass []string
	for _, s := range sums {
		by[s.Config] = s
		pass = append(pass, fmt.Sprintf("%.1f%%", 100*s.passRate()))
	}
	fixed, planned := by["fixed full"], by["planned"]
	return report.Row{Group: "pipeline", Name: "under a harsher policy: pass rates, planned tokens / fixed, Brier", Value: 100 * planned.passRate(), Unit: "%",
		Figure: fmt.Sprintf("%s; %.0f%%; %.3f computed, %.3f self-reported", strings.Join(pass, " / "),
			100*float64(planned.Tokens)/float64(max(1, fixed.Tokens)), planned.BrierComputed, planned.BrierSelf),
		Status: report.Info, Note: harshPolicy.String()}
}

// pipelineReport turns the summaries into rows: the three configurations
// side by side, then the goals, then the reliability table.
func pipelineReport(sums []pipelineSummary, trials int) []report.Row {
	by := map[string]pipelineSummary{}
	var names, pass, tokens, cps, briers []string
	for _, s := range sums {
		by[s.Config] = s
		names = append(names, s.Config)
		pass = append(pass, fmt.Sprintf("%.1f%%", 100*s.passRate()))
		tokens = append(tokens, fmt.Sprintf("%.0fk", float64(s.tokensPerRun())/1000))
		cps = append(cps, fmt.Sprintf("%.2f", float64(s.Checkpoints)/float64(max(1, s.Runs))))
		briers = append(briers, fmt.Sprintf("%.3f/%.3f", s.BrierComputed, s.BrierSelf))
	}
	cols := strings.Join(names, " / ")
	fixed, planned := by["fixed full"], by["planned"]
	runs := fmt.Sprintf("%d objectives × %d runs each, per configuration (%d runs)", len(objectives.All)*len(objectives.Languages), trials, planned.Runs)
	g := "pipeline"
	rows := []report.Row{
		{Group: g, Name: "hidden tests pass: " + cols, Value: 100 * planned.passRate(), Unit: "%", Figure: strings.Join(pass, " / "), Status: report.Info,
			Note: runs + "; roles played with " + defaultPolicy.String()},
		{Group: g, Name: "tokens per run: " + cols, Value: float64(planned.tokensPerRun()), Unit: "tokens", Figure: strings.Join(tokens, " / "), Status: report.Info,
			Note: fmt.Sprintf("agent sessions from the size model, the planner's and evaluators' calls (the evaluators: %.1f%% of the planned tokens)", 100*float64(planned.EvalTokens)/float64(max(1, planned.Tokens)))},
		{Group: g, Name: "human checkpoints per run: " + cols, Value: float64(planned.Checkpoints) / float64(max(1, planned.Runs)), Unit: "per run", Figure: strings.Join(cps, " / "), Status: report.Info,
			Note: "unattended (--yes): only what hive cannot decide"},
		{Group: g, Name: "Brier computed/self-reported: " + cols, Value: planned.BrierComputed, Unit: "Brier", Figure: strings.Join(briers, " / "), Status: report.Info,
			Note: "without evaluators computed confidence is hive's checks alone"},
		{Group: g, Name: "planned pass rate vs fixed", Value: 100 * planned.passRate(), Unit: "%",
			Figure: fmt.Sprintf("%.1f%% vs %.1f%%", 100*planned.passRate(), 100*fixed.passRate()), Target: "≥ fixed",
			Status: report.Judge(planned.Passed*fixed.Runs >= fixed.Passed*planned.Runs), Note: difference(planned, fixed) + "; " + classRates(planned, fixed)},
		{Group: g, Name: "planned tokens / fixed", Value: 100 * float64(planned.Tokens) / float64(max(1, fixed.Tokens)), Unit: "%",
			Figure: fmt.Sprintf("%.0f%%", 100*float64(planned.Tokens)/float64(max(1, fixed.Tokens))), Target: "≤ 60%",
			Status: report.Judge(float64(planned.Tokens) <= 0.6*float64(fixed.Tokens))},
		{Group: g, Name: "Brier score of computed confidence (planned)", Value: planned.BrierComputed,
			Unit: "Brier", Figure: fmt.Sprintf("%.3f", planned.BrierComputed), Target: "≤ 0.15", Status: report.Judge(planned.BrierComputed <= 0.15)},
		{Group: g, Name: "Brier score of self-reported confidence (planned)", Value: planned.BrierSelf, Unit: "Brier",
			Figure: fmt.Sprintf("%.3f", planned.BrierSelf), Target: "worse than computed", Status: report.Judge(planned.BrierSelf > planned.BrierComputed)},
	}
	for i, b := range planned.ComputedBins {
		sb := planned.SelfBin[i]
		if b.Runs+sb.Runs == 0 {
			continue
		}
		rows = append(rows, report.Row{Group: g, Name: fmt.Sprintf("reliability, confidence %.2f–%.2f (planned)", b.Lo, b.Hi), Value: float64(b.Runs), Unit: "runs",
			Figure: fmt.Sprintf("computed %s · self-reported %s", binText(b), binText(sb)), Status: report.Info})
	}
	return rows
}

// binText is "n 120, says 0.91, passes 0.93".
func binText(b reliabilityBin) string {
	if b.Runs == 0 {
		return "n 0"
	}
	return fmt.Sprintf("n %d, says %.2f, passes %.2f", b.Runs, b.Said, float64(b.Passed)/float64(b.Runs))
}

// difference is "+0.3 ± 0.5 points (1 s.e.)": how far the pass rates
// differ, beside the sampling error of that difference.
func difference(a, b pipelineSummary) string {
	pa, pb := a.passRate(), b.passRate()
	se := math.Sqrt(pa*(1-pa)/float64(max(1, a.Runs)) + pb*(1-pb)/float64(max(1, b.Runs)))
	return fmt.Sprintf("%+.1f ± %.1f points (1 s.e.)", 100*(pa-pb), 100*se)
}

// classRates is each class's pass rate, planned vs fixed.
func classRates(planned, fixed pipelineSummary) string {
	var parts []string
	for _, c := range []string{objectives.ClassTypo, objectives.ClassSmall, objectives.ClassBug, objectives.ClassFeature} {
		p, f := planned.ByClass[c], fixed.ByClass[c]
		parts = append(parts, fmt.Sprintf("%s %.0f%% vs %.0f%%", c, 100*float64(p[0])/float64(max(1, p[1])), 100*float64(f[0])/float64(max(1, f[1]))))
	}
	return strings.Join(parts, ", ")
}
