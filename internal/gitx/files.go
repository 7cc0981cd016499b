package gitx

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// FilesAt reads files of commit rev in one git process (cat-file --batch)
// where FileAt takes one each: the content of each name that is a file in
// rev; a name that rev lacks, or that is not a file there, is left out.
func (r *Repo) FilesAt(ctx context.Context, rev string, names []string) (map[string][]byte, error) {
	if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, ":\n\x00") {
		return nil, fmt.Errorf("invalid revision %q", rev)
	}
	var in strings.Builder
	for _, n := range names {
		if n == "" || strings.ContainsAny(n, "\n\x00") {
			return nil, fmt.Errorf("invalid file name %q", n)
		}
		in.WriteString(rev + ":" + n + "\n")
	}
	out, err := runInput(ctx, r.Root, []byte(in.String()), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, n := range names {
		header, rest, ok := strings.Cut(out, "\n")
		if !ok {
			return nil, fmt.Errorf("git cat-file: its output ends before %s", n)
		}
		out = rest
		// "<rev:name> missing" (or ambiguous): the name may hold spaces.
		if strings.HasPrefix(header, rev+":"+n+" ") {
			continue
		}
		f := strings.Fields(header) // "<object> <type> <size>"
		size, err := 0, error(nil)
		if len(f) == 3 {
			size, err = strconv.Atoi(f[2])
		}
		if len(f) != 3 || err != nil || size < 0 || len(out) < size+1 {
			return nil, fmt.Errorf("git cat-file: unexpected output for %s: %q", n, header)
		}
		if f[1] == "blob" {
			files[n] = []byte(out[:size])
		}
		out = out[size+1:] // the content and its newline
	}
	return files, nil
}
