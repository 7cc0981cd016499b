package agent

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/hivectl/hive/internal/redact"
)

// DefaultLogLimit caps an attempt's output log on disk.
const DefaultLogLimit = 16 << 20

// agentLog is an attempt's log file: every write is masked by red, and once
// limit bytes are written a single truncation line ends it. Reading the
// agent's output goes on; only the file stops growing. Writers give it
// whole lines.
type agentLog struct {
	mu    sync.Mutex
	f     *os.File
	red   *redact.Redactor
	limit int64
	n     int64
	cut   bool
}

func (l *agentLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut {
		return len(p), nil
	}
	b := l.red.Bytes(p)
	if l.limit > 0 && l.n+int64(len(b)) > l.limit {
		b = b[:l.limit-l.n]
		l.cut = true
	}
	k, err := l.f.Write(b)
	l.n += int64(k)
	if l.cut {
		fmt.Fprintf(l.f, "\n[log truncated after %d bytes]\n", l.limit)
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// close writes the last line (past the limit: it says how the agent
// ended) and closes the file.
func (l *agentLog) close(last string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.f.Write(l.red.Bytes([]byte(last)))
	l.f.Close()
}

// prefixLines writes every line it is given to w with prefix before it;
// it is given whole lines (by a redact.Writer).
type prefixLines struct {
	w      io.Writer
	prefix string
}

func (p prefixLines) Write(b []byte) (int, error) {
	var out bytes.Buffer
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line = b[:i+1]
		}
		out.WriteString(p.prefix)
		out.Write(line)
		b = b[len(line):]
	}
	if !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
		out.WriteByte('\n')
	}
	if _, err := p.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(b), nil
}
