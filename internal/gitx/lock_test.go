package gitx

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestLockedCancel(t *testing.T) {
	r := newTestRepo(t)
	held := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- r.Locked(context.Background(), func() error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := r.Locked(ctx, func() error { t.Error("ran without the lock"); return nil })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want deadline exceeded", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := r.Locked(context.Background(), func() error { return nil }); err != nil {
		t.Fatal(err)
	}
}
