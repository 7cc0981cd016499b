package serve

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// cookieName holds a browser's session id (HttpOnly: no script reads it).
const cookieName = "hive_session"

// Lifetimes.
const (
	sessionTTL = 7 * 24 * time.Hour
	loginTTL   = 15 * time.Minute
)

// scope limits what a session may see and do: the one checkpoint a
// signed link opened. A nil scope is the whole dashboard.
type scope struct {
	Run        string
	Plan       string
	Checkpoint int
}

type session struct {
	csrf    string
	expires time.Time
	scope   *scope
}

// who made a request: a bearer token (a program: no CSRF token needed, a
// browser cannot send the header cross-site), or a browser's session.
type who struct {
	bearer  bool
	session *session
}

// allows says whether the caller may see or answer checkpoint cp of plan
// in run (a run page when plan is "").
func (w who) allows(run, plan string, cp int) bool {
	if w.bearer || w.session.scope == nil {
		return true
	}
	s := w.session.scope
	return s.Run == run && s.Plan == plan && s.Checkpoint == cp
}

// sessions are kept in memory: a restarted hive serve asks browsers to log
// in again, which its new login link does.
type sessions struct {
	mu     sync.Mutex
	byID   map[string]*session
	logins map[string]time.Time // one-time login codes → expiry
}

func newSessions() *sessions {
	return &sessions{byID: map[string]*session{}, logins: map[string]time.Time{}}
}

// create starts a session and returns its id.
func (s *sessions) create(sc *scope, now time.Time) (string, *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, x := range s.byID {
		if now.After(x.expires) {
			delete(s.byID, id)
		}
	}
	id := randomToken(32)
	ses := &session{csrf: randomToken(32), expires: now.Add(sessionTTL), scope: sc}
	s.byID[id] = ses
	return id, ses
}

func (s *sessions) get(id string, now time.Time) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	ses := s.byID[id]
	if ses == nil || now.After(ses.expires) {
		return nil
	}
	return ses
}

// newLogin returns a one-time login code.
func (s *sessions) newLogin(now time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c, exp := range s.logins {
		if now.After(exp) {
			delete(s.logins, c)
		}
	}
	code := randomToken(24)
	s.logins[code] = now.Add(loginTTL)
	return code
}

// useLogin consumes a login code; false when it is unknown, used or
// expired.
func (s *sessions) useLogin(code string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.logins[code]
	delete(s.logins, code)
	return ok && !now.After(exp)
}

func equalSecret(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// authenticate finds who sent r: the bearer token, or a live session.
func (s *Server) authenticate(r *http.Request) (who, bool) {
	if h := r.Header.Get("Authorization"); h != "" {
		tok, ok := strings.CutPrefix(h, "Bearer ")
		return who{bearer: true}, ok && equalSecret(strings.TrimSpace(tok), s.o.Token)
	}
	c, err := r.Cookie(cookieName)
	if err != nil {
		return who{}, false
	}
	ses := s.sessions.get(c.Value, s.o.Now())
	return who{session: ses}, ses != nil
}

// setSession gives the browser a new session's cookie.
func (s *Server) setSession(w http.ResponseWriter, r *http.Request, sc *scope) {
	id, _ := s.sessions.create(sc, s.o.Now())
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: id, Path: "/", HttpOnly: true,
		// Lax: the cookie goes with a link opened from another app (a
		// notification); a cross-site POST never carries it.
		SameSite: http.SameSiteLaxMode,
		Secure:   s.secure(r),
		MaxAge:   int(sessionTTL / time.Second),
	})
}

// secure says whether the browser reached hive serve over https (TLS here,
// or the public address behind the user's tunnel).
func (s *Server) secure(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	u, err := url.Parse(s.o.PublicURL)
	return err == nil && u.Scheme == "https" && u.Host == r.Host
}

// sameOrigin checks that a state-changing request comes from a page of
// hive serve itself: its Origin (or, without one, its Referer) is this
// server's address or the public one. A program using the bearer token
// may send neither.
func (s *Server) sameOrigin(r *http.Request, id who) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		if ref := r.Header.Get("Referer"); ref != "" {
			if u, err := url.Parse(ref); err == nil {
				origin = u.Scheme + "://" + u.Host
			}
		}
	}
	if origin == "" {
		return id.bearer
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false // "null" among others
	}
	if u.Host == r.Host {
		return true
	}
	pub, err := url.Parse(s.o.PublicURL)
	return err == nil && s.o.PublicURL != "" && pub.Scheme == u.Scheme && pub.Host == u.Host
}

// checkCSRF checks the CSRF token of a state-changing request made with a
// session: a form field or the X-CSRF-Token header.
func checkCSRF(r *http.Request, id who) bool {
	if id.bearer {
		return true
	}
	tok := r.Header.Get("X-CSRF-Token")
	if tok == "" {
		tok = r.PostFormValue("csrf")
	}
	return tok != "" && equalSecret(tok, id.session.csrf)
}

// limiter bounds the rate of requests per client address (a token bucket
// each), and, far lower, of failed authentications: guessing a token from
// one address takes forever.
type limiter struct {
	mu      sync.Mutex
	rate    float64 // tokens per second
	burst   float64
	buckets map[string]*bucket
	fails   map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

const (
	failRate  = 10.0 / 60 // ten failed logins a minute
	failBurst = 10
)

func newLimiter(rate float64) *limiter {
	return &limiter{rate: rate, burst: 2 * rate, buckets: map[string]*bucket{}, fails: map[string]*bucket{}}
}

func take(m map[string]*bucket, key string, rate, burst float64, now time.Time, n float64) bool {
	b := m[key]
	if b == nil {
		if len(m) > 10000 {
			clear(m) // many addresses: forget them all rather than grow
		}
		b = &bucket{tokens: burst, last: now}
		m[key] = b
	}
	b.tokens = min(burst, b.tokens+now.Sub(b.last).Seconds()*rate)
	b.last = now
	if b.tokens < n {
		return false
	}
	b.tokens -= n
	return true
}

// allow takes one request of client.
func (l *limiter) allow(client string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return take(l.buckets, client, l.rate, l.burst, now, 1)
}

// failed counts a failed authentication of client; false once it has
// failed too often.
func (l *limiter) failed(client string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return take(l.fails, client, failRate, failBurst, now, 1)
}

// blocked says whether client failed too often to try again now.
func (l *limiter) blocked(client string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.fails[client]
	return b != nil && min(failBurst, b.tokens+now.Sub(b.last).Seconds()*failRate) < 1
}

func clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
