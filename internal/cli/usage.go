package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hivectl/hive/internal/exit"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// usageErrors makes every command's complaints about its command line say
// how to write it: a wrong number of arguments prints the command's usage
// line, and an unknown flag the flag that was probably meant (cobra
// suggests commands, not flags). Both exit with exit.Usage.
func usageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(flagError)
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if args := c.Args; args != nil {
			c.Args = func(cmd *cobra.Command, a []string) error {
				err := args(cmd, a)
				if err == nil || isExitError(err) {
					return err // nil, or an error that already says what to type
				}
				return exit.With(exit.Usage, fmt.Errorf("%w\nusage: %s", err, cmd.UseLine()))
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func isExitError(err error) bool {
	_, ok := err.(*exit.Error)
	return ok
}

// flagError is the root's FlagErrorFunc, which every command inherits.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	var dashes, typed string // the unknown flag as typed: its dashes, and its name
	switch {
	case strings.HasPrefix(msg, "unknown flag: --"):
		dashes, typed = "--", strings.TrimPrefix(msg, "unknown flag: --")
	case strings.HasPrefix(msg, "unknown shorthand flag: "):
		// "-json" is read as the shorthand flags j, s, o, n: the word after
		// " in -" is what was typed.
		if i := strings.LastIndex(msg, " in -"); i >= 0 {
			dashes, typed = "-", msg[i+len(" in -"):]
		}
	}
	if name, _, _ := strings.Cut(typed, "="); name != "" {
		if close := closeFlags(cmd.Flags(), name); len(close) > 0 {
			msg = fmt.Sprintf("unknown flag %s%s: did you mean %s?", dashes, name, strings.Join(close, " or "))
		}
	}
	return exit.With(exit.Usage, fmt.Errorf("%s\nusage: %s (%s --help lists its flags)", msg, cmd.UseLine(), cmd.CommandPath()))
}

// closeFlags are the visible flags of fs nearest to typed, as "--name":
// those within a small edit distance, or that typed begins (--dry for
// --dry-run); the nearest only, in name order.
func closeFlags(fs *pflag.FlagSet, typed string) []string {
	best := -1
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		d := editDistance(typed, f.Name)
		if len(typed) >= 3 && strings.HasPrefix(f.Name, typed) {
			d = 1
		}
		if d > maxFlagDistance(f.Name) {
			return
		}
		switch {
		case best < 0 || d < best:
			best, names = d, []string{"--" + f.Name}
		case d == best:
			names = append(names, "--"+f.Name)
		}
	})
	sort.Strings(names)
	return names
}

// maxFlagDistance is how many edits from a flag's name a typo may be: one
// for short names (so that --out does not suggest --json), two otherwise.
func maxFlagDistance(name string) int {
	if len(name) <= 4 {
		return 1
	}
	return 2
}

// editDistance is the number of edits between a and b: insertions,
// deletions, substitutions and swaps of two neighbours (the optimal string
// alignment distance; a swap is the commonest typo, --rpeo for --repo).
// Bytes, not runes: flag names are ASCII.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
