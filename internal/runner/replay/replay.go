package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/hivectl/hive/internal/engine"
	"github.com/hivectl/hive/internal/journal"
	"github.com/hivectl/hive/internal/phase"
)

// Run rebuilds the engine of a run from the journal, the way a resume
// does; `hive status` uses it too. Decoding the events' JSON is most of the
// work, so batches of them are decoded on every core while one goroutine
// steps the engine through them in journal order.
func Run(j journal.Journal, run journal.Run) (*engine.Engine, error) {
	const batchSize = 512
	type batch struct {
		recs []journal.Record
		evs  []phase.Event
		err  error
		done chan struct{}
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	work := make(chan *batch, workers*2)
	ordered := make(chan *batch, workers*4)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				b.evs = make([]phase.Event, len(b.recs))
				for i, rec := range b.recs {
					if err := json.Unmarshal(rec.Payload, &b.evs[i]); err != nil {
						b.err = fmt.Errorf("journal run %d event %d: %w", rec.Run, rec.Seq, err)
						break
					}
				}
				close(b.done)
			}
		}()
	}
	eng := engine.New()
	stepped := make(chan error, 1)
	go func() {
		var err error
		for b := range ordered {
			<-b.done
			if err == nil {
				err = b.err
			}
			if err == nil {
				for _, ev := range b.evs {
					// A refused event changed nothing when it was first
					// stepped either; a newer hive's events are refused whole.
					if _, serr := eng.Step(ev); errors.As(serr, new(*phase.NewerError)) {
						err = serr
						break
					}
				}
			}
		}
		stepped <- err
	}()
	cur := &batch{done: make(chan struct{})}
	flush := func() {
		work <- cur
		ordered <- cur
		cur = &batch{done: make(chan struct{})}
	}
	err := j.Each(run.ID, func(rec journal.Record) error {
		cur.recs = append(cur.recs, rec)
		if len(cur.recs) == batchSize {
			flush()
		}
		return nil
	})
	if len(cur.recs) > 0 {
		flush()
	}
	close(work)
	close(ordered)
	stepErr := <-stepped
	wg.Wait()
	if err == nil {
		err = stepErr
	}
	if err != nil {
		return nil, fmt.Errorf("replay run %d: %w", run.ID, err)
	}
	return eng, nil
}
