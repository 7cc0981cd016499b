package words

import "strings"

// First is the first of s that is not blank, trimmed; "" when all are.
func First(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// OneLine is s with every run of white space, new lines included, one
// space.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
