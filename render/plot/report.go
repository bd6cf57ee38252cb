package plot

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/costing"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
	"github.com/verdict-llm/verdict/validate"
)

// metricText names the report's per-request metrics in figures.
var metricText = map[schemas.MetricID]struct{ short, population string }{
	schemas.TTFT:     {"TTFT", "successful requests"},
	schemas.TPOT:     {"TPOT", "successful requests with more than one output token"},
	schemas.ITLChunk: {"ITL (per chunk)", "gaps between streamed chunks, pooled over successful requests"},
	schemas.E2E:      {"E2E latency", "successful requests"},
}

// figureStem names the figures of a metric.
var figureStem = map[schemas.MetricID]string{schemas.TTFT: "ttft", schemas.TPOT: "tpot", schemas.ITLChunk: "itl", schemas.E2E: "e2e"}

// Report draws the report's figures, in a fixed order: an ECDF and a
// histogram per latency metric, latency against throughput, GPU telemetry
// per run that has samples, and cost per 1M output tokens per currency.
// A figure without data is left out and listed in skipped with the reason.
func Report(rep *analysis.Report, o Options) (figs []Figure, skipped []string, err error) {
	add := figureAdder(o, &figs)
	for _, id := range analysis.SeriesMetrics {
		mt := metricText[id]
		unit := schemas.MustLookup(id).Unit
		var series []Series
		typical := 0.0
		for _, r := range rep.Runs {
			if xs := r.Series[id]; len(xs) > 0 {
				series = append(series, Series{Name: r.Name, Values: xs, N: r.SeriesN[id]})
				typical = math.Max(typical, xs[len(xs)/2])
			}
		}
		if len(series) == 0 {
			skipped = append(skipped, mt.short+": no per-request data in any run")
			continue
		}
		scale, ulabel := Scale(unit, typical)
		xlabel := fmt.Sprintf("%s (%s)", mt.short, ulabel)
		ylabel := "fraction of " + populationWord(id)
		p, dropped, err := ECDF(mt.short+": cumulative distribution per run", xlabel, ylabel, series, scale, o.MaxPoints)
		if err != nil {
			return nil, nil, err
		}
		caption := fmt.Sprintf("Empirical CDF of %s over %s; one line per run, shared axes. A line further left is faster.", mt.short, mt.population)
		if dropped > 0 {
			caption += fmt.Sprintf(" %d non-finite values were left out.", dropped)
		}
		if err := add("ecdf-"+figureStem[id], mt.short+" ECDF", caption, figureWidth, figureHeight, [][]*plot.Plot{{p}}); err != nil {
			return nil, nil, err
		}
		h, _, err := Histogram(mt.short+": histogram per run", xlabel, "share of "+populationWord(id)+" per bin", series, scale, o.Bins)
		if err != nil {
			return nil, nil, err
		}
		caption = fmt.Sprintf("Histogram of %s over %s: the share of each run's values in each of the bins shared by all runs.", mt.short, mt.population)
		if err := add("hist-"+figureStem[id], mt.short+" histogram", caption, figureWidth, figureHeight, [][]*plot.Plot{{h}}); err != nil {
			return nil, nil, err
		}
	}
	if err := sweepFigure(rep, add, &skipped); err != nil {
		return nil, nil, err
	}
	for k, r := range rep.Runs {
		if len(r.Samples) == 0 {
			continue
		}
		rows, err := gpuPlots(r)
		if errors.Is(err, errNoData) {
			skipped = append(skipped, "GPU telemetry of "+r.Name+": no usable samples")
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		caption := "GPU utilization (0-100 %), memory used and board power per device over time"
		if r.Run.WindowStart.OK && r.Run.WindowEnd.OK {
			caption += "; the shaded band on each panel is the run's window"
			if w := outsideWindow(r); w.before+w.after > 0 {
				caption += ". " + strings.ToUpper(w.String()[:1]) + w.String()[1:] + ": they are drawn but are not the run's load"
			}
		} else {
			caption += "; the run's window is unknown, so none is shaded"
		}
		name := fmt.Sprintf("gpu-%d-%s", k+1, FileStem(r.Name))
		if err := add(name, "GPU telemetry of "+r.Name, caption+".", 10*vg.Inch, 11*vg.Inch, rows); err != nil {
			return nil, nil, err
		}
	}
	if !slices.ContainsFunc(rep.Runs, func(r *analysis.ReportRun) bool { return len(r.Samples) > 0 }) {
		skipped = append(skipped, "GPU telemetry: no run has GPU samples")
	}
	if err := costFigures(rep, add, &skipped); err != nil {
		return nil, nil, err
	}
	return figs, skipped, nil
}

func populationWord(id schemas.MetricID) string {
	if id == schemas.ITLChunk {
		return "chunk gaps"
	}
	return "requests"
}

// Figure sizes: large enough for 5-8 labelled ticks per axis and a legend
// beside the data area.
const (
	figureWidth, figureHeight = 9 * vg.Inch, 5.5 * vg.Inch
	// panelWidth is the width of one panel of a row of panels.
	panelWidth = 7 * vg.Inch
)

type adder func(name, title, caption string, w, h vg.Length, rows [][]*plot.Plot) error

// sweepFigure draws TTFT and TPOT percentiles against output token
// throughput, one curve per platform through its load points.
func sweepFigure(rep *analysis.Report, add adder, skipped *[]string) error {
	var panels []*plot.Plot
	repeated := false
	for _, metric := range []schemas.MetricID{schemas.TTFT, schemas.TPOT} {
		unit := schemas.MustLookup(metric).Unit
		typical := 0.0
		for _, r := range rep.Runs {
			if h, ok := r.Headline(string(metric) + "_p99"); ok && h.Known {
				typical = math.Max(typical, h.Est.Value)
			}
		}
		scale, ulabel := Scale(unit, typical)
		lines := sweepLines(rep, metric, scale)
		for _, ln := range lines {
			repeated = repeated || slices.ContainsFunc(ln.Points, func(p SweepPoint) bool { return len(p.Repeats) > 0 })
		}
		p, err := Sweep(metricText[metric].short+" vs output token throughput", "output token throughput (tokens/s)",
			fmt.Sprintf("%s (%s)", metricText[metric].short, ulabel), lines)
		if errors.Is(err, errNoData) {
			*skipped = append(*skipped, "latency vs throughput: no run has both "+string(metric)+" percentiles and output token throughput")
			return nil
		}
		if err != nil {
			return err
		}
		panels = append(panels, p)
	}
	caption := "p99 (solid) and p50 (dashed) of TTFT and TPOT against output token throughput over the run's window, one curve per platform through its load points in load order, with interval bars on both axes."
	if repeated {
		caption += " A load point run more than once is drawn at the median of its runs (no interval bars there), each run a cross around it."
	}
	return add("latency-vs-throughput", "Latency vs throughput", caption, vg.Length(len(panels))*panelWidth, figureHeight, [][]*plot.Plot{panels})
}

// A loadPoint is the runs of one platform at one load (validate.LoadKey):
// more than one are repeats.
type loadPoint struct {
	load float64 // the offered rate, else the concurrency limit; NaN: none
	runs []*analysis.ReportRun
}

// runLoad is the number a run's load point is ordered by: its finite
// offered rate, else its concurrency limit, else NaN.
func runLoad(r schemas.Run) float64 {
	if v := r.RequestRate; v.OK && v.V > 0 && !math.IsInf(v.V, 0) {
		return v.V
	}
	if r.MaxConcurrency.OK && r.MaxConcurrency.V > 0 {
		return float64(r.MaxConcurrency.V)
	}
	return math.NaN()
}

// sweepLines are the p99 and p50 lines of metric (scaled by scale) per
// platform, in the report's platform order: one point per load point, at
// the median over its runs, ordered by load (by median throughput when a
// load point has no load). Repeats never make the curve zig-zag.
func sweepLines(rep *analysis.Report, metric schemas.MetricID, scale float64) []SweepLine {
	var platforms []string
	points := map[string][]*loadPoint{}
	byKey := map[string]*loadPoint{}
	for _, r := range rep.Runs {
		if _, ok := points[r.Platform]; !ok {
			platforms = append(platforms, r.Platform)
			points[r.Platform] = nil
		}
		key := r.Platform + "\x00" + validate.LoadKey(r.Run)
		lp := byKey[key]
		if lp == nil {
			lp = &loadPoint{load: runLoad(r.Run)}
			byKey[key] = lp
			points[r.Platform] = append(points[r.Platform], lp)
		}
		lp.runs = append(lp.runs, r)
	}
	var lines []SweepLine
	for i, pl := range platforms {
		for _, pct := range []string{"p99", "p50"} {
			ln := SweepLine{Name: pl + " " + pct, Dashed: pct == "p50", Color: i}
			var order []float64 // the sort key of each point
			for _, lp := range points[pl] {
				var xs, ys []float64
				var pt SweepPoint
				for _, r := range lp.runs {
					x, okx := r.Headline("output_token_throughput")
					y, oky := r.Headline(string(metric) + "_" + pct)
					if !okx || !oky || !x.Known || !y.Known || !isFinite(x.Est.Value) || !isFinite(y.Est.Value) {
						continue
					}
					xs, ys = append(xs, x.Est.Value), append(ys, y.Est.Value*scale)
					pt = SweepPoint{X: x.Est.Value, XLo: x.Est.Lo, XHi: x.Est.Hi, Y: y.Est.Value * scale, YLo: y.Est.Lo * scale, YHi: y.Est.Hi * scale}
				}
				if len(xs) == 0 {
					continue
				}
				if len(xs) > 1 {
					pt = SweepPoint{XLo: math.NaN(), XHi: math.NaN(), YLo: math.NaN(), YHi: math.NaN()}
					for k := range xs {
						pt.Repeats = append(pt.Repeats, plotter.XY{X: xs[k], Y: ys[k]})
					}
					slices.Sort(xs)
					slices.Sort(ys)
					pt.X, pt.Y = stats.Median(xs), stats.Median(ys)
				}
				ln.Points = append(ln.Points, pt)
				order = append(order, lp.load)
			}
			byLoad := !slices.ContainsFunc(order, math.IsNaN)
			idx := make([]int, len(ln.Points))
			for k := range idx {
				idx[k] = k
			}
			sort.SliceStable(idx, func(a, b int) bool {
				if byLoad {
					return order[idx[a]] < order[idx[b]]
				}
				return ln.Points[idx[a]].X < ln.Points[idx[b]].X
			})
			sorted := make([]SweepPoint, len(idx))
			for k, j := range idx {
				sorted[k] = ln.Points[j]
			}
			ln.Points = sorted
			lines = append(lines, ln)
		}
	}
	return lines
}

// outside counts a run's samples outside its window.
type outside struct{ before, after, total int }

func (o outside) String() string {
	return fmt.Sprintf("%d of %d samples outside the run window (%d before, %d after)", o.before+o.after, o.total, o.before, o.after)
}

// outsideWindow counts the samples before the run's window starts and
// after it ends; none when the window is unknown.
func outsideWindow(r *analysis.ReportRun) outside {
	o := outside{total: len(r.Samples)}
	if !r.Run.WindowStart.OK || !r.Run.WindowEnd.OK {
		return o
	}
	for _, s := range r.Samples {
		switch {
		case s.Time.Before(r.Run.WindowStart.V):
			o.before++
		case s.Time.After(r.Run.WindowEnd.V):
			o.after++
		}
	}
	return o
}

// gpuPlots draws a run's samples: utilization, memory and power, each
// panel with the run window shaded and, when samples lie outside it, a
// note saying how many.
func gpuPlots(r *analysis.ReportRun) ([][]*plot.Plot, error) {
	smp := slices.Clone(r.Samples)
	slices.SortStableFunc(smp, func(a, b schemas.Sample) int { return a.Time.Compare(b.Time) })
	origin := smp[0].Time
	wStart, wEnd := 0.0, 0.0
	if r.Run.WindowStart.OK && r.Run.WindowEnd.OK {
		origin = r.Run.WindowStart.V
		if smp[0].Time.Before(origin) {
			origin = smp[0].Time
		}
		wStart = r.Run.WindowStart.V.Sub(origin).Seconds()
		wEnd = r.Run.WindowEnd.V.Sub(origin).Seconds()
	}
	var note string // the legend entry under "run window"
	if w := outsideWindow(r); w.before+w.after > 0 {
		note = fmt.Sprintf("%d of %d samples outside it", w.before+w.after, w.total)
	}
	var devices []string
	tracks := map[string]*[3]Track{}
	for _, s := range smp {
		key := s.Device
		if s.Host != "" {
			key = s.Host + ":" + s.Device
		}
		name := "GPU " + key
		if s.DeviceName != "" {
			name += " (" + s.DeviceName + ")"
		}
		tr := tracks[key]
		if tr == nil {
			tr = &[3]Track{{Name: name}, {Name: name}, {Name: name}}
			tracks[key] = tr
			devices = append(devices, key)
		}
		t := s.Time.Sub(origin).Seconds()
		if s.UtilPct.OK {
			tr[0].T, tr[0].V = append(tr[0].T, t), append(tr[0].V, s.UtilPct.V)
		}
		if s.MemUsedBytes.OK {
			tr[1].T, tr[1].V = append(tr[1].T, t), append(tr[1].V, float64(s.MemUsedBytes.V)/(1<<30))
		}
		if s.PowerW.OK {
			tr[2].T, tr[2].V = append(tr[2].T, t), append(tr[2].V, s.PowerW.V)
		}
	}
	titles := []struct {
		title, ylabel string
		max           float64
	}{
		{"GPU utilization (share of time a kernel ran)", "utilization (%)", 100},
		{"GPU memory used", "memory used (GiB)", math.NaN()},
		{"GPU board power", "power (W)", math.NaN()},
	}
	var rows [][]*plot.Plot
	for k, tt := range titles {
		var ts []Track
		for _, d := range devices {
			ts = append(ts, tracks[d][k])
		}
		p, err := Timeline(tt.title+" of "+r.Name, tt.ylabel, ts, wStart, wEnd, tt.max)
		if errors.Is(err, errNoData) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if note != "" {
			p.Legend.Add(note)
		}
		rows = append(rows, []*plot.Plot{p})
	}
	if len(rows) == 0 {
		return nil, errNoData
	}
	return rows, nil
}

// costFigures draws cost per 1M output tokens per run, one figure per
// currency.
func costFigures(rep *analysis.Report, add adder, skipped *[]string) error {
	if rep.Costs == nil {
		*skipped = append(*skipped, "cost per 1M output tokens: no --billing or --quote given")
		return nil
	}
	var currencies []string
	bars := map[string][]Bar{}
	sources := map[string]map[string]bool{}
	for _, r := range rep.Runs {
		if r.Cost == nil {
			continue
		}
		u, ok := r.Cost.Unit(costing.CostPer1MOutputTokens)
		if !ok || !isFinite(u.Value) {
			continue
		}
		if _, ok := bars[u.Currency]; !ok {
			currencies = append(currencies, u.Currency)
			sources[u.Currency] = map[string]bool{}
		}
		label := r.Name
		if !r.Complete() {
			label += " (incomplete)"
		}
		bars[u.Currency] = append(bars[u.Currency], Bar{Label: label, Value: u.Value, Lo: u.Lo, Hi: u.Hi})
		sources[u.Currency][r.Cost.UnitsSource] = true
	}
	if len(currencies) == 0 {
		*skipped = append(*skipped, "cost per 1M output tokens: no run could be costed")
		return nil
	}
	for _, cur := range currencies {
		p, err := Bars("Cost per 1M output tokens", "cost per 1M output tokens ("+cur+")", bars[cur])
		if err != nil {
			return err
		}
		src := strings.Join(slices.Sorted(func(yield func(string) bool) {
			for s := range sources[cur] {
				if !yield(s) {
					return
				}
			}
		}), " and ")
		name := "cost-per-1m-output-tokens"
		if len(currencies) > 1 {
			name += "-" + strings.ToLower(FileStem(cur))
		}
		caption := fmt.Sprintf("Total cost (from the %s) × 1,000,000 / output tokens of successful requests, per run, in %s. Bars show the throughput's interval carried through the cost rate; runs are in input order, not ranked.", src, cur)
		if err := add(name, "Cost per 1M output tokens ("+cur+")", caption, figureWidth, figureHeight, [][]*plot.Plot{{p}}); err != nil {
			return err
		}
	}
	return nil
}
