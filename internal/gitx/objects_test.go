package gitx

import (
	"context"
	"strings"
	"testing"
)

func TestObjectsAndAnyNamesPlan(t *testing.T) {
	r := newTestRepo(t)
	ctx := context.Background()
	if _, err := r.Git(ctx, "commit", "-q", "--allow-empty", "-m", "feat(02-01): a thing", "-m", "Hive-Plan: 02-01\nHive-Task: 02-01/1"); err != nil {
		t.Fatal(err)
	}
	head, err := r.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := r.OpenObjects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer objs.Close()
	msg, ok := objs.Message(head)
	if !ok || !strings.Contains(msg, "Hive-Task: 02-01/1") || strings.Contains(msg, "author ") {
		t.Fatalf("Message = %q, %v", msg, ok)
	}
	for _, c := range []struct {
		id     string
		listed []string
		want   bool
	}{
		{"02-01", []string{head[:7] + " feat(02-01): a thing"}, true},
		{"02-01", []string{"deadbeef0 missing"}, false},
		{"02-01", []string{"--all"}, false},
		{"02-0", []string{head}, false},
		{"12-01", []string{head}, false},
		{"02-01", []string{"deadbeef0", head}, true}, // a missing hash does not stop the reader
	} {
		if got := AnyNamesPlan(objs, c.id, c.listed); got != c.want {
			t.Errorf("AnyNamesPlan(%s, %v) = %v", c.id, c.listed, got)
		}
	}
	if AnyNamesPlan(nil, "02-01", []string{head}) {
		t.Error("no reader, yet a match")
	}
}
