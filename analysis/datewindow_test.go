package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/schemas"
)

func TestDateWindow(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	ny, _ := time.LoadLocation("America/New_York")
	run := func(date string, dur float64, tz string) schemas.Run {
		r := schemas.Run{ToolDate: date, SUT: schemas.Inventory{TimeZone: tz}}
		if dur > 0 {
			r.DurationS = schemas.Some(dur)
		}
		return r
	}
	cases := []struct {
		run        schemas.Run
		tz         *time.Location
		start, end string
		why        string
	}{
		// November: Berlin is UTC+1; end = date + 0.5 s.
		{run("20261124-141500", 60, ""), berlin, "2026-11-24T13:14:00.5Z", "2026-11-24T13:15:00.5Z", ""},
		// July: UTC+2 (summer time).
		{run("20260715-090000", 0.5, ""), berlin, "2026-07-15T07:00:00Z", "2026-07-15T07:00:00.5Z", ""},
		// The inventory's zone wins over the flag's.
		{run("20261124-141500", 60, "America/New_York"), berlin, "2026-11-24T19:14:00.5Z", "2026-11-24T19:15:00.5Z", ""},
		{run("20261124-141500", 60, ""), ny, "2026-11-24T19:14:00.5Z", "2026-11-24T19:15:00.5Z", ""},
		{run("20261124-141500", 60, ""), nil, "", "", "local time without a zone (give --timezone Area/City"},
		{run("", 60, ""), berlin, "", "", "its tool records none"},
		{run("2026-11-24T14:15:00", 60, ""), berlin, "", "", `is not vLLM's %Y%m%d-%H%M%S`},
		{run("20261124-141500", 0, ""), berlin, "", "", "no duration"},
	}
	for _, c := range cases {
		start, end, note, why := DateWindow(c.run, c.tz)
		if c.why != "" {
			if !strings.Contains(why, c.why) {
				t.Errorf("%+v: why %q, want %q", c.run, why, c.why)
			}
			continue
		}
		if why != "" || start.Format(time.RFC3339Nano) != c.start || end.Format(time.RFC3339Nano) != c.end || !strings.Contains(note, c.run.ToolDate) {
			t.Errorf("%s in %v: %s to %s (%q, %q); want %s to %s", c.run.ToolDate, c.tz, start.Format(time.RFC3339Nano), end.Format(time.RFC3339Nano), note, why, c.start, c.end)
		}
	}
}
