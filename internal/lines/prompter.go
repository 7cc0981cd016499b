package lines

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/hivectl/hive/internal/phase"
	"github.com/hivectl/hive/internal/runner"
	"github.com/hivectl/hive/internal/tui"
)

// Title and yourAction name a checkpoint as seed 000 does; the dashboard
// shares them (internal/tui), so both views read the same.
func Title(cp phase.Checkpoint) string { return tui.Title(cp) }

// WriteQueue prints the checkpoint queue in seed 000's format: the open
// checkpoint in full, the others by title.
func WriteQueue(w io.Writer, queue []phase.Checkpoint, plans []*phase.PlanStatus) {
	io.WriteString(w, tui.QueueText(queue, plans))
}

// Prompter reads answers typed in the terminal that runs hive and sends each
// to the checkpoint shown last: the head of the queue.
type Prompter struct {
	mu   sync.Mutex
	head *phase.Checkpoint
	Out  chan runner.Answer // the answers, to the run
}

func NewPrompter(in io.Reader, done <-chan struct{}) *Prompter {
	p := &Prompter{Out: make(chan runner.Answer)}
	go func() {
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			text := strings.TrimSpace(sc.Text())
			p.mu.Lock()
			head := p.head
			p.mu.Unlock()
			if text == "" || head == nil {
				continue
			}
			select {
			case p.Out <- runner.Answer{Plan: head.Plan, Text: OptionByNumber(*head, text)}:
			case <-done:
				return
			}
		}
	}()
	return p
}

func (p *Prompter) show(queue []phase.Checkpoint) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.head = nil
	if len(queue) > 0 {
		cp := queue[0]
		p.head = &cp
	}
}

// OptionByNumber lets a human pick a decision's option by its number.
func OptionByNumber(cp phase.Checkpoint, text string) string {
	if n, err := strconv.Atoi(text); err == nil && n >= 1 && n <= len(cp.Options) {
		return cp.Options[n-1]
	}
	return text
}
