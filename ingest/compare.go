package ingest

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
)

// A Check compares a tool's reported statistics with those a reader
// recomputed from the per-request data, for readers that do both.
type Check struct {
	// Where names the run or file in the warning ("benchmark 0",
	// "profile_export.jsonl").
	Where string
	// From names the per-request data ("the records").
	From string
	// Tolerance is the relative tolerance for a statistic; nil means 1e-6.
	Tolerance func(reported schemas.Metric) float64
	// Cause, when set, explains why the statistics are expected to differ
	// (the records are a part of the run, say); it is given in the warning.
	Cause string
}

// examples is how many disagreements a warning quotes.
const examples = 3

// Compare warns about reported statistics that disagree with recomputed
// ones (matched by Metric.Key): one warning for all of them, with their
// count, the largest relative difference and a few examples, not one per
// statistic. It returns the number of disagreements.
func (c Check) Compare(sink Sink, reported, computed []schemas.Metric) int {
	byKey := map[string]schemas.Metric{}
	for _, m := range computed {
		m.Source = schemas.SourceReported
		byKey[m.Key()] = m
	}
	type diff struct {
		rep, com schemas.Metric
		rel      float64
	}
	var diffs []diff
	for _, rep := range reported {
		com, ok := byKey[rep.Key()]
		if !ok || !rep.Value.OK || !com.Value.OK {
			continue
		}
		tol := 1e-6
		if c.Tolerance != nil {
			tol = c.Tolerance(rep)
		}
		scale := math.Max(math.Abs(rep.Value.V), 1e-12)
		if d := math.Abs(rep.Value.V - com.Value.V); d > tol*scale && d > 1e-12 {
			diffs = append(diffs, diff{rep, com, d / scale})
		}
	}
	if len(diffs) == 0 {
		return 0
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	cause := ""
	if c.Cause != "" {
		cause = " (" + c.Cause + ")"
	}
	if len(diffs) == 1 {
		d := diffs[0]
		sink.Warn(fmt.Sprintf("%s: reported %s = %s disagrees with %s recomputed from %s (relative difference %.2g)%s",
			c.Where, d.rep.NativeName, num(d.rep.Value.V), num(d.com.Value.V), c.From, d.rel, cause))
		return 1
	}
	largest := 0.0
	for _, d := range diffs {
		largest = math.Max(largest, d.rel)
	}
	// Quote the largest differences, in the file's order among equals.
	order := make([]int, len(diffs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return diffs[order[a]].rel > diffs[order[b]].rel })
	var ex []string
	for _, i := range order[:min(examples, len(order))] {
		d := diffs[i]
		ex = append(ex, fmt.Sprintf("%s = %s against %s", d.rep.NativeName, num(d.rep.Value.V), num(d.com.Value.V)))
	}
	more := ""
	if n := len(diffs) - len(ex); n > 0 {
		more = fmt.Sprintf(", and %d more", n)
	}
	sink.Warn(fmt.Sprintf("%s: %d reported statistics disagree with those recomputed from %s%s; largest relative difference %.2g; e.g. %s%s",
		c.Where, len(diffs), c.From, cause, largest, strings.Join(ex, "; "), more))
	return len(diffs)
}
