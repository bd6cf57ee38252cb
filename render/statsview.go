package render

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// EstimateText renders a value with its interval, all three in the
// value's display scale and the unit written once: "36.18 [34.9, 37.6] ms".
func EstimateText(e analysis.Estimate, unit string) string {
	if !e.HasInterval() {
		return Quantity(e.Value, unit)
	}
	return QuantityRange(e.Value, e.Lo, e.Hi, unit)
}

// intervalNote says how the intervals of a view were computed.
func intervalNote(o analysis.EstimateOptions) string {
	if o.Interval != "" && o.Interval != stats.SchemeIID {
		return fmt.Sprintf("[lo, hi]: %g%% intervals (--interval %s): %s, %d resamples, seed %d; percentiles read with the %s method; over successful requests of the profiling phase",
			100*o.Confidence, o.Interval, o.Interval.Text(), o.Resamples, o.Seed, o.Method)
	}
	return fmt.Sprintf("[lo, hi]: %g%% intervals: bootstrap (BCa, %d resamples, seed %d), Student's t for means of more than %d values; percentiles read with the %s method; over successful requests of the profiling phase",
		100*o.Confidence, o.Resamples, o.Seed, stats.MaxMeanBootstrap, o.Method)
}

// StatsTables renders the statistics view.
func StatsTables(res *analysis.StatsResult) []*Table {
	o := res.Options
	var out []*Table
	for _, r := range res.Runs {
		title := "Statistics of " + r.Run.ID
		if p := r.Run.Labels["platform"]; p != "" {
			title += " (platform " + p + ")"
		}
		if len(r.Reported) > 0 {
			t := MetricsTable(title+": reported by the tool", r.Reported)
			t.Notes = r.Notes
			out = append(out, t)
			continue
		}
		cols := []string{"metric", "n", "mean"}
		for _, p := range o.Percentiles {
			cols = append(cols, "p"+strconv.FormatFloat(p, 'g', -1, 64))
		}
		t := &Table{Title: title, Columns: cols}
		for _, m := range r.Metrics {
			row := []Cell{T(string(m.Metric)), N(strconv.Itoa(m.N), m.N), EstimateCell(m.Mean, m.Unit)}
			for _, q := range m.Quantiles {
				row = append(row, EstimateCell(q, m.Unit))
			}
			t.AddRow(row...)
			for _, w := range m.Warnings {
				t.Notes = append(t.Notes, "warning: "+string(m.Metric)+": "+w)
			}
		}
		// A metric asked for that the run has no per-request series of is
		// a row that says so, not a missing or empty one.
		for _, id := range o.Metrics {
			if !slices.ContainsFunc(r.Metrics, func(m analysis.MetricStats) bool { return m.Metric == id }) {
				row := []Cell{T(string(id)), N("0", 0)}
				for range len(cols) - 2 {
					row = append(row, T("no per-request series"))
				}
				t.AddRow(row...)
				t.Notes = append(t.Notes, string(id)+": the run has no per-request series of it; the tool's own figures, if it reported any, are in `verdict show`")
			}
		}
		if len(r.Metrics) == 0 && len(o.Metrics) == 0 {
			t.Notes = append(t.Notes, "the run has no per-request series of any metric")
		}
		if o.Confidence > 0 && len(r.Metrics) > 0 {
			t.Notes = append(t.Notes, intervalNote(o.EstimateOptions))
		}
		if g := r.Goodput; g != nil {
			t.Notes = append(t.Notes, fmt.Sprintf("goodput: %d of %d requests (%d successful) met the SLO: share %s, rate %s",
				g.Good, g.Total, g.Successful, Quantity(g.Share, schemas.UnitRatio), Quantity(g.Rate, schemas.UnitRequestsPerSecond)))
			for _, w := range g.Warnings {
				t.Notes = append(t.Notes, "warning: goodput: "+w.Error())
			}
		}
		t.Notes = append(t.Notes, r.Notes...)
		out = append(out, t)
	}
	return out
}

// WriteStats writes the statistics view in format f; JSON is the
// verdict.stats/v1 document (docs/json/stats.md).
func WriteStats(w io.Writer, res *analysis.StatsResult, f Format) error {
	if f == JSON {
		return WriteJSON(w, statsJSON(res))
	}
	return Write(w, f, StatsTables(res))
}

// JSON documents. Every command's JSON follows one style: a "schema" key
// naming the document and its version, snake_case keys, numbers as numbers
// (null when unknown or not finite), intervals as lo and hi.

type statsDoc struct {
	Schema  string          `json:"schema"`
	Options statsOptionsDoc `json:"options"`
	Runs    []runStatsDoc   `json:"runs"`
}

type statsOptionsDoc struct {
	Percentiles []float64    `json:"percentiles"`
	Method      stats.Method `json:"method"`
	Confidence  float64      `json:"confidence"`
	Resamples   int          `json:"resamples"`
	Seed        uint64       `json:"seed"`
	Interval    stats.Scheme `json:"interval,omitempty"` // --interval, when not iid
	SLO         *sloDoc      `json:"slo,omitempty"`
}

type sloDoc struct {
	TTFT *float64 `json:"ttft_s,omitempty"`
	TPOT *float64 `json:"tpot_s,omitempty"`
	ITL  *float64 `json:"itl_s,omitempty"`
	E2E  *float64 `json:"e2e_s,omitempty"`
}

type runStatsDoc struct {
	Bundle   string           `json:"bundle"`
	Run      schemas.Run      `json:"run"`
	Metrics  []metricStatsDoc `json:"metrics"`
	Reported []schemas.Metric `json:"reported"`
	Goodput  *goodputDoc      `json:"goodput"`
	Notes    []string         `json:"notes"`
}

type metricStatsDoc struct {
	Metric      schemas.MetricID    `json:"metric"`
	Definition  string              `json:"definition"`
	Unit        string              `json:"unit"`
	N           int                 `json:"n"`
	Mean        analysis.Estimate   `json:"mean"`
	Std         jsonFloat           `json:"std"`
	Percentiles []analysis.Estimate `json:"percentiles"`
	Method      stats.Method        `json:"method"`
	Warnings    []string            `json:"warnings"`
}

type goodputDoc struct {
	Good       int       `json:"good"`
	Successful int       `json:"successful"`
	Total      int       `json:"total"`
	Unmeasured int       `json:"unmeasured"`
	Share      jsonFloat `json:"share"`
	Rate       jsonFloat `json:"rate"`
	Warnings   []string  `json:"warnings"`
}

// jsonFloat is a number that is written as null when not finite.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(v, 'g', -1, 64)), nil
}

func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

func errTexts(es []error) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Error()
	}
	return out
}

func optionsDoc(o analysis.StatsOptions) statsOptionsDoc {
	d := statsOptionsDoc{Percentiles: nonNil(o.Percentiles), Method: o.Method, Confidence: o.Confidence, Resamples: o.Resamples, Seed: o.Seed}
	if o.Interval != stats.SchemeIID {
		d.Interval = o.Interval
	}
	if o.HasSLO {
		lim := func(v float64) *float64 {
			if v <= 0 {
				return nil
			}
			return &v
		}
		d.SLO = &sloDoc{TTFT: lim(o.SLO.TTFT), TPOT: lim(o.SLO.TPOT), ITL: lim(o.SLO.ITL), E2E: lim(o.SLO.E2E)}
	}
	return d
}

func metricDocs(ms []analysis.MetricStats) []metricStatsDoc {
	out := make([]metricStatsDoc, len(ms))
	for i, m := range ms {
		out[i] = metricStatsDoc{Metric: m.Metric, Definition: m.Definition, Unit: m.Unit, N: m.N, Mean: m.Mean, Std: jsonFloat(m.Std),
			Percentiles: nonNil(m.Quantiles), Method: m.Method, Warnings: nonNil(m.Warnings)}
	}
	return out
}

func statsJSON(res *analysis.StatsResult) statsDoc {
	d := statsDoc{Schema: analysis.StatsSchema, Options: optionsDoc(res.Options), Runs: []runStatsDoc{}}
	for _, r := range res.Runs {
		rd := runStatsDoc{Bundle: r.Bundle, Run: r.Run, Metrics: metricDocs(r.Metrics), Reported: nonNil(r.Reported), Notes: nonNil(r.Notes)}
		if g := r.Goodput; g != nil {
			rd.Goodput = &goodputDoc{Good: g.Good, Successful: g.Successful, Total: g.Total, Unmeasured: g.Unmeasured,
				Share: jsonFloat(g.Share), Rate: jsonFloat(g.Rate), Warnings: nonNil(errTexts(g.Warnings))}
		}
		d.Runs = append(d.Runs, rd)
	}
	return d
}
