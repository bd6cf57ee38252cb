package render

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/verdict-llm/verdict/internal/samples"
	"github.com/verdict-llm/verdict/internal/spill"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// StatsOptions configure the statistics view. The zero value is not valid;
// start from DefaultStats.
type StatsOptions struct {
	// Metrics are definition IDs; empty means every metric with data.
	Metrics []schemas.MetricID
	// Percentiles are 0-100.
	Percentiles []float64
	// Method reads the percentiles.
	Method stats.Method
	// Confidence of the bootstrap intervals; 0 disables them.
	Confidence float64
	// Resamples and Seed configure the bootstrap.
	Resamples int
	Seed      uint64
	// SLO, when HasSLO, adds goodput.
	SLO    stats.SLO
	HasSLO bool
}

// DefaultStats is the default statistics view.
var DefaultStats = StatsOptions{
	Percentiles: []float64{50, 90, 99},
	Method:      stats.Linear,
	Confidence:  0.95,
	Resamples:   10000,
	Seed:        1,
}

// RunStats is the statistics view of one run.
type RunStats struct {
	Bundle  string        `json:"bundle"`
	Run     schemas.Run   `json:"run"`
	Metrics []MetricStats `json:"metrics"`
	// Reported holds the tool's own statistics when the run has no
	// per-request data, so nothing can be recomputed.
	Reported []schemas.Metric `json:"reported,omitempty"`
	Goodput  *stats.Goodput   `json:"goodput,omitempty"`
	Notes    []string         `json:"notes,omitempty"`
}

// MetricStats are the statistics of one metric of one run.
type MetricStats struct {
	Metric     schemas.MetricID `json:"metric"`
	Definition string           `json:"definition"`
	Unit       string           `json:"unit"`
	N          int              `json:"n"`
	Mean       Estimate         `json:"mean"`
	Std        float64          `json:"std"`
	Quantiles  []Estimate       `json:"percentiles"`
	Method     stats.Method     `json:"method"`
	Warnings   []string         `json:"warnings,omitempty"`
}

// Estimate is a statistic with its bootstrap interval (Lo and Hi are NaN
// when none was computed).
type Estimate struct {
	Percentile float64 `json:"percentile,omitempty"`
	Value      float64 `json:"value"`
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
	Confidence float64 `json:"confidence,omitempty"`
	Method     string  `json:"interval_method,omitempty"`
}

// MarshalJSON writes NaN bounds as null.
func (e Estimate) MarshalJSON() ([]byte, error) {
	f := func(v float64) string {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "null"
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	var b strings.Builder
	b.WriteString("{")
	if e.Percentile != 0 {
		b.WriteString(`"percentile":` + f(e.Percentile) + ",")
	}
	b.WriteString(`"value":` + f(e.Value) + `,"lo":` + f(e.Lo) + `,"hi":` + f(e.Hi))
	if e.Confidence != 0 {
		fmt.Fprintf(&b, `,"confidence":%s,"interval_method":%q`, f(e.Confidence), e.Method)
	}
	b.WriteString("}")
	return []byte(b.String()), nil
}

// ComputeStats computes the statistics view of every run in the bundles.
func ComputeStats(ctx context.Context, dirs []string, o StatsOptions) ([]RunStats, error) {
	var out []RunStats
	for _, dir := range dirs {
		b, err := schemas.OpenBundle(dir)
		if err != nil {
			return nil, err
		}
		// Without intervals nothing is resampled, so the observations are
		// held with bounded memory (spilled to disk past a million values).
		runs, err := samples.Load(ctx, b, samples.Options{Metrics: o.Metrics, Goodput: o.HasSLO, GoodputGaps: o.SLO.ITL > 0,
			Bounded: o.Confidence <= 0})
		if err != nil {
			return nil, err
		}
		var reported []schemas.Metric
		for _, r := range runs {
			if r.RequestRows == 0 && reported == nil {
				if reported, err = b.Metrics(ctx); err != nil {
					return nil, err
				}
			}
		}
		for _, r := range runs {
			rs := RunStats{Bundle: dir, Run: r.Run}
			if r.RequestRows == 0 {
				for _, m := range reported {
					if m.RunID == r.Run.ID && m.Source == schemas.SourceReported && (len(o.Metrics) == 0 || slices.Contains(o.Metrics, m.MetricID)) {
						rs.Reported = append(rs.Reported, m)
					}
				}
				rs.Notes = append(rs.Notes, "no per-request data: only the tool's own statistics are shown, and no interval can be computed")
				out = append(out, rs)
				continue
			}
			ids := o.Metrics
			if len(ids) == 0 {
				ids = samples.Metrics
			}
			for _, id := range ids {
				var m MetricStats
				if f := r.Series[id]; f != nil && f.Len() > 0 {
					m, err = boundedStats(id, f, o)
					if err != nil {
						r.Close()
						return nil, err
					}
				} else if xs := r.Values[id]; len(xs) > 0 {
					m = metricStats(id, xs, o)
				} else {
					continue
				}
				rs.Metrics = append(rs.Metrics, m)
			}
			r.Close()
			if o.HasSLO {
				if !r.Run.DurationS.OK {
					rs.Notes = append(rs.Notes, "goodput rate: the run's duration is unknown")
				}
				g := stats.ComputeGoodput(r.Requests, o.SLO, r.Run.DurationS.V)
				rs.Goodput = &g
			}
			out = append(out, rs)
		}
	}
	return out, nil
}

// boundedStats computes mean, standard deviation and exact percentiles of
// a series held with bounded memory, without intervals.
func boundedStats(id schemas.MetricID, f *spill.Floats, o StatsOptions) (MetricStats, error) {
	def, _ := schemas.Lookup(id)
	ms := MetricStats{Metric: id, Definition: def.Summary(), Unit: def.Unit, N: int(f.Len()), Method: o.Method,
		Std: f.StdDev(0), Mean: Estimate{Value: f.Mean(), Lo: math.NaN(), Hi: math.NaN()}}
	ps := make([]float64, len(o.Percentiles))
	for i, p := range o.Percentiles {
		ps[i] = p / 100
	}
	qs, err := f.Quantiles(ps, o.Method)
	if err != nil {
		return ms, err
	}
	for i, p := range o.Percentiles {
		ms.Quantiles = append(ms.Quantiles, Estimate{Percentile: p, Value: qs[i], Lo: math.NaN(), Hi: math.NaN()})
	}
	return ms, nil
}

// metricStats computes the statistics of an in-memory series with
// bootstrap intervals. xs is sorted in place (after the mean is taken in
// the original order, as numpy sums).
func metricStats(id schemas.MetricID, xs []float64, o StatsOptions) MetricStats {
	def, _ := schemas.Lookup(id)
	ms := MetricStats{Metric: id, Definition: def.Summary(), Unit: def.Unit, N: len(xs), Method: o.Method,
		Std: stats.StdDev(xs, 0)}
	mean := stats.Mean(xs)
	slices.Sort(xs)
	sorted := xs
	bo := stats.DefaultBootstrap
	bo.Confidence, bo.Resamples, bo.Seed = o.Confidence, o.Resamples, o.Seed
	est := func(s stats.Statistic, value float64, pct float64) Estimate {
		e := Estimate{Percentile: pct, Value: value, Lo: math.NaN(), Hi: math.NaN()}
		if o.Confidence <= 0 {
			return e
		}
		iv := stats.Bootstrap(sorted, s, bo)
		e.Lo, e.Hi, e.Confidence, e.Method = iv.Lo, iv.Hi, iv.Confidence, string(iv.Method)
		for _, w := range iv.Warnings {
			msg := w.Error()
			if !slices.Contains(ms.Warnings, msg) {
				ms.Warnings = append(ms.Warnings, msg)
			}
		}
		return e
	}
	if len(xs) > maxMeanBootstrap && o.Confidence > 0 {
		// Resampling a mean costs n random reads per replicate (minutes
		// at a million values) and adds nothing the central limit theorem
		// does not give at this size: use Student's t interval.
		ms.Mean = tInterval(xs, mean, o.Confidence)
	} else {
		ms.Mean = est(stats.MeanStatistic(), mean, 0)
	}
	for _, p := range o.Percentiles {
		ms.Quantiles = append(ms.Quantiles, est(stats.QuantileStatistic(p/100, o.Method), stats.Quantile(sorted, p/100, o.Method), p))
	}
	return ms
}

// maxMeanBootstrap is the largest sample whose mean is bootstrapped.
const maxMeanBootstrap = 10000

// tInterval is the Student's t interval of a mean.
func tInterval(xs []float64, mean, confidence float64) Estimate {
	n := float64(len(xs))
	sd := stats.StdDev(xs, 1)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.5 + confidence/2)
	h := t * sd / math.Sqrt(n)
	return Estimate{Value: mean, Lo: mean - h, Hi: mean + h, Confidence: confidence, Method: "t"}
}

// estimateText renders a value with its interval, all three in the
// value's display scale and the unit written once: "36.18 [34.9, 37.6] ms".
func estimateText(e Estimate, unit string) string {
	if math.IsNaN(e.Lo) || math.IsNaN(e.Hi) {
		return Quantity(e.Value, unit)
	}
	return QuantityRange(e.Value, e.Lo, e.Hi, unit)
}

// StatsTables renders the statistics view.
func StatsTables(rs []RunStats, o StatsOptions) []*Table {
	var out []*Table
	for _, r := range rs {
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
			row := []Cell{T(string(m.Metric)), N(strconv.Itoa(m.N), m.N), N(estimateText(m.Mean, m.Unit), m.Mean.Value)}
			for _, q := range m.Quantiles {
				row = append(row, N(estimateText(q, m.Unit), q.Value))
			}
			t.AddRow(row...)
			for _, w := range m.Warnings {
				t.Notes = append(t.Notes, "warning: "+string(m.Metric)+": "+w)
			}
		}
		if o.Confidence > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("[lo, hi]: %g%% bootstrap intervals (BCa, %d resamples, seed %d; means of more than %d values: Student's t); percentiles read with the %s method; over successful requests of the profiling phase",
				100*o.Confidence, o.Resamples, o.Seed, maxMeanBootstrap, o.Method))
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

// Stats writes the statistics view of the bundles.
func Stats(ctx context.Context, w io.Writer, dirs []string, o StatsOptions, f Format) error {
	rs, err := ComputeStats(ctx, dirs, o)
	if err != nil {
		return err
	}
	if f == JSON {
		return WriteJSON(w, struct {
			Options StatsOptionsJSON `json:"options"`
			Runs    []RunStats       `json:"runs"`
		}{o.json(), rs})
	}
	return Write(w, f, StatsTables(rs, o))
}

// StatsOptionsJSON is how the options are recorded in JSON output.
type StatsOptionsJSON struct {
	Percentiles []float64    `json:"percentiles"`
	Method      stats.Method `json:"method"`
	Confidence  float64      `json:"confidence"`
	Resamples   int          `json:"resamples"`
	Seed        uint64       `json:"seed"`
	SLO         *SLOJSON     `json:"slo,omitempty"`
}

// SLOJSON records an SLO in seconds.
type SLOJSON struct {
	TTFT float64 `json:"ttft_s,omitempty"`
	TPOT float64 `json:"tpot_s,omitempty"`
	ITL  float64 `json:"itl_s,omitempty"`
	E2E  float64 `json:"e2e_s,omitempty"`
}

func (o StatsOptions) json() StatsOptionsJSON {
	j := StatsOptionsJSON{Percentiles: o.Percentiles, Method: o.Method, Confidence: o.Confidence, Resamples: o.Resamples, Seed: o.Seed}
	if o.HasSLO {
		j.SLO = &SLOJSON{o.SLO.TTFT, o.SLO.TPOT, o.SLO.ITL, o.SLO.E2E}
	}
	return j
}

// ParseSLO reads "ttft=200ms,tpot=50ms,itl=100ms,e2e=10s".
func ParseSLO(s string) (stats.SLO, error) {
	var slo stats.SLO
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return slo, fmt.Errorf("SLO %q: want name=duration, e.g. ttft=200ms", part)
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return slo, fmt.Errorf("SLO %s: %q is not a positive duration like 200ms", k, v)
		}
		sec := d.Seconds()
		switch strings.ToLower(k) {
		case "ttft":
			slo.TTFT = sec
		case "tpot":
			slo.TPOT = sec
		case "itl":
			slo.ITL = sec
		case "e2e", "e2el":
			slo.E2E = sec
		default:
			return slo, fmt.Errorf("SLO %q: unknown limit (use ttft, tpot, itl, e2e)", k)
		}
	}
	return slo, nil
}
