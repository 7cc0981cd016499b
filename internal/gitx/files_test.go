package gitx

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FilesAt reads the committed content of many files in one process: files
// with spaces in their names, empty ones and ones whose content ends
// without a newline come back as they are; a missing name, a folder and a
// file written but not committed are left out.
func TestFilesAt(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	files := map[string]string{
		"a.md":              "# a\n",
		"dir/with space.md": "two\nlines",
		"empty":             "",
		"dir/bin":           "\x00\x01\n\n",
	}
	for name, body := range files {
		p := filepath.Join(r.Root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Git(ctx, "add", "-A"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Git(ctx, "commit", "-q", "-m", "files"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.Root, "uncommitted"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := r.FilesAt(ctx, "HEAD", []string{"a.md", "missing.md", "dir/with space.md", "dir", "empty", "uncommitted", "dir/bin"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	for name, body := range files {
		want[name] = []byte(body)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FilesAt = %q\nwant %q", got, want)
	}
	if _, err := r.FilesAt(ctx, "HEAD", []string{"a\nb"}); err == nil {
		t.Error("a name with a newline was read")
	}
	if _, err := r.FilesAt(ctx, "--output=x", []string{"a.md"}); err == nil {
		t.Error("a revision like an option was read")
	}
}
