package genaibench

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest/internal/rows"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// recompute computes the statistics of the kept requests as genai-bench
// does (min, max, mean, population std, sum, linear percentiles), writes
// those of stored definitions as computed rows, and warns about every
// reported statistic they do not reproduce.
func (r *result) recompute() error {
	if r.n == 0 {
		return nil
	}
	got := map[string]float64{}
	for _, f := range fields {
		xs := r.values[f.key]
		if len(xs) == 0 {
			continue
		}
		sorted := slices.Sorted(slices.Values(xs))
		sum := 0.0
		for _, x := range xs {
			sum += x
		}
		vals := []struct {
			stat string
			pct  float64
			v    float64
		}{{"min", 0, sorted[0]}, {"max", 0, sorted[len(sorted)-1]}, {"mean", 0, stats.Mean(xs)},
			{"stddev", 0, stats.StdDev(xs, 0)}, {"sum", 0, sum}}
		for _, p := range percentiles {
			vals = append(vals, struct {
				stat string
				pct  float64
				v    float64
			}{"p" + strconv.FormatFloat(p, 'g', -1, 64), p, stats.Quantile(sorted, p/100, stats.Linear)})
		}
		for _, v := range vals {
			got[f.key+"."+v.stat] = v.v
			if f.id == "" {
				continue
			}
			stat, pct, _ := rows.StatKey(v.stat)
			row := rows.Row{ID: f.id, Stat: stat, Value: schemas.Some(v.v), Source: schemas.SourceComputed, N: schemas.Some(int64(len(xs)))}
			switch stat {
			case schemas.StatP:
				row.Percentile, row.Method = schemas.Some(pct), string(stats.Linear)
			case schemas.StatStd:
				row.Method = "population"
			case schemas.StatMean:
				row.Method = "arithmetic"
			}
			if err := r.m.Add(row); err != nil {
				return err
			}
		}
	}
	if d := r.run.DurationS; d.OK {
		got["mean_input_throughput_tokens_per_s"] = got["num_input_tokens.sum"] / d.V
		got["mean_output_throughput_tokens_per_s"] = got["num_output_tokens.sum"] / d.V
		got["mean_total_tokens_throughput_tokens_per_s"] = got["total_tokens.sum"] / d.V
		got["requests_per_second"] = float64(r.okCount) / d.V
	}
	r.compare(got)
	return nil
}

func (r *result) compare(got map[string]float64) {
	var bad []string
	for k, want := range r.reported {
		v, ok := got[k]
		if !ok {
			continue
		}
		if math.Abs(v-want) > 1e-9*math.Max(1, math.Abs(want)) {
			bad = append(bad, fmt.Sprintf("%s %v (recomputed %v)", k, want, v))
		}
	}
	slices.Sort(bad)
	if len(bad) > 0 {
		r.sink.Warn(fmt.Sprintf("%s: %d statistics differ from the per-request data (warm-up or cool-down ratios other than the command line's would explain it): %s",
			r.in.Path, len(bad), strings.Join(bad, "; ")))
	}
}

// emit reports what was skipped and the run.
func (r *result) emit() error {
	if len(r.skipped) > 0 {
		r.sink.Warn(fmt.Sprintf("%s: not ingested: %s", r.in.Path, strings.Join(r.skipped, "; ")))
	}
	if len(r.run.Labels) == 0 {
		r.run.Labels = nil
	}
	return r.sink.Run(&r.run)
}
