package serve

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/serve/views"
)

// keepAlive is how often an idle event stream gets a comment line, so that
// proxies and phones keep it open.
const keepAlive = 15 * time.Second

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// apiRuns lists every run, newest first.
func (s *Server) apiRuns(w http.ResponseWriter, r *http.Request, id who) {
	<-s.ready
	writeJSON(w, http.StatusOK, s.store.Runs())
}

// apiRun shows one run.
func (s *Server) apiRun(w http.ResponseWriter, r *http.Request, id who) {
	<-s.ready
	v, ok := s.runOf(w, r, id, "GET /api/runs lists them")
	if ok {
		writeJSON(w, http.StatusOK, v)
	}
}

// apiCheckpoints lists the open checkpoints of every run.
func (s *Server) apiCheckpoints(w http.ResponseWriter, r *http.Request, id who) {
	<-s.ready
	cps := s.store.Checkpoints()
	if cps == nil {
		cps = []views.CheckpointView{}
	}
	writeJSON(w, http.StatusOK, cps)
}

// answerBody is the body of POST .../answer: {"answer": "..."}.
type answerBody struct {
	Answer *string `json:"answer"` // nil when the field is missing
}

// answerReply is what an accepted answer returns.
type answerReply struct {
	Run        string `json:"run"`
	Plan       string `json:"plan"`
	Checkpoint int    `json:"checkpoint"`
	Answer     string `json:"answer"` // as journaled: a secret in it is masked
	Seq        int64  `json:"seq,omitempty"`
}

// apiAnswer answers one checkpoint: 200 when recorded, 409 when it was
// answered already (here or anywhere else), 404 when there is no such
// open checkpoint, 422 when the checkpoint does not take that answer.
func (s *Server) apiAnswer(w http.ResponseWriter, r *http.Request, id who) {
	t, ok := s.target(w, r, id)
	if !ok {
		return
	}
	var text string
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" {
		var raw json.RawMessage
		if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
			status := http.StatusBadRequest
			if _, ok := err.(*http.MaxBytesError); ok {
				status = http.StatusRequestEntityTooLarge
			}
			s.fail(w, r, status, "the body must be JSON: {\"answer\": \"...\"}")
			return
		}
		var body answerBody
		if err := json.Unmarshal(raw, &body); err != nil || body.Answer == nil {
			s.fail(w, r, http.StatusBadRequest, missingAnswer(raw))
			return
		}
		text = *body.Answer
	} else {
		text = r.PostFormValue("answer") // parses the form, multipart too
		if !r.PostForm.Has("answer") {
			s.fail(w, r, http.StatusBadRequest, "the form has no field \"answer\": send answer=...")
			return
		}
	}
	res, aerr := s.record(t, text)
	if aerr != nil {
		s.fail(w, r, aerr.status, aerr.msg)
		return
	}
	writeJSON(w, http.StatusOK, answerReply{Run: t.run, Plan: t.plan, Checkpoint: t.cp, Answer: res.Answer, Seq: res.Seq})
}

// missingAnswer says what is wrong with a JSON body that has no string
// "answer": the field is missing (naming the fields sent instead, such as
// "response"), or it is not a string.
func missingAnswer(raw json.RawMessage) string {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return "the body must be a JSON object: {\"answer\": \"...\"}"
	}
	if _, ok := fields["answer"]; ok {
		return "the field \"answer\" must be a string: {\"answer\": \"...\"}"
	}
	var names []string
	for k := range fields {
		names = append(names, strconv.Quote(k))
	}
	sort.Strings(names)
	msg := "the body has no field \"answer\": send {\"answer\": \"...\"}"
	if len(names) > 0 {
		msg += " (it has " + strings.Join(names, ", ") + ")"
	}
	return msg
}

// apiSession tells a browser's script its CSRF token.
func (s *Server) apiSession(w http.ResponseWriter, r *http.Request, id who) {
	reply := map[string]any{"bearer": id.bearer}
	if id.session != nil {
		reply["csrf"] = id.session.csrf
	}
	writeJSON(w, http.StatusOK, reply)
}

// events streams the store's events (server-sent events): each run's new
// view ("run") and each answer applied ("answered"). A client that
// reconnects with Last-Event-ID gets what it missed, or "reset" when that
// is no longer kept.
func (s *Server) events(w http.ResponseWriter, r *http.Request, id who) {
	<-s.ready
	if id.session != nil && id.session.scope != nil {
		s.fail(w, r, http.StatusForbidden, "this link opens one checkpoint only")
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		s.fail(w, r, http.StatusInternalServerError, "streaming is not supported here")
		return
	}
	if s.streams.Add(1) > maxStreams {
		s.streams.Add(-1)
		w.Header().Set("Retry-After", "5")
		s.fail(w, r, http.StatusServiceUnavailable, "too many event streams open")
		return
	}
	defer s.streams.Add(-1)
	wake, unsubscribe := s.store.Subscribe()
	defer unsubscribe()
	last := s.store.Last()
	if h := r.Header.Get("Last-Event-ID"); h != "" {
		if n, err := strconv.ParseInt(h, 10, 64); err == nil && n >= 0 {
			last = n
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "retry: 2000\n\n")
	flusher.Flush()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		evs, complete := s.store.Since(last)
		if !complete {
			fmt.Fprintf(w, "event: reset\ndata: {}\n\n")
		}
		for _, ev := range evs {
			fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", ev.ID, ev.Type, ev.Data)
			last = ev.ID
		}
		if len(evs) > 0 || !complete {
			flusher.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-wake:
		case <-tick.C:
			fmt.Fprintf(w, ": keep-alive\n\n")
			flusher.Flush()
		}
	}
}
