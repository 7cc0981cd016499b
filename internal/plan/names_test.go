package plan

import (
	"reflect"
	"testing"
)

func TestCompareNum(t *testing.T) {
	in := []string{"10", "2.1", "1", "02", "2.10", "2.2", "100000000000000000000001"}
	want := []string{"1", "02", "2.1", "2.2", "2.10", "10", "100000000000000000000001"}
	got := append([]string(nil), in...)
	for i := range got { // insertion sort keeps the test independent of sort's stability
		for j := i; j > 0 && CompareNum(got[j], got[j-1]) < 0; j-- {
			got[j], got[j-1] = got[j-1], got[j]
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestPlanKey(t *testing.T) {
	for name, want := range map[string]string{
		"03-02": "3/2", "03-auth-02": "3/2", "03-02-login": "3/2", "02.1-03": "2.1/3",
		"CK-04-01": "4/1", "03-user-auth-12": "3/12", "3A-01": "3A/1",
		"03": "", "03-auth": "", "03-auth-02-extra": "", "auth": "", "03-FIX": "", "03-v2-auth-02": "3/2", "03-2fa-02": "3/2", "03-1-2": "3/1",
	} {
		ph, n, ok := Key(name)
		got := ""
		if ok {
			got = ph + "/" + n
		}
		if got != want {
			t.Errorf("Key(%q) = %q, want %q", name, got, want)
		}
	}
}

// A whole earlier phase named by its folder in depends_on is nothing a plan
// waits for: phases run in order.
func TestNamesPhaseUpTo(t *testing.T) {
	if !NamesPhaseUpTo("01-foundation-and-data", "02") || NamesPhaseUpTo("03-later", "02") || NamesPhaseUpTo("02-03", "02") {
		t.Error("NamesPhaseUpTo")
	}
}
