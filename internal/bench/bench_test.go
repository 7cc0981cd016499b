package bench

import "testing"

// TestGroups: an unknown group is refused, and With puts extra groups in
// place of hive's own of the same name, or after them.
func TestGroups(t *testing.T) {
	if err := CheckGroups([]string{"makespan", "nope"}, nil); err == nil {
		t.Error("an unknown group was accepted")
	}
	extra := With(Group{Name: "tokens"}, Group{Name: "more"})
	if err := CheckGroups([]string{"tokens", "more"}, extra); err != nil {
		t.Error(err)
	}
	if names := Names(extra); names[3] != "tokens" || names[len(names)-1] != "more" || len(names) != len(groups)+1 || extra[3].Measure != nil {
		t.Errorf("With: %v", names)
	}
}
