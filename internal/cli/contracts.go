package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/hivectl/hive/internal/contract"
	"github.com/hivectl/hive/internal/exit"
	"github.com/hivectl/hive/internal/protocol"
	"github.com/hivectl/hive/internal/protocol/hivereport"
	"github.com/spf13/cobra"
)

// contractEntry is one role's contract as hive contracts list --json
// prints it.
type contractEntry struct {
	Role        string           `json:"role"`
	Origin      string           `json:"origin,omitempty"` // project, global or bundled
	File        string           `json:"file,omitempty"`
	MaxAttempts int              `json:"max_attempts,omitempty"`
	Required    []string         `json:"required,omitempty"`
	Fields      []contract.Field `json:"fields,omitempty"`
	Unmapped    []string         `json:"unmapped,omitempty"`
	Error       string           `json:"error,omitempty"`
}

// contractCheck is what hive contracts validate --json prints.
type contractCheck struct {
	File     string   `json:"file"`
	Role     string   `json:"role"`
	Contract string   `json:"contract"` // the contract's file
	Valid    bool     `json:"valid"`
	Errors   []string `json:"errors"`
	// Readings say what was read as the model meant it (contract.Accept).
	Readings []string       `json:"readings,omitempty"`
	Report   map[string]any `json:"report,omitempty"`
}

func newContractsCmd(g *globalOptions) *cobra.Command {
	var asJSON bool
	var role string
	cmd := &cobra.Command{
		Use:   "contracts [list | validate FILE]",
		Short: "List the roles' report contracts, or check an agent's report against its role's",
		Long: `Each role of hive run must end with a HIVE_REPORT its contract accepts: the
fields hive's routing reads (status always; summary when complete;
challenged_agent and issue for a challenge; blocker or summary, and options,
for needs_input), and the role's own (the reviewer's approval_status and
issues, the interviewer's questions, ...). What a model writes another way
but with a clear meaning is read as meant: approved_with_comments or lgtm as
approved (its comments become findings), a tester's "passed": true with the
counts its text gives, numbers and booleans as strings. A report that breaks
its contract is sent back to the role with the errors, up to the contract's
max_attempts (2 unless it says), then a human is asked (with --yes, the run
goes on without the role's work).

list shows every role's contract, where it comes from and its required fields;
with --role, that role's fields one by one. A contract is looked for in
.hive/contracts/ROLE.json, then ~/.hive/global/contracts/ROLE.json and
~/.hive/contracts/ROLE.json (where the shell Hive installs its own: those load
as far as their format maps, and list says what did not), then hive's own.

validate reads FILE (an agent's output, or a JSON report; - for standard
input), finds its report as hive run does, and checks it against the
contract of --role, or of the role its "role" key names. Each error names
the field and the fix; the exit status is 1 when the report is missing or
breaks its contract.`,
		Example: `  hive contracts
  hive contracts list --role reviewer
  hive contracts list --json | jq '.[] | select(.origin != "bundled")'
  hive contracts validate .hive/logs/run-3-reviewer.attempt-1.log --role reviewer`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0, len(args) == 1 && args[0] == "list":
				return nil
			case len(args) == 2 && args[0] == "validate":
				return nil
			case len(args) >= 1 && args[0] == "validate":
				return exit.With(exit.Usage, errors.New("validate takes one FILE (an agent's output or a JSON report; - for standard input)"))
			}
			return exit.With(exit.Usage, fmt.Errorf("unknown arguments %q: use hive contracts list, or hive contracts validate FILE", strings.Join(args, " ")))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := g.repo
			if repo, err := openRepo(cmd.Context(), g); err == nil {
				root = repo.Root
			}
			home, _ := os.UserHomeDir()
			if len(args) == 2 {
				return validateContract(g, cmd.InOrStdin(), root, home, args[1], role, asJSON)
			}
			return listContracts(g, root, home, role, asJSON)
		},
	}
	cmd.Flags().StringVar(&role, "role", "", "the role: list shows its fields; validate checks against its contract")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: list, an array of contracts (role, origin, file, max_attempts, required, fields, unmapped, error); validate, the result (valid, errors)")
	return cmd
}

func listContracts(g *globalOptions, root, home, role string, asJSON bool) error {
	entries := contract.LoadAll(root, home)
	if role != "" {
		i := slices.IndexFunc(entries, func(e contract.Entry) bool { return e.Role == role })
		if i < 0 {
			return exit.With(exit.Usage, fmt.Errorf("no contract for role %q: the roles are %s", role, strings.Join(contract.Roles(), ", ")))
		}
		entries = entries[i : i+1]
	}
	list := make([]contractEntry, 0, len(entries))
	for _, e := range entries {
		ce := contractEntry{Role: e.Role}
		if e.Err != nil {
			ce.Error = shortPath(root, home, e.Err.Error())
		} else {
			c := e.Contract
			ce.Origin, ce.File, ce.MaxAttempts, ce.Required, ce.Fields, ce.Unmapped = c.Origin, shortPath(root, home, c.File), c.Attempts(), c.Required(), c.Fields, c.Unmapped
		}
		list = append(list, ce)
	}
	if asJSON {
		return printJSON(g.stdout, list)
	}
	if role != "" && list[0].Error == "" {
		return printContract(g.stdout, list[0])
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "ROLE\tFROM\tATTEMPTS\tREQUIRED")
	var notes []string
	bad := 0
	for _, e := range list {
		if e.Error != "" {
			bad++
			fmt.Fprintf(tw, "%s\t-\t-\terror: %s\n", e.Role, e.Error)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", e.Role, from(e), e.MaxAttempts, strings.Join(e.Required, ", "))
		notes = append(notes, e.Unmapped...)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(notes) > 0 {
		fmt.Fprintln(g.stdout, "\nNot carried over from the shell Hive's contract files:")
		for _, n := range notes {
			fmt.Fprintln(g.stdout, "  - "+shortPath(root, home, n))
		}
	}
	if bad > 0 {
		return exit.With(exit.Usage, fmt.Errorf("%d contract file(s) cannot be read: fix them, or remove them to use hive's own", bad))
	}
	return nil
}

// from says where a contract comes from: bundled, or the origin and file.
func from(e contractEntry) string {
	if e.Origin == contract.FromBundled {
		return e.Origin
	}
	return e.Origin + " (" + e.File + ")"
}

// printContract shows one role's contract, a field a line, nested fields
// indented under the list or object they belong to.
func printContract(w io.Writer, e contractEntry) error {
	fmt.Fprintf(w, "%s: %s, %d attempts\n", e.Role, from(e), e.MaxAttempts)
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	var walk func(fields []contract.Field, indent string)
	walk = func(fields []contract.Field, indent string) {
		for _, f := range fields {
			fmt.Fprintf(tw, "%s%s\t%s\n", indent, f.Name, describeField(f))
			switch {
			case f.Items != nil && len(f.Items.Fields) > 0:
				walk(f.Items.Fields, indent+"  []")
			case len(f.Fields) > 0:
				walk(f.Fields, indent+"  .")
			}
		}
	}
	walk(e.Fields, "  ")
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range e.Unmapped {
		fmt.Fprintln(w, "  not carried over: "+n)
	}
	return nil
}

func describeField(f contract.Field) string {
	var parts []string
	t := f.Type
	if t == "" {
		t = "any"
	}
	if f.Type == contract.TypeArray && f.Items != nil && f.Items.Type != "" {
		t = "list of " + f.Items.Type + "s"
	}
	parts = append(parts, t)
	switch {
	case f.Required:
		parts = append(parts, "required")
	case len(f.RequiredWhen) > 0:
		r := "required when " + strings.Join(f.RequiredWhen, ", ")
		if len(f.Or) > 0 {
			r += " (or " + strings.Join(f.Or, ", ") + ")"
		}
		parts = append(parts, r)
	}
	if len(f.Values) > 0 {
		parts = append(parts, "one of "+strings.Join(f.Values, ", "))
	}
	if f.Min != nil {
		parts = append(parts, fmt.Sprintf("at least %v", *f.Min))
	}
	if f.Max != nil {
		parts = append(parts, fmt.Sprintf("at most %v", *f.Max))
	}
	if f.MinItems > 0 {
		parts = append(parts, fmt.Sprintf("%d or more entries", f.MinItems))
	}
	if f.MaxItems > 0 {
		parts = append(parts, fmt.Sprintf("%d entries at most", f.MaxItems))
	}
	s := strings.Join(parts, ", ")
	if f.About != "" {
		s += ": " + f.About
	}
	return s
}

// shortPath writes paths under the repository relative to it, and those
// under the home with ~.
func shortPath(root, home, s string) string {
	sep := string(filepath.Separator)
	abs, _ := filepath.Abs(root)
	swaps := [][2]string{{abs + sep, ""}, {home + sep, "~" + sep}}
	if len(home) > len(abs) { // a home inside the repository is the nearer
		swaps[0], swaps[1] = swaps[1], swaps[0]
	}
	for _, sw := range swaps {
		if sw[0] != sep {
			s = strings.ReplaceAll(s, sw[0], sw[1])
		}
	}
	return s
}

func validateContract(g *globalOptions, stdin io.Reader, root, home, file, role string, asJSON bool) error {
	var data []byte
	var err error
	if file == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(file)
	}
	if err != nil {
		return exit.With(exit.Usage, fmt.Errorf("read the report: %w", err))
	}
	r, found := readReport(string(data))
	if role == "" && found {
		if raw, ok := r.Extra["role"]; ok {
			_ = json.Unmarshal(raw, &role)
		}
	}
	if role == "" {
		return exit.With(exit.Usage, fmt.Errorf("%s: which role wrote it? Name it with --role (one of %s), or give the report a \"role\" key", file, strings.Join(contract.Roles(), ", ")))
	}
	c, err := contract.Load(root, home, role)
	if err != nil {
		return exit.With(exit.Usage, errors.New(shortPath(root, home, err.Error())))
	}
	if _, known := contract.Bundled(role); !known && c.Origin == contract.FromBundled {
		return exit.With(exit.Usage, fmt.Errorf("no contract for role %q: the roles are %s (or write .hive/contracts/%s.json)", role, strings.Join(contract.Roles(), ", "), role))
	}
	res := contractCheck{File: file, Role: role, Contract: from(contractEntry{Origin: c.Origin, File: shortPath(root, home, c.File)})}
	switch {
	case !found:
		res.Errors = []string{"no report: end the output with <!--HIVE_REPORT {json} HIVE_REPORT-->"}
	case r.Err != "":
		res.Errors = []string{r.Err + "; write the report as one JSON object with a status"}
	default:
		er := &r.Report
		res.Readings, res.Errors = contract.Accept(c, er, string(data))
		res.Errors = append(res.Errors, contract.Validate(c, *er)...)
		_ = json.Unmarshal([]byte(unfenced(r.Raw)), &res.Report)
	}
	res.Valid = len(res.Errors) == 0
	if res.Errors == nil {
		res.Errors = []string{}
	}
	if asJSON {
		if err := printJSON(g.stdout, res); err != nil {
			return err
		}
	} else if res.Valid {
		fmt.Fprintf(g.stdout, "%s: the %s's report meets its contract (%s)\n", file, role, res.Contract)
		for _, r := range res.Readings {
			fmt.Fprintln(g.stdout, "  read as meant: "+r)
		}
	} else {
		fmt.Fprintf(g.stdout, "%s: the %s's report does not meet its contract (%s):\n", file, role, res.Contract)
		for _, e := range res.Errors {
			fmt.Fprintln(g.stdout, "  - "+e)
		}
	}
	if !res.Valid {
		return exit.Silent(exit.Failed)
	}
	return nil
}

// readReport finds the report of a file: the whole file when it is a JSON
// object, else what hive run would read from an agent's output.
func readReport(text string) (hivereport.Report, bool) {
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		return hivereport.Parse(t), true
	}
	return protocol.FindReport(text)
}

// unfenced is a report's JSON without a ```json fence around it.
func unfenced(raw string) string {
	s := strings.TrimSpace(raw)
	if strings.HasPrefix(s, "```") || strings.HasPrefix(s, "~~~") {
		if nl := strings.IndexByte(s, '\n'); nl >= 0 {
			s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(s[nl+1:]), "```"), "~~~"))
		}
	}
	return s
}
