package plan

import "strings"

// Project is the .planning/ folder of one repository.
type Project struct {
	Root   string   // absolute path of the repository root
	Phases []*Phase // sorted by phase number (numerically: 1 < 2 < 2.1 < 10)
	// Diagnostics are notes about entries of .planning/phases that are not
	// phase folders; each phase keeps its own findings.
	Diagnostics []Diagnostic
	Ignored     []string // folders of .planning/phases named like phases another way (phase-01)
}

// Phase is one folder under .planning/phases/, e.g. "03-authentication" or "02.1-hotfix".
type Phase struct {
	Number string // "03", "02.1": the folder's number exactly as written
	Slug   string // "authentication"
	Dir    string // repository-relative, slash-separated: ".planning/phases/03-authentication"
	Plans  []*Plan
	// Summaries by the id of the plan each one was matched to (see
	// load.Phase; Plan.SummaryPath names the file), and by their own
	// file name for those that match no plan.
	Summaries map[string]*Summary
	// Diagnostics are the findings made while reading the folder's files: parse
	// errors of single files, and notes about stray files and unknown keys.
	// Cross-plan checks are made by validate.Phase.
	Diagnostics []Diagnostic
}

// Plan is one NN-MM-PLAN.md file.
type Plan struct {
	ID   string // file name minus "-PLAN.md": "03-02"
	Path string // repository-relative, slash-separated path of the PLAN.md file
	Name string // a short human name: first line of <objective>, else the first "# " heading, else the ID

	// Frontmatter.
	Phase         string   // as written ("03-authentication", "3", ...)
	PlanNumber    string   // as written ("02", "2")
	Type          string   // "execute" (default) or "tdd"
	Wave          int      // declared wave, from 1; 0 when absent (see ComputedWave)
	DependsOn     []string // plan ids, normalised: unquoted, trimmed
	FilesModified []string // also read from "files-modified"
	Autonomous    bool     // default true
	Requirements  []string
	UserSetup     any
	MustHaves     MustHaves
	// Extra holds every frontmatter key hive does not know, kept as parsed.
	Extra map[string]any

	// ComputedWave is the wave hive schedules with: Wave when declared and
	// consistent, else 1 + max(ComputedWave of DependsOn).
	ComputedWave int

	// WaveZero: the frontmatter says wave: 0, as phases do that number
	// their waves from 0 (GSD's "Wave 0" of test scaffolding); load.Phase
	// reads every wave of such a phase one higher.
	WaveZero bool

	// Body.
	Objective string
	Context   string
	Tasks     []Task

	// Lines maps a frontmatter key ("wave", "depends_on", ...) to the 1-based line
	// number in the file where it is written, for diagnostics.
	Lines map[string]int
	// BodyLine is the 1-based line where the body (after the frontmatter) starts.
	BodyLine int

	// MatchedSummary is the path of the SUMMARY load.Phase matched to the
	// plan, "" when there is none (see SummaryPath).
	MatchedSummary string
}

// MustHaves is the goal-backward verification block of a plan.
type MustHaves struct {
	Truths    []string   `yaml:"truths" json:"truths,omitempty"`
	Artifacts []Artifact `yaml:"artifacts" json:"artifacts,omitempty"`
	KeyLinks  []KeyLink  `yaml:"key_links" json:"key_links,omitempty"`
}

// Artifact is a file that must exist after the plan ran.
type Artifact struct {
	Path     string `yaml:"path" json:"path"`
	Provides string `yaml:"provides" json:"provides,omitempty"`
	Contains string `yaml:"contains" json:"contains,omitempty"`
}

// KeyLink is a connection between two pieces of code that must exist.
type KeyLink struct {
	From    string `yaml:"from" json:"from"`
	To      string `yaml:"to" json:"to"`
	Via     string `yaml:"via" json:"via,omitempty"`
	Pattern string `yaml:"pattern" json:"pattern,omitempty"`
}

// Task types.
const (
	TaskAuto             = "auto"
	TaskTDD              = "tdd"
	TaskHumanVerify      = "checkpoint:human-verify"
	TaskDecision         = "checkpoint:decision"
	TaskHumanAction      = "checkpoint:human-action"
	CheckpointTypePrefix = "checkpoint:"
)

// Task is one <task> element (or one "## Task N" section in older plans).
type Task struct {
	Number int    // 1-based position in the plan
	Line   int    // 1-based line of the <task> tag or "## Task" heading in the file
	Type   string // "auto" when absent
	// Attrs holds every attribute of the <task> tag (type, tdd, gate, id, ...).
	Attrs map[string]string

	Name               string
	Files              []string // paths from <files>, split on commas and newlines, annotations like "(new)" removed
	ReadFirst          string
	Action             string
	Verify             string // inner text of <verify>, including any <automated> child as text
	Automated          string // the command of an <automated> element inside <verify>, the part a machine can run; "" when there is none
	AcceptanceCriteria string
	Done               string
	ResumeSignal       string // <resume-signal>
	Gate               string // the gate attribute: "", "blocking", "blocking-human"
	Decision           *Decision
	// Extra holds the inner text of every other child element (<what-built>,
	// <how-to-verify>, <behavior>, ...) or bold label of older plans, by name.
	Extra map[string]string
}

// IsCheckpoint reports whether the task stops for a human.
func (t Task) IsCheckpoint() bool {
	return len(t.Type) > len(CheckpointTypePrefix) && t.Type[:len(CheckpointTypePrefix)] == CheckpointTypePrefix
}

// IsTDD reports whether the task is test-driven, by type or by tdd="true".
func (t Task) IsTDD() bool {
	return t.Type == TaskTDD || strings.EqualFold(strings.TrimSpace(t.Attrs["tdd"]), "true")
}

// Decision is the body of a checkpoint:decision task.
type Decision struct {
	Question string // <decision> text without its children
	Context  string
	Options  []Option
}

// Option is one <option id="..."> of a decision.
type Option struct {
	ID   string
	Name string // <name>
	Pros string
	Cons string
	Text string // the whole inner text, for display
}

// Summary is one NN-MM-SUMMARY.md file.
type Summary struct {
	Path   string // repository-relative
	PlanID string // the plan it belongs to: from the file name, or the plan load.Phase matched it to
	Phase  string
	Plan   string

	Subsystem           string
	Tags                []string
	Requires            any
	Provides            any
	Affects             any
	TechStack           map[string]any
	KeyFilesCreated     []string
	KeyFilesModified    []string
	KeyDecisions        []string
	PatternsEstablished []string
	Duration            string
	Completed           string
	Extra               map[string]any

	OneLiner  string // first bold line or first paragraph after the title
	SelfCheck string // "PASSED", "FAILED", or "" when the line is absent

	// Lines maps a frontmatter key ("key-files") to its 1-based line.
	Lines map[string]int
}

// Severity of a diagnostic.
type Severity int

const (
	SeverityNote Severity = iota
	SeverityWarning
	SeverityError
)

// Diagnostic is a finding about a planning file. Every error names the file,
// the line and the fix.
type Diagnostic struct {
	Severity Severity
	File     string // repository-relative path
	Line     int    // 1-based; 0 when the finding is about the file as a whole
	Message  string
	Fix      string
}
