package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hivectl/hive/internal/answer"
	"github.com/hivectl/hive/internal/redact"
	"github.com/hivectl/hive/internal/serve/views"
)

// Limits.
const (
	// MaxBody bounds every request body: an answer is a few lines.
	MaxBody = 64 << 10
	// maxAnswer bounds an answer's text.
	maxAnswer = 16 << 10
	// maxStreams bounds the event streams open at once.
	maxStreams = 512
	// outputTail is how much of an agent's log the output view shows.
	outputTail = 32 << 10
)

// Options configure a Server.
type Options struct {
	// Root is the repository's root; its .hive/ holds the journals.
	Root string
	// Token authenticates programs (Authorization: Bearer TOKEN) and logs
	// browsers in (the login form). It must not be empty.
	Token string
	// Key signs the links of notifications (LoadKey).
	Key []byte
	// PublicURL is the address browsers use when it is not the one they
	// reach directly (a tunnel): its origin is accepted as the page's own.
	PublicURL string
	// Redactor masks secrets in answers and agent output; nil masks the
	// built-in credential shapes.
	Redactor *redact.Redactor
	// RenderLog turns an agent's log into text for a human; nil shows it
	// as written.
	RenderLog func(w io.Writer, log io.Reader)
	// Rate is the requests per second each client address may make (twice
	// as many in a burst); zero means 300.
	Rate float64
	// Poll is how often the journals are read for changes; zero means
	// 200 ms.
	Poll time.Duration
	// Logf logs what went wrong, and each request when LogRequests is set
	// (method, path without any secret, status); nil logs nothing.
	Logf        func(format string, args ...any)
	LogRequests bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Remote, when set, adds the runs of another backend (the Temporal
	// workflows of the repository's phases) to the journals' runs.
	Remote views.Remote
}

// Server is hive serve's handler. Start its journal follower with Run.
type Server struct {
	o        Options
	store    *views.Store
	sessions *sessions
	links    *usedLinks
	limit    *limiter
	mux      *http.ServeMux
	streams  atomic.Int64
	ready    chan struct{} // closed after the first read of the journals
}

// New returns a Server for the repository at o.Root.
func New(o Options) (*Server, error) {
	if o.Token == "" {
		return nil, errors.New("hive serve needs a token")
	}
	if len(o.Key) < 32 {
		return nil, errors.New("hive serve needs a signing key of 32 bytes or more (LoadKey)")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rate <= 0 {
		o.Rate = 300
	}
	if o.Poll <= 0 {
		o.Poll = 200 * time.Millisecond
	}
	if o.Redactor == nil {
		o.Redactor = redact.New()
	}
	used, err := loadUsedLinks(o.Root, o.Now())
	if err != nil {
		return nil, err
	}
	s := &Server{o: o, store: views.New(o.Root, o.Remote), sessions: newSessions(), links: used, limit: newLimiter(o.Rate), ready: make(chan struct{})}
	s.routes()
	return s, nil
}

// Run follows the journals until ctx ends. The first read's error is
// returned at once (a damaged journal); later ones, and the remote
// backend's, are logged and retried.
func (s *Server) Run(ctx context.Context) error {
	defer s.store.Close()
	err := s.store.Refresh()
	close(s.ready)
	var remote *views.RemoteError
	if errors.As(err, &remote) {
		s.logf("%v", err)
	} else if err != nil {
		return err
	}
	t := time.NewTicker(s.o.Poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := s.store.Refresh(); err != nil {
				s.logf("read the journals: %v", err)
			}
		}
	}
}

// LoginURL returns the path of a new one-time login link (/login/CODE),
// valid for 15 minutes.
func (s *Server) LoginURL() string { return "/login/" + s.sessions.newLogin(s.o.Now()) }

func (s *Server) logf(format string, args ...any) {
	if s.o.Logf != nil {
		s.o.Logf("%s", s.o.Redactor.String(fmt.Sprintf(format, args...)))
	}
}

func (s *Server) routes() {
	m := http.NewServeMux()
	// Pages.
	m.HandleFunc("GET /{$}", s.authed(s.dashboardPage))
	m.HandleFunc("GET /runs/{run}", s.authed(s.runPage))
	m.HandleFunc("GET /runs/{run}/checkpoints/{plan}/{cp}", s.authed(s.checkpointPage))
	m.HandleFunc("POST /runs/{run}/checkpoints/{plan}/{cp}", s.authed(s.changing(s.answerForm)))
	m.HandleFunc("GET /runs/{run}/output/{item}", s.authed(s.output))
	m.HandleFunc("GET /static/{file}", s.static)
	// Logging in, and the signed links of notifications.
	m.HandleFunc("GET /login", s.loginPage)
	m.HandleFunc("POST /login", s.loginForm)
	m.HandleFunc("GET /login/{code}", s.loginLink)
	m.HandleFunc("GET /l/{token}", s.linkPage)
	m.HandleFunc("POST /l/{token}", s.linkUse)
	// The JSON API.
	m.HandleFunc("GET /api/runs", s.authed(s.apiRuns))
	m.HandleFunc("GET /api/runs/{run}", s.authed(s.apiRun))
	m.HandleFunc("GET /api/checkpoints", s.authed(s.apiCheckpoints))
	m.HandleFunc("POST /api/runs/{run}/checkpoints/{plan}/{cp}/answer", s.authed(s.changing(s.apiAnswer)))
	m.HandleFunc("GET /api/events", s.authed(s.events))
	m.HandleFunc("GET /api/session", s.authed(s.apiSession))
	s.mux = m
}

// ServeHTTP bounds every request (rate, body), sets the headers that keep
// pages from being framed, sniffed or cached, and logs it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := s.o.Now()
	rec := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	defer func() {
		if !s.o.LogRequests {
			return
		}
		s.logf("%s %s %d %s", r.Method, loggedPath(r.URL.Path), rec.status, s.o.Now().Sub(start).Round(time.Millisecond))
	}()
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin") // a link's token never leaves for another site
	h.Set("Cache-Control", "no-store")
	if !s.limit.allow(clientOf(r), start) {
		rec.Header().Set("Retry-After", "1")
		s.fail(rec, r, http.StatusTooManyRequests, "too many requests: slow down")
		return
	}
	if r.ContentLength > MaxBody {
		s.fail(rec, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is over %d KiB", MaxBody>>10))
		return
	}
	r.Body = http.MaxBytesReader(rec, r.Body, MaxBody)
	s.mux.ServeHTTP(rec, r)
}

// loggedPath is the path without the secrets some paths carry.
func loggedPath(p string) string {
	for _, prefix := range []string{"/l/", "/login/"} {
		if strings.HasPrefix(p, prefix) {
			return prefix + redact.Mask
		}
	}
	return p
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Flush lets the event stream flush through the wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

type handler func(w http.ResponseWriter, r *http.Request, id who)

// authed refuses a request without a valid token or session: 401, or 429
// once the client failed too often.
func (s *Server) authed(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		now := s.o.Now()
		client := clientOf(r)
		if s.limit.blocked(client, now) {
			w.Header().Set("Retry-After", "60")
			s.fail(w, r, http.StatusTooManyRequests, "too many failed logins from this address: wait a minute")
			return
		}
		id, ok := s.authenticate(r)
		if !ok {
			if r.Header.Get("Authorization") != "" {
				s.limit.failed(client, now) // a wrong token; a missing one is no guess
			}
			if wantsHTML(r) {
				http.Redirect(w, r, "/login", http.StatusSeeOther)
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="hive"`)
			s.fail(w, r, http.StatusUnauthorized, "log in: use the login link hive serve printed, or send Authorization: Bearer TOKEN")
			return
		}
		if id.session != nil && id.session.scope != nil && !strings.HasPrefix(r.URL.Path, "/runs/") && !strings.HasPrefix(r.URL.Path, "/api/runs/") && r.URL.Path != "/api/session" {
			s.fail(w, r, http.StatusForbidden, "this link opens one checkpoint only: log in to see the dashboard")
			return
		}
		h(w, r, id)
	}
}

// changing guards a state-changing request: same origin and, for a
// browser's session, the CSRF token.
func (s *Server) changing(h handler) handler {
	return func(w http.ResponseWriter, r *http.Request, id who) {
		if !s.sameOrigin(r, id) {
			s.fail(w, r, http.StatusForbidden, "refused: the request does not come from hive serve's own page (Origin)")
			return
		}
		if !checkCSRF(r, id) {
			s.fail(w, r, http.StatusForbidden, "refused: the CSRF token is missing or wrong; reload the page and answer again")
			return
		}
		h(w, r, id)
	}
}

// wantsHTML says whether r comes from a browser loading a page.
func wantsHTML(r *http.Request) bool {
	return !strings.HasPrefix(r.URL.Path, "/api/") && strings.Contains(r.Header.Get("Accept"), "text/html")
}

// param patterns: anything else is refused before it reaches a journal,
// a template or a path.
var itemPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// target is the checkpoint a request names.
type target struct {
	run  string
	kind string
	id   int64
	plan string
	cp   int
}

var errBadParam = errors.New("bad parameter")

// parseTarget reads and checks {run}, {plan} and {cp}.
func parseTarget(r *http.Request) (target, error) {
	t := target{run: r.PathValue("run"), plan: r.PathValue("plan")}
	var ok bool
	if t.kind, t.id, ok = views.ParseRunKey(t.run); !ok {
		return t, fmt.Errorf("%w: run %q is not KIND-ID (phase-3, pipeline-1)", errBadParam, t.run)
	}
	if !validItem(t.plan) {
		return t, fmt.Errorf("%w: %q is not a plan or role id", errBadParam, t.plan)
	}
	n, err := strconv.Atoi(r.PathValue("cp"))
	if err != nil || n <= 0 || n > 1<<30 {
		return t, fmt.Errorf("%w: checkpoint %q is not a number", errBadParam, r.PathValue("cp"))
	}
	t.cp = n
	return t, nil
}

func validItem(s string) bool { return itemPattern.MatchString(s) && !strings.Contains(s, "..") }

// answerError is how an answer that was not recorded is told.
type answerError struct {
	status int
	msg    string
}

// record gives the answer through the path of `hive answer`.
func (s *Server) record(t target, text string) (answer.Result, *answerError) {
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return answer.Result{}, &answerError{http.StatusUnprocessableEntity, "an empty answer: say what to do"}
	case len(text) > maxAnswer:
		return answer.Result{}, &answerError{http.StatusRequestEntityTooLarge, fmt.Sprintf("the answer is over %d KiB", maxAnswer>>10)}
	}
	// Most answers that come too late are told so from the views (read
	// again when the checkpoint may be newer than they are): only an answer
	// to an open checkpoint takes the answer path's lock and replay, which
	// decide.
	if open, _, answered := s.store.Lookup(t.run, t.plan, t.cp); !open && !answered {
		// Perhaps too new for the views.
		if err := s.store.Refresh(); err != nil {
			s.logf("read the journals: %v", err)
		}
	}
	if open, known, _ := s.store.Lookup(t.run, t.plan, t.cp); !open {
		switch {
		case known:
			return answer.Result{}, &answerError{http.StatusConflict, fmt.Sprintf("%v: checkpoint #%d of %s in %s is no longer open", answer.ErrAnswered, t.cp, t.plan, t.run)}
		default:
			return answer.Result{}, &answerError{http.StatusNotFound, fmt.Sprintf("%s has no checkpoint #%d of %s (GET /api/checkpoints lists the open ones)", t.run, t.cp, t.plan)}
		}
	}
	if t.kind == views.KindTemporal {
		masked := s.o.Redactor.String(text)
		if aerr := s.answerRemote(t, masked); aerr != nil {
			return answer.Result{}, aerr
		}
		s.store.RemoteNow() // show it at once
		if err := s.store.Refresh(); err != nil {
			s.logf("%v", err)
		}
		return answer.Result{Answer: masked}, nil
	}
	phase, pipe := s.store.Journals()
	js := answer.Journals{Root: s.o.Root, Phase: phase, Pipeline: pipe, Redactor: s.o.Redactor}
	if t.kind == views.KindPhase {
		js.Pipeline = nil
	} else {
		js.Phase = nil
	}
	res, err := answer.Record(js, answer.Request{Plan: t.plan, Run: t.id, Checkpoint: t.cp, Text: text, Now: s.o.Now()})
	var refused *answer.RefusedError
	switch {
	case errors.Is(err, answer.ErrAnswered):
		return res, &answerError{http.StatusConflict, err.Error()}
	case errors.As(err, &refused) && refused.NoCheckpoint:
		return res, &answerError{http.StatusNotFound, err.Error()}
	case errors.As(err, &refused):
		return res, &answerError{http.StatusUnprocessableEntity, err.Error()}
	case err != nil:
		s.logf("answer to %s/%s #%d: %v", t.run, t.plan, t.cp, err)
		return res, &answerError{http.StatusInternalServerError, "the answer could not be recorded (hive serve's log says why)"}
	}
	// Show it at once rather than at the next poll.
	if err := s.store.Refresh(); err != nil {
		s.logf("read the journals: %v", err)
	}
	return res, nil
}
