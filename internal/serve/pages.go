package serve

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/serve/pages"
	"github.com/hivectl/hive/internal/serve/views"
)

func (s *Server) newPage(title string, id who) pages.Page {
	p := pages.Page{Title: title, Repo: filepath.Base(s.o.Root)}
	if id.session != nil {
		p.CSRF, p.Scoped = id.session.csrf, id.session.scope != nil
	}
	return p
}

func (s *Server) render(w http.ResponseWriter, status int, name string, p pages.Page) {
	var b bytes.Buffer
	if err := pages.Render(&b, name, p); err != nil {
		s.logf("render %s: %v", name, err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// fail answers an error: a page for a browser, JSON for the API.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if wantsHTML(r) {
		p := s.newPage(http.StatusText(status), who{})
		p.Heading, p.Message, p.Scoped = http.StatusText(status), msg, true
		s.render(w, status, "result", p)
		return
	}
	writeJSON(w, status, map[string]any{"error": msg, "status": status})
}

func (s *Server) dashboardPage(w http.ResponseWriter, r *http.Request, id who) {
	<-s.ready
	p := s.newPage("Runs", id)
	p.Runs, p.Checkpoints = s.store.Runs(), s.store.Checkpoints()
	s.render(w, http.StatusOK, "dashboard", p)
}

func (s *Server) runPage(w http.ResponseWriter, r *http.Request, id who) {
	<-s.ready
	key := r.PathValue("run")
	v, ok := s.runOf(w, r, id, "the dashboard lists them")
	if !ok {
		return
	}
	p := s.newPage(v.Title, id)
	p.Run, p.View = key, &v
	s.render(w, http.StatusOK, "run", p)
}

func (s *Server) checkpointPage(w http.ResponseWriter, r *http.Request, id who) {
	<-s.ready
	t, ok := s.target(w, r, id)
	if !ok {
		return
	}
	p := s.newPage(fmt.Sprintf("%s #%d", t.plan, t.cp), id)
	p.Run, p.Plan, p.CP = t.run, t.plan, t.cp
	if cp, ok := s.findCheckpoint(t); ok {
		p.Checkpoint = &cp
	}
	s.render(w, http.StatusOK, "checkpoint", p)
}

// target reads the checkpoint a request names, and refuses it (answering
// the request) when it is malformed or not the one id may open.
func (s *Server) target(w http.ResponseWriter, r *http.Request, id who) (target, bool) {
	t, err := parseTarget(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err.Error())
		return t, false
	}
	if !id.allows(t.run, t.plan, t.cp) {
		s.fail(w, r, http.StatusForbidden, "this link opens another checkpoint")
		return t, false
	}
	return t, true
}

// findCheckpoint returns the open checkpoint t names.
func (s *Server) findCheckpoint(t target) (views.CheckpointView, bool) {
	v, ok := s.store.Run(t.run)
	if !ok {
		return views.CheckpointView{}, false
	}
	for _, cp := range v.Checkpoints {
		if cp.Plan == t.plan && cp.ID == t.cp {
			return cp, true
		}
	}
	return views.CheckpointView{}, false
}

// answerForm takes the answer of a checkpoint's form: the button pressed
// ("answer"), or the text typed ("issue") with the report button.
func (s *Server) answerForm(w http.ResponseWriter, r *http.Request, id who) {
	t, ok := s.target(w, r, id)
	if !ok {
		return
	}
	text := r.PostFormValue("answer")
	if r.PostFormValue("report") != "" {
		text = r.PostFormValue("issue")
	}
	s.answered(w, r, id, t, text)
}

// answered records text for t and shows the outcome.
func (s *Server) answered(w http.ResponseWriter, r *http.Request, id who, t target, text string) {
	p := s.newPage("Answer", id)
	p.Run = t.run
	res, aerr := s.record(t, text)
	if aerr != nil {
		p.Heading, p.Message = "Not recorded", aerr.msg
		if aerr.status == http.StatusConflict {
			p.Heading = "Already answered"
		}
		s.render(w, aerr.status, "result", p)
		return
	}
	p.OK, p.Heading = true, "Answer recorded"
	p.Message = fmt.Sprintf("%s #%d: %q. A running hive applies it now; a stopped one when it resumes.", t.plan, t.cp, res.Answer)
	s.render(w, http.StatusOK, "result", p)
}

// runOf is the run the request's "run" parameter names, if it is well
// formed, the caller may see it, and it exists; else the failure is
// written (listed says where the runs are listed).
func (s *Server) runOf(w http.ResponseWriter, r *http.Request, id who, listed string) (views.RunView, bool) {
	key := r.PathValue("run")
	if _, _, ok := views.ParseRunKey(key); !ok {
		s.fail(w, r, http.StatusBadRequest, fmt.Sprintf("bad parameter: run %q is not KIND-ID (phase-3, pipeline-1)", key))
		return views.RunView{}, false
	}
	if !id.allows(key, "", 0) {
		s.fail(w, r, http.StatusForbidden, "this link opens one checkpoint only")
		return views.RunView{}, false
	}
	v, ok := s.store.Run(key)
	if !ok {
		s.fail(w, r, http.StatusNotFound, fmt.Sprintf("no run %s here (%s)", key, listed))
	}
	return v, ok
}

// output shows the end of an item's latest agent log, as text.
func (s *Server) output(w http.ResponseWriter, r *http.Request, id who) {
	key, item := r.PathValue("run"), r.PathValue("item")
	kind, runID, ok := views.ParseRunKey(key)
	if !ok || !validItem(item) {
		s.fail(w, r, http.StatusBadRequest, "bad parameter: a run (KIND-ID) and a plan or role id")
		return
	}
	if !id.allows(key, "", 0) {
		s.fail(w, r, http.StatusForbidden, "this link opens one checkpoint only")
		return
	}
	v, ok := s.store.Run(key)
	var it *views.ItemView
	for i := range v.Items {
		if v.Items[i].ID == item {
			it = &v.Items[i]
		}
	}
	if !ok || it == nil {
		s.fail(w, r, http.StatusNotFound, fmt.Sprintf("run %s has no %s", key, item))
		return
	}
	name := fmt.Sprintf("%s.attempt-%d.log", item, it.Attempt)
	if kind == views.KindPipeline {
		name = fmt.Sprintf("run-%d-%s", runID, name)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	f, err := os.Open(filepath.Join(s.o.Root, ".hive", "logs", name))
	if err != nil {
		if kind == views.KindTemporal {
			fmt.Fprintf(w, "(no output from %s here: its agent runs on a hive worker, and its log is in that worker's .hive/logs)\n", item)
			return
		}
		fmt.Fprintf(w, "(no output from %s yet)\n", item)
		return
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > outputTail {
		f.Seek(st.Size()-outputTail, io.SeekStart)
	}
	raw, err := io.ReadAll(f)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, "the log could not be read")
		return
	}
	if i := bytes.IndexByte(raw, '\n'); i >= 0 && len(raw) == outputTail {
		raw = raw[i+1:] // from the first whole line
	}
	var b strings.Builder
	if s.o.RenderLog != nil {
		s.o.RenderLog(&b, bytes.NewReader(raw))
	} else {
		b.Write(raw)
	}
	io.WriteString(w, s.o.Redactor.String(b.String()))
}

// static serves the embedded style sheet and script, nothing else.
func (s *Server) static(w http.ResponseWriter, r *http.Request) {
	b, ct, ok := pages.Static(r.PathValue("file"))
	if !ok {
		s.fail(w, r, http.StatusNotFound, "no such file")
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "max-age=300")
	w.Write(b)
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, http.StatusOK, "login", s.newPage("Log in", who{}))
}

// throttled refuses (answering the request) a login from an address that
// failed too often of late.
func (s *Server) throttled(w http.ResponseWriter, r *http.Request, client string, now time.Time) bool {
	if !s.limit.blocked(client, now) {
		return false
	}
	w.Header().Set("Retry-After", "60")
	s.fail(w, r, http.StatusTooManyRequests, "too many failed logins from this address: wait a minute")
	return true
}

// loginForm logs a browser in with the token typed in.
func (s *Server) loginForm(w http.ResponseWriter, r *http.Request) {
	now, client := s.o.Now(), clientOf(r)
	if s.throttled(w, r, client, now) {
		return
	}
	if !s.sameOrigin(r, who{}) {
		s.fail(w, r, http.StatusForbidden, "refused: the request does not come from hive serve's own page (Origin)")
		return
	}
	if !equalSecret(r.PostFormValue("token"), s.o.Token) {
		s.limit.failed(client, now)
		p := s.newPage("Log in", who{})
		s.render(w, http.StatusUnauthorized, "login", p)
		return
	}
	s.setSession(w, r, nil)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// loginLink logs a browser in with a one-time login link.
func (s *Server) loginLink(w http.ResponseWriter, r *http.Request) {
	now, client := s.o.Now(), clientOf(r)
	if s.throttled(w, r, client, now) {
		return
	}
	if !s.sessions.useLogin(r.PathValue("code"), now) {
		s.limit.failed(client, now)
		s.fail(w, r, http.StatusGone, "this login link was used already or has expired: hive serve prints a new one when it starts, or log in with the token")
		return
	}
	s.setSession(w, r, nil)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// linkPage shows what a signed link does, with a button: following the
// link changes nothing, so that a chat app fetching its preview does not
// use it up.
func (s *Server) linkPage(w http.ResponseWriter, r *http.Request) {
	<-s.ready
	l, t, status, err := s.checkLink(r)
	if err != nil {
		s.fail(w, r, status, err.Error())
		return
	}
	p := s.newPage("Checkpoint", who{})
	p.Scoped, p.Action, p.Expires = true, r.URL.Path, time.Unix(l.Expires, 0)
	if l.Action == LinkAnswer {
		p.Heading = fmt.Sprintf("Answer %s #%d", t.plan, t.cp)
		p.Message, p.Button = fmt.Sprintf("Answer %q to checkpoint #%d of %s (%s).", s.o.Redactor.String(l.Answer), t.cp, t.plan, t.run), "Answer "+s.o.Redactor.String(l.Answer)
	} else {
		p.Heading = fmt.Sprintf("Checkpoint #%d of %s", t.cp, t.plan)
		p.Message, p.Button = fmt.Sprintf("Open checkpoint #%d of %s (%s) to answer it.", t.cp, t.plan, t.run), "Open"
	}
	s.render(w, http.StatusOK, "link", p)
}

// linkUse uses a signed link, once: it answers, or opens the checkpoint's
// page in a session that sees nothing else.
func (s *Server) linkUse(w http.ResponseWriter, r *http.Request) {
	<-s.ready
	if !s.sameOrigin(r, who{bearer: true}) {
		s.fail(w, r, http.StatusForbidden, "refused: the request does not come from hive serve's own page (Origin)")
		return
	}
	l, t, status, err := s.checkLink(r)
	if err != nil {
		s.fail(w, r, status, err.Error())
		return
	}
	if err := s.links.use(l); err != nil {
		if err == errLinkUsed {
			s.fail(w, r, http.StatusGone, err.Error())
			return
		}
		s.logf("%v", err)
		s.fail(w, r, http.StatusInternalServerError, "the link could not be used (hive serve's log says why)")
		return
	}
	if l.Action == LinkAnswer {
		s.answered(w, r, who{session: &session{scope: &scope{}}}, t, l.Answer)
		return
	}
	s.setSession(w, r, &scope{Run: t.run, Plan: t.plan, Checkpoint: t.cp})
	http.Redirect(w, r, fmt.Sprintf("/runs/%s/checkpoints/%s/%d", t.run, t.plan, t.cp), http.StatusSeeOther)
}

// checkLink verifies the link of r and finds the run it means: 403 when
// forged, 410 when expired or used.
func (s *Server) checkLink(r *http.Request) (Link, target, int, error) {
	now := s.o.Now()
	if s.limit.blocked(clientOf(r), now) {
		return Link{}, target{}, http.StatusTooManyRequests, fmt.Errorf("too many bad links from this address: wait a minute")
	}
	l, err := verifyLink(s.o.Key, r.PathValue("token"), now)
	switch {
	case err == errLinkExpired:
		return l, target{}, http.StatusGone, err
	case err != nil:
		s.limit.failed(clientOf(r), now)
		return l, target{}, http.StatusForbidden, err
	case s.links.seen(l):
		return l, target{}, http.StatusGone, errLinkUsed
	}
	t := target{run: l.Run, plan: l.Plan, cp: l.Checkpoint}
	if t.run == "" {
		t.run = s.runOfPhase(l.Phase, l.Plan, l.Checkpoint)
	}
	var ok bool
	if t.kind, t.id, ok = views.ParseRunKey(t.run); !ok || !validItem(t.plan) {
		return l, t, http.StatusGone, fmt.Errorf("checkpoint #%d of %s is not open any more: it was answered, or its run is finished", l.Checkpoint, l.Plan)
	}
	return l, t, 0, nil
}

// runOfPhase finds the unfinished phase run of phase in which plan waits
// at checkpoint cp; "" if none.
func (s *Server) runOfPhase(phase, plan string, cp int) string {
	for _, v := range s.store.Runs() {
		if v.Kind != views.KindPhase || v.Finished != nil || v.Phase != phase {
			continue
		}
		for _, c := range v.Checkpoints {
			if c.Plan == plan && c.ID == cp {
				return v.Key
			}
		}
	}
	return ""
}
