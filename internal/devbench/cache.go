package devbench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/hivectl/hive/internal/bench/project"
	"github.com/hivectl/hive/internal/bench/report"
	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/pricing"
	fa "github.com/hivectl/hive/internal/testsupport/fakeanthropic"
)

// cachePlans is the size of the phase the cache is measured on.
const cachePlans = 6

// CacheShareGoal is the share of input tokens the sessions after the first
// should read from the prompt cache (issue: models, budgets, loop guard).
const CacheShareGoal = 0.70

// cacheRows runs a phase of cachePlans plans, three at a time, through the
// real claude CLI in team mode against the fake model server, which bills
// each request as the API's prompt cache would (see fakeanthropic), and
// reports how much of the input the cache served: over the sessions after
// the first, which find the stable prefix (tools, system prompt) already
// written, and over the whole phase, with what caching saved in dollars.
func cacheRows(ctx context.Context, bin string) []report.Row {
	s, err := cacheRun(ctx, bin)
	if err != nil {
		return []report.Row{report.ErrorRow("tokens", "cache: read share of input tokens", err)}
	}
	later := s.later.share()
	return []report.Row{
		{Group: "tokens", Name: fmt.Sprintf("cache: read share of input, %d-plan phase, sessions after the first", cachePlans),
			Value: 100 * later, Unit: "%", Figure: fmt.Sprintf("%.1f%% (%d sessions, %d requests)", 100*later, s.sessions-1, s.later.requests),
			Target: fmt.Sprintf("≥ %.0f%%", 100*CacheShareGoal), Status: report.Judge(later >= CacheShareGoal),
			Note: "real claude CLI; the fake server caches prefixes at cache_control breakpoints as the API does"},
		{Group: "tokens", Name: fmt.Sprintf("cache: read share of input, whole %d-plan phase", cachePlans),
			Value: 100 * s.all.share(), Unit: "%", Figure: fmt.Sprintf("%.1f%%, $%.4f instead of $%.4f uncached (%.0f%% saved)",
				100*s.all.share(), s.all.usd, s.all.uncachedUSD, 100*(1-s.all.usd/max(s.all.uncachedUSD, 1e-9))),
			Status: report.Info},
	}
}

// cacheTally sums the billed input of a set of requests.
type cacheTally struct {
	requests           int
	input, write, read int
	usd, uncachedUSD   float64 // at the model's price; as if every input token were plain input
}

func (c *cacheTally) add(model string, u fa.Usage) {
	c.requests++
	c.input += u.InputTokens
	c.write += u.CacheCreationInputTokens
	c.read += u.CacheReadInputTokens
	p, _ := pricing.Defaults().Lookup(model)
	c.usd += p.Cost(pricing.Usage{Input: int64(u.InputTokens), Output: int64(u.OutputTokens),
		CacheWrite: int64(u.CacheCreationInputTokens), CacheRead: int64(u.CacheReadInputTokens)})
	c.uncachedUSD += p.Cost(pricing.Usage{Input: int64(u.AllInput()), Output: int64(u.OutputTokens)})
}

// share is the part of the input read from the cache.
func (c cacheTally) share() float64 {
	return float64(c.read) / float64(max(c.input+c.write+c.read, 1))
}

type cacheStats struct {
	all, later cacheTally
	sessions   int
}

func cacheRun(ctx context.Context, bin string) (cacheStats, error) {
	dir, err := os.MkdirTemp("", "hive-bench-cache-")
	if err != nil {
		return cacheStats{}, err
	}
	defer os.RemoveAll(dir)
	var d project.DAG
	for i := 1; i <= cachePlans; i++ {
		d.Plans = append(d.Plans, phase.PlanSpec{ID: fmt.Sprintf("01-%04d", i), Tasks: 2})
	}
	proj, err := project.NewProject(ctx, filepath.Join(dir, "repo"), d, false)
	if err != nil {
		return cacheStats{}, err
	}
	srv, err := runRealClaude(ctx, bin, dir, proj, cacheExecutor(), 3, true)
	if err != nil {
		return cacheStats{}, err
	}
	var s cacheStats
	first := ""
	sessions := map[string]bool{}
	for _, r := range srv.MainRequests() {
		id := r.Header.Get("X-Claude-Code-Session-Id")
		if first == "" {
			first = id
		}
		sessions[id] = true
		s.all.add(r.Conv.Model, r.Usage)
		if id != first {
			s.later.add(r.Conv.Model, r.Usage)
		}
	}
	s.sessions = len(sessions)
	if s.sessions != cachePlans {
		return s, fmt.Errorf("%d claude sessions for %d plans", s.sessions, cachePlans)
	}
	return s, nil
}

var cachePlanRe = regexp.MustCompile(`- Plan: (\S+-PLAN\.md)`)

// cacheExecutor plays each plan's executor: it reads the plan, looks at the
// history once per task, and reports PLAN COMPLETE with the plan's
// prepared commit (the bench project holds each plan's results already).
func cacheExecutor() fa.Rule {
	return fa.Rule{
		Name: "bench-cache-executor",
		Reply: func(c *fa.Conversation) fa.Reply {
			first := ""
			for _, m := range c.Messages {
				if t := m.Text(); m.Role == "user" && t != "" {
					first = t
					break
				}
			}
			path := "PLAN.md"
			if m := cachePlanRe.FindStringSubmatch(first); m != nil {
				path = m[1]
			}
			id := strings.TrimSuffix(filepath.Base(path), "-PLAN.md")
			steps := []fa.Reply{fa.Bash("cat " + path), fa.Bash("git log --oneline -3"), fa.Bash("git status --short"),
				fa.Text(fmt.Sprintf("PROGRESS: Task 1/2 complete: feat(%s): write\nPROGRESS: Task 2/2 complete: feat(%s): check\n\nPLAN COMPLETE\n\n**Plan:** %s\n**Tasks:** 2/2\n**SUMMARY:** %s\n\n**Commits:**\n- 0000000 docs(%s): complete plan",
					id, id, id, strings.TrimSuffix(path, "-PLAN.md")+"-SUMMARY.md", id))}
			_, k := c.LastPrompt()
			return steps[min(k, len(steps)-1)]
		},
	}
}
