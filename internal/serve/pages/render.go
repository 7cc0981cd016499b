package pages

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"sync"
	"time"

	"github.com/hivectl/hive/internal/serve/views"
	"github.com/hivectl/hive/internal/tui"
	"github.com/hivectl/hive/internal/work"
)

//go:embed web
var webFS embed.FS

// pages are parsed on first use, not when hive starts: every hive process
// (each sim agent is one) paid the parse, a few milliseconds of CPU, and
// only `hive serve` renders them.
var pages = sync.OnceValue(parsePages)

func parsePages() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"when": func(t time.Time) string { return t.Local().Format("Jan 2 15:04") },
		"tokens": func(n int64) string {
			switch {
			case n >= 1_000_000:
				return fmt.Sprintf("%.1fM", float64(n)/1e6)
			case n >= 10_000:
				return fmt.Sprintf("%.0fk", float64(n)/1e3)
			}
			return fmt.Sprint(n)
		},
		"usd":      func(f float64) string { return fmt.Sprintf("$%.2f", f) },
		"limit":    func(w *work.LimitWait) string { return tui.LimitText(w, time.Now()) },
		"markdown": markdown,
		"form":     func(csrf string, cp views.CheckpointView) formData { return formData{CSRF: csrf, CP: cp} },
	}).ParseFS(webFS, "web/pages.html"))
}

type formData struct {
	CSRF string
	CP   views.CheckpointView
}

// Page is what every template is given.
type Page struct {
	Title  string
	Repo   string
	Run    string // the run shown, for live updates ("" on the dashboard)
	Scoped bool   // a signed link's session: no way to the rest
	CSRF   string

	Runs        []views.RunView
	Checkpoints []views.CheckpointView
	View        *views.RunView
	Checkpoint  *views.CheckpointView
	Plan        string
	CP          int

	Heading, Message string
	OK               bool
	Action, Button   string
	Expires          time.Time
}

// Render writes the template name (dashboard, run, checkpoint, login,
// link, result) given p to w.
func Render(w io.Writer, name string, p Page) error {
	return pages().ExecuteTemplate(w, name, p)
}

// Static is the embedded style sheet or script called name, with its
// content type; false for any other name.
func Static(name string) ([]byte, string, bool) {
	types := map[string]string{"style.css": "text/css; charset=utf-8", "app.js": "text/javascript; charset=utf-8"}
	ct, ok := types[name]
	if !ok {
		return nil, "", false
	}
	b, _ := webFS.ReadFile("web/" + name)
	return b, ct, true
}
