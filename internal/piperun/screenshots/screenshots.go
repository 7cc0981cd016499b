package screenshots

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/hivectl/hive/internal/work"
)

// maxScreenshot bounds the size of one screenshot hive keeps.
const maxScreenshot = 10 << 20

// Dir is where the screenshots of run id are kept, relative to the
// repository: the run's worktree, where the browser validator saves
// them, goes when the run ends.
func Dir(id int64) string {
	return filepath.Join(".hive", "runs", fmt.Sprint(id), "screenshots")
}

// Keep copies the screenshots a report lists ("screenshots": paths under
// .hive/screenshots/ in the run's worktree) into the Dir of run in the
// repository at root, named after prefix (the job and attempt), and tells
// note what it kept or refused. A path outside that folder, a link or a
// file that is no image is refused: an agent's report never makes hive
// read or write elsewhere.
func Keep(r *work.Report, worktree, root string, run int64, prefix string, note func(text string)) {
	raw, ok := r.Extra["screenshots"]
	if !ok {
		return
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil {
		note("the report's screenshots are not a list of paths: none kept")
		return
	}
	dst := filepath.Join(root, Dir(run))
	var kept, refused []string
	for _, name := range names {
		clean := path.Clean(filepath.ToSlash(name))
		ext := strings.ToLower(path.Ext(clean))
		if !strings.HasPrefix(clean, ".hive/screenshots/") || !filepath.IsLocal(clean) || (ext != ".png" && ext != ".jpg" && ext != ".jpeg" && ext != ".webp") {
			refused = append(refused, name)
			continue
		}
		to := filepath.Join(dst, fmt.Sprintf("%s-%s", prefix, path.Base(clean)))
		if err := copyRegular(worktree, filepath.FromSlash(clean), to); err != nil {
			refused = append(refused, name+" ("+err.Error()+")")
			continue
		}
		kept = append(kept, to)
	}
	if len(kept) > 0 {
		rel, _ := filepath.Rel(root, dst)
		note(fmt.Sprintf("kept %d screenshot(s) in %s", len(kept), filepath.ToSlash(rel)))
	}
	if len(refused) > 0 {
		note("screenshots not kept (hive keeps images under .hive/screenshots/ of the worktree): " + strings.Join(refused, ", "))
	}
}

// copyRegular copies the regular file rel of dir, which no link may take
// out of dir, to the new file to.
func copyRegular(dir, rel, to string) error {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	from, err := filepath.EvalSymlinks(filepath.Join(dir, rel))
	if err != nil {
		return fmt.Errorf("not there")
	}
	if r, err := filepath.Rel(root, from); err != nil || !filepath.IsLocal(r) {
		return fmt.Errorf("a link out of the worktree")
	}
	st, err := os.Stat(from)
	switch {
	case err != nil:
		return fmt.Errorf("not there")
	case !st.Mode().IsRegular():
		return fmt.Errorf("not a regular file")
	case st.Size() > maxScreenshot:
		return fmt.Errorf("larger than %d MiB", maxScreenshot>>20)
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.LimitReader(in, maxScreenshot)); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
