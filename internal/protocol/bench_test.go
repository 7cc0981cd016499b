package protocol

import "testing"

// benchTexts are agent text blocks of each kind, as the sink parses them.
var benchTexts = map[string]string{
	"progress": "PROGRESS: Task 2/5 complete: feat(03-01): add user model",
	"complete": "PLAN COMPLETE\n\n**Plan:** 03-01\n**Tasks:** 5/5\n**SUMMARY:** .planning/phases/03-auth/03-01-SUMMARY.md\n\n**Commits:**\n- abc1234 feat(03-01): add user model\n- def5678 feat(03-01): add session\n- 0123abc docs(03-01): complete plan",
	"checkpoint": "CHECKPOINT: decision\nPLAN: 03-01\nPROGRESS: 1/5\n\n## CHECKPOINT REACHED\n\n**Type:** decision\n**Plan:** 03-01\n**Progress:** 1/5 tasks complete\n\n" +
		"### Completed Tasks\n| # | Task | Commit | Files |\n|---|------|--------|-------|\n| 1 | Provider interface | abc1234 | src/auth/provider.ts |\n\n" +
		"### Current Task\n- **Number:** 2\n- **Name:** Choose the provider\n- **Status:** Blocked on checkpoint\n\n" +
		"### Checkpoint Details\n**Decision:** Select authentication provider\n\n**Options:**\n1. **supabase** - Built-in with our DB\n2. **clerk** - Best DX\n3. **nextauth** - Free\n\n### Awaiting\nSelect: supabase, clerk, or nextauth",
	"prose": "I looked at the repository and the tests pass. Next I will write the session store; the plan says to keep it in memory for now.",
}

func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"progress", "complete", "checkpoint", "prose"} {
		text := benchTexts[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if ms := Parse(text); (name == "prose") != (len(ms) == 0) {
					b.Fatalf("Parse(%s) = %d messages", name, len(ms))
				}
			}
		})
	}
}
