package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/hivectl/hive/internal/serve/views"
)

// answerRemote sends an answer to a remote run's workflow.
func (s *Server) answerRemote(t target, text string) *answerError {
	r, ok := s.store.Remote(t.run)
	if !ok || s.o.Remote == nil {
		return &answerError{http.StatusNotFound, fmt.Sprintf("no run %s here", t.run)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.o.Remote.Answer(ctx, r, t.plan, t.cp, text); err != nil {
		if errors.Is(err, views.ErrNotOpen) {
			return &answerError{http.StatusConflict, err.Error()}
		}
		s.logf("answer to %s/%s #%d: %v", t.run, t.plan, t.cp, err)
		return &answerError{http.StatusInternalServerError, "the answer could not be sent to the run's workflow (hive serve's log says why)"}
	}
	return nil
}
