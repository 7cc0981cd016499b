package roleplan

import (
	"encoding/json"
	"strings"

	"github.com/hivectl/hive/internal/work"
)

// Question is one of the interviewer's multiple-choice questions.
type Question struct {
	Question string   `json:"question"`
	Options  []string `json:"options,omitempty"`
	Default  string   `json:"default,omitempty"`
	Why      string   `json:"why,omitempty"`
}

// maxQuestions is how many of the interviewer's questions are asked: its
// prompt asks for 3 to 6, and a babbling one does not get a human to
// answer twenty.
const maxQuestions = 6

// Questions reads the interviewer's questions from its report.
func Questions(r *work.Report) []Question {
	var qs []Question
	if r == nil || json.Unmarshal(r.Extra["questions"], &qs) != nil {
		return nil
	}
	var out []Question
	for _, q := range qs {
		if strings.TrimSpace(q.Question) != "" {
			out = append(out, q)
		}
	}
	return out[:min(len(out), maxQuestions)]
}
