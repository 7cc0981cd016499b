package e2etest

import (
	"fmt"
	"strings"
)

// Phase03Dir is the phase of Phase03Auth.
const Phase03Dir = ".planning/phases/03-auth"

// Phase03Auth holds the plans of internal/cli/testdata/script/checkpoints_team.txtar:
// 03-01 with a checkpoint:decision, 03-02 with a checkpoint:human-verify,
// 03-03 autonomous.
var Phase03Auth = map[string]string{
	Phase03Dir + "/03-01-PLAN.md": `---
phase: 03-auth
plan: 01
type: execute
wave: 1
depends_on: []
files_modified: [src/auth/provider.ts, src/auth/session.ts]
autonomous: false
---
<objective>Authentication provider</objective>
<tasks>
<task type="auto"><name>Task 1: Provider interface</name><files>src/auth/provider.ts</files><action>Define ` + "`interface AuthProvider { signIn(): Promise<User> }`" + `.</action><done>interface exists</done></task>
<task type="checkpoint:decision" gate="blocking">
  <name>Task 2: Choose the provider</name>
  <decision>Select authentication provider</decision>
  <context>Need user auth. Three options with different tradeoffs.</context>
  <options>
    <option id="supabase"><name>Supabase</name><pros>Built-in with our DB</pros><cons>Less customizable UI</cons></option>
    <option id="clerk"><name>Clerk</name><pros>Best DX</pros><cons>Paid after 10k MAU</cons></option>
    <option id="nextauth"><name>NextAuth</name><pros>Free</pros><cons>More setup</cons></option>
  </options>
  <resume-signal>Select: supabase, clerk, or nextauth</resume-signal>
</task>
<task type="auto"><name>Task 3: Session</name><files>src/auth/session.ts</files><action>Wire the chosen provider.</action><done>sessions work</done></task>
</tasks>
`,
	Phase03Dir + "/03-02-PLAN.md": `---
phase: 03-auth
plan: 02
type: execute
wave: 1
depends_on: []
files_modified: [src/ui/dashboard.tsx]
autonomous: false
---
<objective>Dashboard layout</objective>
<tasks>
<task type="auto"><name>Task 1: Layout</name><files>src/ui/dashboard.tsx</files><action>Sidebar and content.</action><done>renders</done></task>
<task type="checkpoint:human-verify" gate="blocking">
  <name>Task 2: Check the layout</name>
  <what-built>Responsive dashboard at http://localhost:3000/dashboard</what-built>
  <how-to-verify>Visit it at 375px, 768px and 1280px.</how-to-verify>
  <resume-signal>Type "approved" or describe layout issues</resume-signal>
</task>
</tasks>
`,
	Phase03Dir + "/03-03-PLAN.md": `---
phase: 03-auth
plan: 03
type: execute
wave: 1
depends_on: []
files_modified: [docs/auth.md]
autonomous: true
---
<objective>Document auth</objective>
<tasks>
<task type="auto"><name>Task 1: Docs</name><files>docs/auth.md</files><action>Explain sign-in.</action><done>docs exist</done></task>
</tasks>
`,
}

// Task is what a fake executor knows of a plan's task.
type Task struct {
	Name       string
	File       string // auto tasks
	Body       string // what an auto task writes in File, where a test needs it
	Checkpoint string // "decision", "human-verify", ...; "" for auto tasks
}

// Phase03Tasks are the tasks of the plans of Phase03Auth.
var Phase03Tasks = map[string][]Task{
	"03-01": {
		{Name: "Provider interface", File: "src/auth/provider.ts"},
		{Name: "Choose the provider", Checkpoint: "decision"},
		{Name: "Session", File: "src/auth/session.ts"},
	},
	"03-02": {
		{Name: "Layout", File: "src/ui/dashboard.tsx"},
		{Name: "Check the layout", Checkpoint: "human-verify"},
	},
	"03-03": {
		{Name: "Docs", File: "docs/auth.md"},
	},
}

// Phase03Answers answers the checkpoint of each plan of Phase03Auth that has one.
var Phase03Answers = map[string]string{"03-01": "clerk", "03-02": "approved"}

// Phase01Dir is the phase of SixPlans.
const Phase01Dir = ".planning/phases/01-core"

// SixPlanTasks are the tasks of SixPlans: plan 01-0N writes src/pN.go in
// its first task and src/qN.go in its second.
var SixPlanTasks = func() map[string][]Task {
	tasks := map[string][]Task{}
	for n := 1; n <= 6; n++ {
		id := fmt.Sprintf("01-%02d", n)
		for _, part := range []string{"p", "q"} {
			name := fmt.Sprintf("%s%d", part, n)
			tasks[id] = append(tasks[id], Task{Name: name, File: "src/" + name + ".go",
				Body: fmt.Sprintf("package src\n\n// %s is part %s of plan %s.\nconst %s = %d\n", name, part, id, name, n)})
		}
	}
	return tasks
}()

// SixPlans is a phase of six plans of two tasks each (those of
// SixPlanTasks), four in wave 1 and two that depend on 01-01, run three
// at once: the shape of internal/cli's on_limit_kill.txtar.
func SixPlans() map[string]string {
	files := map[string]string{
		".planning/config.json": `{"parallelization": {"enabled": true, "plan_level": true, "max_concurrent_agents": 3}}` + "\n",
	}
	for n := 1; n <= 6; n++ {
		id := fmt.Sprintf("01-%02d", n)
		wave, deps := 1, "[]"
		if n > 4 {
			wave, deps = 2, `["01-01"]`
		}
		var names, tasks []string
		for i, tk := range SixPlanTasks[id] {
			names = append(names, tk.File)
			tasks = append(tasks, fmt.Sprintf("<task type=\"auto\"><name>Task %d: %s</name><files>%s</files><action>Write %s.</action><done>%s exists</done></task>",
				i+1, tk.Name, tk.File, tk.File, tk.File))
		}
		files[fmt.Sprintf("%s/%s-PLAN.md", Phase01Dir, id)] = fmt.Sprintf("---\nphase: 01-core\nplan: %02d\ntype: execute\nwave: %d\ndepends_on: %s\nfiles_modified: [%s]\nautonomous: true\n---\n<objective>Part %d</objective>\n<tasks>\n%s\n</tasks>\n",
			n, wave, deps, strings.Join(names, ", "), n, strings.Join(tasks, "\n"))
	}
	return files
}
