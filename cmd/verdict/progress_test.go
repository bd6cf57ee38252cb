package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/vbauerster/mpb/v8"
)

// TestProgressBars: the statistics bars of report and the second-pass
// bars of ingest are drawn, named, and complete (wait returns), also
// when a phase ends early.
func TestProgressBars(t *testing.T) {
	var out bytes.Buffer
	p := &progress{p: mpb.NewWithContext(context.Background(), mpb.WithOutput(&out), mpb.WithWidth(40), mpb.WithAutoRefresh())}
	bars := &statsBars{p: p}
	update := bars.Stats("/x/platform-a.bundle", 8)
	for i := 1; i <= 8; i++ {
		update(i, i == 8)
	}
	early := bars.Stats("/x/platform-b.bundle", 8)
	early(3, false) // the report failed: finish ends the bar
	tick := p.Pass("/x/result.json", "requests of run 0", 10)
	tick(4)
	tick(6)
	tick(-1)
	bars.finish()
	got := out.String()
	for _, want := range []string{"statistics of platform-a.bundle", "statistics of platform-a.bundle 8 / 8", "statistics of platform-b.bundle 3 / 8", "result.json requests of run 0 10 / 10"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress output lacks %q:\n%s", want, got)
		}
	}
}
