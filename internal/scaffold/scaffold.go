package scaffold

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"
	"time"

	"github.com/hivectl/hive/internal/config"
)

// The Markdown templates, stored under templates/ at the paths they are
// written to; "all:" keeps the .planning folder, which embed would skip.
//
//go:embed all:templates
var templatesFS embed.FS

// PhaseNumber is the number of the example phase, as `hive execute-phase`
// takes it.
const PhaseNumber = "1"

// PhaseDir is the repository-relative folder of the example phase.
const PhaseDir = ".planning/phases/01-getting-started"

// File is one file to write: Path is relative to the repository root,
// slash-separated.
type File struct {
	Path string
	Data []byte
	// About says in a few words what the file is for, for hive init's listing.
	About string
}

// Project is what the templates are filled with.
type Project struct {
	Name string    // the project's name: the repository folder's name
	Date time.Time // the day of initialization, written as YYYY-MM-DD
}

// about describes each file for the listing hive init prints.
var about = map[string]string{
	config.PlanningFile:         "the settings hive reads, at their defaults",
	".planning/PROJECT.md":      "what the project is: fill it in",
	".planning/ROADMAP.md":      "the phases; hive ticks plans off as they complete",
	".planning/STATE.md":        "where the project stands; hive keeps it current",
	PhaseDir + "/01-01-PLAN.md": "example plan: a repository overview",
	PhaseDir + "/01-02-PLAN.md": "example plan: a guide you check (depends on 01-01)",
}

// Config is a new project's configuration: the defaults, with desktop
// notifications off (a checkpoint still rings the terminal's bell; set
// notifications.desktop to true for a notification on the desktop too).
func Config() *config.Config {
	c := config.Default()
	c.Notifications.Desktop = false
	return c
}

// Files returns every file of a new project, config.json first, then the
// templates in path order.
func Files(p Project) ([]File, error) {
	cfg, err := Config().MarshalHive()
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", config.PlanningFile, err)
	}
	files := []File{{Path: config.PlanningFile, Data: cfg, About: about[config.PlanningFile]}}
	data := struct{ Name, Date string }{Name: p.Name, Date: p.Date.Format("2006-01-02")}
	err = fs.WalkDir(templatesFS, "templates", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := fs.ReadFile(templatesFS, name)
		if err != nil {
			return err
		}
		// missingkey=error: a template naming a field Project lacks is a bug
		// to catch in the tests, not "<no value>" in a user's file.
		t, err := template.New(name).Option("missingkey=error").Parse(string(src))
		if err != nil {
			return fmt.Errorf("template %s: %w", name, err)
		}
		var out bytes.Buffer
		if err := t.Execute(&out, data); err != nil {
			return fmt.Errorf("template %s: %w", name, err)
		}
		rel := strings.TrimPrefix(name, "templates/")
		files = append(files, File{Path: rel, Data: out.Bytes(), About: about[rel]})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

// ExistsError refuses to initialize a repository that already holds some of
// the files, or another phase 01: nothing was written.
type ExistsError struct {
	Paths []string // repository-relative, slash-separated
}

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%d file(s) exist already: %s", len(e.Paths), strings.Join(e.Paths, ", "))
}

// Write creates every file under root, or none. It refuses, with an
// *ExistsError, when any of them exists or when .planning/phases holds
// another folder for phase 1 (two would make the phase ambiguous). A write
// that fails half-way removes what it wrote, folders included.
func Write(root string, files []File) error {
	var exist []string
	for _, f := range files {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f.Path))); err == nil {
			exist = append(exist, f.Path)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("look for %s: %w", f.Path, err)
		}
	}
	others, err := otherFirstPhases(root)
	if err != nil {
		return err
	}
	exist = append(exist, others...)
	if len(exist) > 0 {
		return &ExistsError{Paths: exist}
	}
	w := &writer{root: root}
	for _, f := range files {
		if err := w.write(f); err != nil {
			w.undo()
			return err
		}
	}
	return nil
}

var phaseNumberRE = regexp.MustCompile(`^0*(\d+(?:\.\d+)*)(?:-|$)`)

// otherFirstPhases lists the folders of .planning/phases, other than the
// example's, that are numbered 1 ("01-auth", "1-setup").
func otherFirstPhases(root string) ([]string, error) {
	dir := filepath.Join(root, ".planning", "phases")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look for existing phases: %w", err)
	}
	var out []string
	for _, e := range entries {
		rel := ".planning/phases/" + e.Name()
		if !e.IsDir() || rel == PhaseDir {
			continue
		}
		if m := phaseNumberRE.FindStringSubmatch(e.Name()); m != nil && m[1] == PhaseNumber {
			out = append(out, rel+"/")
		}
	}
	return out, nil
}

// writer creates files and folders and remembers them, so that a failure
// leaves the repository as it found it.
type writer struct {
	root    string
	created []string // absolute paths, files and folders, in creation order
}

func (w *writer) write(f File) error {
	abs := filepath.Join(w.root, filepath.FromSlash(f.Path))
	if err := w.mkdirs(path.Dir(f.Path)); err != nil {
		return err
	}
	// O_EXCL: a file that appeared since the check is still not replaced.
	out, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", f.Path, err)
	}
	w.created = append(w.created, abs)
	_, err = out.Write(f.Data)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", f.Path, err)
	}
	return nil
}

// mkdirs creates the missing folders of the slash-separated rel, one at a
// time, so that each one created can be removed again.
func (w *writer) mkdirs(rel string) error {
	if rel == "." || rel == "" {
		return nil
	}
	if err := w.mkdirs(path.Dir(rel)); err != nil {
		return err
	}
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	if err := os.Mkdir(abs, 0o755); err == nil {
		w.created = append(w.created, abs)
	} else if st, serr := os.Stat(abs); serr != nil || !st.IsDir() {
		return fmt.Errorf("create folder %s: %w", rel, err)
	}
	return nil
}

// undo removes what was created, newest first: files before their folders.
func (w *writer) undo() {
	for i := len(w.created) - 1; i >= 0; i-- {
		os.Remove(w.created[i])
	}
	w.created = nil
}
