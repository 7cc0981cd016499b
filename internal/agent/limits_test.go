package agent

import (
	"testing"
	"time"
)

func TestResetAt(t *testing.T) {
	utc := time.Date(2026, 12, 2, 12, 18, 30, 0, time.UTC)
	for _, tt := range []struct {
		l    Limit
		want time.Time
	}{
		{Limit{Reset: time.Date(2026, 12, 2, 17, 0, 0, 0, time.UTC)}, time.Date(2026, 12, 2, 17, 0, 0, 0, time.UTC)},
		{Limit{After: 2*time.Hour + 13*time.Minute}, utc.Add(2*time.Hour + 13*time.Minute)},
		{Limit{Clock: "2:31 PM"}, time.Date(2026, 12, 2, 14, 31, 0, 0, time.UTC)},
		{Limit{Clock: "11:05 am"}, time.Date(2026, 12, 3, 11, 5, 0, 0, time.UTC)}, // passed today: tomorrow
		{Limit{Clock: "Dec 3rd, 2026 1:56 AM"}, time.Date(2026, 12, 3, 1, 56, 0, 0, time.UTC)},
		{Limit{Clock: "Jan 1st, 2027 12:05 PM"}, time.Date(2027, 1, 1, 12, 5, 0, 0, time.UTC)},
		{Limit{Clock: "Dec 22nd, 2026 9:00 am"}, time.Date(2026, 12, 22, 9, 0, 0, 0, time.UTC)},
		{Limit{Clock: "Dec 11th, 2026 11:00 PM"}, time.Date(2026, 12, 11, 23, 0, 0, 0, time.UTC)},
		{Limit{Clock: "Dec 33rd, 2026 1:56 AM"}, time.Time{}},
		{Limit{Clock: "25:99 PM"}, time.Time{}},
		{Limit{}, time.Time{}},
	} {
		if got := tt.l.ResetAt(utc); !got.Equal(tt.want) {
			t.Errorf("%+v.ResetAt = %v, want %v", tt.l, got, tt.want)
		}
	}
}
