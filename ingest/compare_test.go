package ingest_test

import (
	"fmt"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/schemas"
)

// stat is a TTFT statistic (percentile p, or the mean for p < 0) with a
// value; the reported one keeps its native name.
func stat(source string, p, v float64) schemas.Metric {
	m := schemas.Metric{RunID: "r", MetricID: schemas.TTFT, Stat: schemas.StatMean, Source: source, Value: schemas.Some(v)}
	name := "time_to_first_token.avg"
	if p >= 0 {
		m.Stat, m.Percentile = schemas.StatP, schemas.Some(p)
		name = fmt.Sprintf("time_to_first_token.p%g", p)
	}
	if source == schemas.SourceReported {
		m.NativeName = name
	}
	return m
}

// TestCheckCompare: Check.Compare gives one warning for all the
// disagreements of one comparison (one cause), with their count, the
// largest relative difference and the three largest as examples, never one
// warning per statistic; statistics within the tolerance, without a
// recomputed counterpart or without a value are not disagreements.
func TestCheckCompare(t *testing.T) {
	rep := func(p, v float64) schemas.Metric { return stat(schemas.SourceReported, p, v) }
	com := func(p, v float64) schemas.Metric { return stat(schemas.SourceComputed, p, v) }
	noValue := rep(95, 0)
	noValue.Value = schemas.Opt[float64]{}
	cases := []struct {
		name               string
		check              ingest.Check
		reported, computed []schemas.Metric
		n                  int
		warning            string
	}{
		{"agree", ingest.Check{Where: "f.json", From: "the records"},
			[]schemas.Metric{rep(-1, 1), rep(50, 2)}, []schemas.Metric{com(-1, 1), com(50, 2*(1+1e-8))}, 0, ""},
		{"one", ingest.Check{Where: "f.json", From: "the records"},
			[]schemas.Metric{rep(-1, 1), rep(50, 2)}, []schemas.Metric{com(-1, 1.5), com(50, 2)}, 1,
			"f.json: reported time_to_first_token.avg = 1 disagrees with 1.5 recomputed from the records (relative difference 0.5)"},
		{"many, one warning", ingest.Check{Where: "f.json", From: "the records", Cause: "the records hold 7 of the 15 requests"},
			[]schemas.Metric{rep(-1, 1), rep(50, 2), rep(90, 4), rep(99, 5), rep(99.9, 10), noValue, rep(1, 1)},
			[]schemas.Metric{com(-1, 1.5), com(50, 3), com(90, 2), com(99, 6), com(99.9, 11), com(95, 3)}, 5,
			"f.json: 5 reported statistics disagree with those recomputed from the records (the records hold 7 of the 15 requests); largest relative difference 0.5; " +
				"e.g. time_to_first_token.avg = 1 against 1.5; time_to_first_token.p50 = 2 against 3; time_to_first_token.p90 = 4 against 2, and 2 more"},
		{"tolerance", ingest.Check{Where: "f.json", From: "the records", Tolerance: func(schemas.Metric) float64 { return 0.6 }},
			[]schemas.Metric{rep(-1, 1), rep(50, 2)}, []schemas.Metric{com(-1, 1.5), com(50, 3)}, 0, ""},
		{"recomputed without a value", ingest.Check{Where: "f.json", From: "the records"},
			[]schemas.Metric{rep(-1, 1)}, []schemas.Metric{{RunID: "r", MetricID: schemas.TTFT, Stat: schemas.StatMean, Source: schemas.SourceComputed}}, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &ingesttest.Sink{}
			if n := c.check.Compare(s, c.reported, c.computed); n != c.n {
				t.Errorf("Compare = %d, want %d", n, c.n)
			}
			want := 0
			if c.warning != "" {
				want = 1
			}
			if len(s.R.Warnings) != want || (want == 1 && s.R.Warnings[0] != c.warning) {
				t.Errorf("warnings %q\nwant %q", s.R.Warnings, c.warning)
			}
		})
	}
	// A hundred disagreeing statistics are still one warning.
	var reported, computed []schemas.Metric
	for i := range 100 {
		p := float64(i) / 100
		reported, computed = append(reported, rep(p, 1)), append(computed, com(p, 1+float64(i+1)/100))
	}
	s := &ingesttest.Sink{}
	if n := (ingest.Check{Where: "f", From: "the records"}).Compare(s, reported, computed); n != 100 || len(s.R.Warnings) != 1 {
		t.Errorf("100 disagreements: Compare = %d, %d warnings", n, len(s.R.Warnings))
	}
}
