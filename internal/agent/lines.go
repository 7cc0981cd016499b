package agent

import (
	"bufio"
	"io"
)

// DefaultMaxLine is the longest stdout line hive reads from an agent;
// longer lines are dropped with a note, so that an agent printing without
// newlines cannot make hive's memory grow.
const DefaultMaxLine = 8 << 20

// lineReader reads lines of at most max bytes. A longer line is dropped:
// Next reports its length and its first bytes instead.
type lineReader struct {
	br   *bufio.Reader
	max  int
	line []byte
	// seen is called whenever bytes arrive, for the stall watchdog.
	seen func()
}

// droppedHead is how much of a dropped line is kept to describe it.
const droppedHead = 200

func newLineReader(r io.Reader, max int, seen func()) *lineReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), max: max, seen: seen}
}

// Next returns the next line without its newline. When the line was longer
// than max, line holds its first bytes and dropped its full length. The
// last line of the stream may lack a newline. err is io.EOF at the end, or
// the read error; a partial line before it is returned first.
func (r *lineReader) Next() (line []byte, dropped int, err error) {
	// A buffer grown by one big line is given back, so that many agents
	// that each once printed a big line do not each hold one.
	if cap(r.line) > 1<<20 {
		r.line = nil
	}
	r.line = r.line[:0]
	n := 0
	for {
		chunk, err := r.br.ReadSlice('\n')
		if len(chunk) > 0 && r.seen != nil {
			r.seen()
		}
		end := err == nil
		if end {
			chunk = chunk[:len(chunk)-1]
		}
		n += len(chunk)
		switch {
		case n <= r.max:
			r.line = append(r.line, chunk...)
		case len(r.line) < droppedHead:
			r.line = append(r.line, chunk[:min(len(chunk), droppedHead-len(r.line))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if n > r.max {
			if len(r.line) > droppedHead {
				r.line = r.line[:droppedHead]
			}
			dropped = n
		}
		if end {
			return r.line, dropped, nil
		}
		if n > 0 {
			// The stream ended inside a line: hand it over; the next
			// call reads the error again.
			return r.line, dropped, nil
		}
		return nil, 0, err
	}
}
