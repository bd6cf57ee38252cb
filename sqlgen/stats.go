package sqlgen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// rankMethods give, per percentile method that reads one or two order
// statistics, the 0-based rank it reads for a series of n values at
// probability p (as SQL over the columns n and p), and whether the linear
// interpolation to the next rank follows. They are stats.Quantile's,
// computed in the same float64 operations. nearest_rank_cumulative has
// no rank formula (see cumulativeView).
var rankMethods = map[stats.Method]struct {
	rank   string
	interp bool
}{
	// h = p(n-1); x[floor(h)] interpolated to x[floor(h)+1].
	stats.Linear: {"CAST(floor(p * CAST(n - 1 AS DOUBLE)) AS BIGINT)", true},
	// LoadGen's x[int(n p)], clamped to n-1.
	stats.NearestRankFloor:              {"least(CAST(floor(CAST(n AS DOUBLE) * p) AS BIGINT), n - 1)", false},
	stats.NearestRankCumulative:         {},
	stats.NearestRankCumulativeUnmerged: {},
}

// methodNotes explain in the script how its percentiles relate to the
// engines' own functions.
var methodNotes = map[stats.Method][]string{
	stats.Linear: {
		"",
		"Percentiles: linear (Hyndman-Fan type 7, numpy's default), read from each series sorted into an",
		"array: h = p(n-1), x[floor(h)] + (h - floor(h))(x[floor(h)+1] - x[floor(h)]), interpolated the way",
		"numpy does (downwards from the upper value when the fraction is 0.5 or more) so that every value",
		"equals verdict's to the bit. DuckDB's quantile_cont and Spark's percentile compute the same",
		"definition but interpolate as lo*(1-t) + hi*t, which differs in the last bit for about a third",
		"of percentiles; Trino has no exact percentile function (approx_percentile is a sketch).",
	},
	stats.NearestRankFloor: {
		"",
		"Percentiles: nearest rank as MLPerf LoadGen reads it, x[floor(n p)] (0-based, clamped to n-1). The",
		"engines' quantile_disc and percentile_disc take x[ceil(n p) - 1], a different element whenever",
		"n p is a whole number, so the rank is computed here instead.",
	},
	stats.NearestRankCumulative: {
		"",
		"Percentiles: GuideLLM's, the first value whose cumulative probability reaches p, where the",
		"probabilities count/n of the distinct values are added one at a time in float64 (numpy.cumsum),",
		"folded here over each series' distinct values in ascending order. This is the inverse empirical",
		"CDF (Hyndman-Fan type 1) that DuckDB's quantile_disc and Spark's percentile_disc compute, except",
		"where n p is a whole number: there the float64 sum can fall just below p and GuideLLM takes the",
		"next value (ten values 10..100: its p90 is 100, quantile_disc's 90), so the fold is used instead.",
	},
	stats.NearestRankCumulativeUnmerged: {
		"",
		"Percentiles: GuideLLM v0.2-v0.3's, the first value at which the float64 running sum of 1/n, added",
		"once per value in ascending order with ties kept apart (numpy.cumsum), reaches p; folded here over",
		"each sorted series. It is x[ceil(n p) - 1] (DuckDB's quantile_disc, Spark's percentile_disc) except",
		"where n p is a whole number and the sum falls just below p: then it is the next value.",
	},
}

// stat writes one run-level statistic's view.
func (g *script) stat(name, desc, stat, aggregate string) {
	d := g.d
	g.comment(desc)
	g.printf("%s\nSELECT run_id, metric_id, %s AS stat, CAST(NULL AS DOUBLE) AS percentile, %s AS value\nFROM %s\nGROUP BY run_id, metric_id;\n\n",
		d.createView(g.o, name), d.literal(stat), aggregate, d.view(g.o, "verdict_observations"))
}

// statViews writes the count, mean, standard deviation and percentile
// views.
func (g *script) statViews() {
	d := g.d
	g.stat("verdict_stat_count", "Observations per run and metric (verdict stats' n).", schemas.StatCount, "CAST(count(*) AS DOUBLE)")
	g.stat("verdict_stat_mean", "Means.", schemas.StatMean, d.mean("value"))
	g.comment("Population standard deviations (ddof 0, numpy's default), in two passes as verdict computes",
		"them: the mean of the squared deviations from the mean, whose rounding error does not grow with",
		"the mean's size as stddev_pop's one-pass update can.")
	g.printf("%s\nSELECT o.run_id, o.metric_id, %s AS stat, CAST(NULL AS DOUBLE) AS percentile, sqrt(%s) AS value\nFROM %s o\nJOIN %s m ON m.run_id = o.run_id AND m.metric_id = o.metric_id\nGROUP BY o.run_id, o.metric_id;\n\n",
		d.createView(g.o, "verdict_stat_std"), d.literal(schemas.StatStd), d.mean("(o.value - m.value) * (o.value - m.value)"),
		d.view(g.o, "verdict_observations"), d.view(g.o, "verdict_stat_mean"))

	g.percentileView()
}

// percentileView writes verdict_stat_percentile: each run's series of
// each metric as one sorted array, crossed with the percentiles.
func (g *script) percentileView() {
	d := g.d
	pcts := make([]string, len(g.o.Percentiles))
	for i, p := range g.o.Percentiles {
		pcts[i] = "(" + number(p) + ", " + number(p/100) + ")"
	}
	values := "(VALUES " + strings.Join(pcts, ", ") + ") AS c(percentile, p)"
	if d == Spark {
		values = "VALUES " + strings.Join(pcts, ", ") + " AS c(percentile, p)"
	}
	g.comment(fmt.Sprintf("Percentiles, method %s (see the note at the top).", g.o.Method))
	g.printf("%s\n", d.createView(g.o, "verdict_stat_percentile"))
	if g.o.Method == stats.NearestRankCumulative || g.o.Method == stats.NearestRankCumulativeUnmerged {
		g.cumulativeView(values, g.o.Method == stats.NearestRankCumulative)
		return
	}
	m := rankMethods[g.o.Method]
	value := d.element("x", "i + 1")
	if m.interp {
		value = "CASE WHEN t >= 0.5 THEN b - (b - a) * (1 - t) ELSE a + t * (b - a) END"
	}
	g.printf("SELECT run_id, metric_id, %s AS stat, percentile, %s AS value\n", d.literal(schemas.StatP), value)
	if m.interp {
		g.printf("FROM (\n  SELECT run_id, metric_id, percentile, h - floor(h) AS t,\n    %s AS a, %s AS b\n",
			d.element("x", "i + 1"), d.element("x", "least(i + 2, n)"))
	}
	g.printf("  FROM (\n    SELECT s.run_id, s.metric_id, c.percentile, s.n, s.x, p * CAST(n - 1 AS DOUBLE) AS h, %s AS i\n", m.rank)
	g.printf("    FROM (SELECT run_id, metric_id, count(*) AS n, %s AS x FROM %s GROUP BY run_id, metric_id) s\n",
		d.sortedList("value"), d.view(g.o, "verdict_observations"))
	g.printf("    CROSS JOIN %s\n  ) ranked\n", values)
	if m.interp {
		g.printf(") picked")
	}
	g.printf(";\n\n")
}

// cumulativeView reads GuideLLM's percentiles: each series' values with
// their counts (the distinct values when merged, as v0.4 does; every value
// with count 1 otherwise, as v0.2-v0.3 do), folded in ascending order,
// adding count/n to a float64 sum until it reaches p. A sum that never
// reaches p (rounding, p close to 1) gives the largest value, as
// stats.Quantile does.
func (g *script) cumulativeView(values string, merged bool) {
	d := g.d
	counted := "(SELECT run_id, metric_id, value, count(*) AS c FROM " + d.view(g.o, "verdict_observations") + " GROUP BY run_id, metric_id, value)"
	if !merged {
		counted = "(SELECT run_id, metric_id, value, 1 AS c FROM " + d.view(g.o, "verdict_observations") + ")"
	}
	g.printf("SELECT run_id, metric_id, %s AS stat, percentile, coalesce(%s, top) AS value\n", d.literal(schemas.StatP), d.cumulativeFold("x", "n", "p"))
	g.printf("FROM (\n  SELECT run_id, metric_id, sum(c) AS n, max(value) AS top, %s AS x\n", d.countedList())
	g.printf("  FROM %s v\n  GROUP BY run_id, metric_id\n) s\n", counted)
	g.printf("CROSS JOIN %s;\n\n", values)
}

// goodput writes verdict_goodput: per run, the profiling requests, the
// successful ones and those meeting every limit, with the share and the
// rate over the run's duration.
func (g *script) goodput() {
	d := g.d
	s := g.o.SLO
	var meets, inputs []schemas.MetricID
	var conds []string
	if s.TTFT > 0 {
		conds = append(conds, "q.ttft_s IS NOT NULL AND q.ttft_s <= "+number(s.TTFT))
		meets = append(meets, schemas.TTFT)
	}
	if s.TPOT > 0 {
		conds = append(conds, "q.output_tokens IS NOT NULL AND (q.output_tokens <= 1 OR (q.e2e_s IS NOT NULL AND q.ttft_s IS NOT NULL AND "+tpotExpr+" <= "+number(s.TPOT)+"))")
		meets = append(meets, schemas.TPOT, schemas.TTFT, schemas.E2E, schemas.OutputTokens)
	}
	if s.ITL > 0 {
		conds = append(conds, "q.chunk_gaps_s IS NOT NULL AND coalesce("+d.listMax("q.chunk_gaps_s")+" <= "+number(s.ITL)+", true)")
		meets = append(meets, schemas.ITLChunk)
	}
	if s.E2E > 0 {
		conds = append(conds, "q.e2e_s IS NOT NULL AND q.e2e_s <= "+number(s.E2E))
		meets = append(meets, schemas.E2E)
	}
	for _, id := range append([]schemas.MetricID{schemas.Goodput}, meets...) {
		if !slices.Contains(inputs, id) {
			inputs = append(inputs, id)
		}
	}
	good := "q.status = " + d.literal(schemas.StatusOK)
	for _, c := range conds {
		good += "\n      AND " + c
	}
	changes, uncertain, notes := flagsOf(inputs)
	g.comment("Goodput under --slo "+sloText(s)+" (limits inclusive, as vLLM's --goodput): a successful request is good",
		"when every limited value is known and within its limit; an unknown value is not good. TPOT is",
		"(e2e - ttft)/(output_tokens - 1), and 0 for a request with one output token or none, as vLLM",
		"counts it; an ITL limit applies to every chunk gap: unknown gaps (NULL) are not good, one chunk (no gap) meets it.",
		"share = good / profiling requests (failed ones count against it); rate = good / the run's",
		"duration_s, labelled goodput over a dispatch window and goodput_span over a span window.")
	if len(changes) > 0 {
		g.comment("Refused: runs flagged " + strings.Join(changes, ", ") + ".")
	}
	for _, n := range notes {
		g.comment("  " + n)
	}
	flags := d.emptyStrings()
	if len(uncertain) > 0 {
		flags = "coalesce(" + d.intersect("flags", uncertain) + ", " + d.emptyStrings() + ")"
	}
	where := "q.phase = " + d.literal(schemas.PhaseProfiling)
	if len(changes) > 0 {
		where += "\n    AND NOT coalesce(" + d.overlaps("r.flags", changes) + ", false)"
	}
	g.printf("%s\nSELECT run_id, tool, CASE WHEN window_kind = %s THEN %s ELSE %s END AS goodput_id,\n  total, successful, good,\n",
		d.createView(g.o, "verdict_goodput"), d.literal(schemas.WindowKindSpan), d.literal(string(schemas.GoodputSpan)), d.literal(string(schemas.Goodput)))
	g.printf("  CAST(good AS DOUBLE) / CAST(total AS DOUBLE) AS share,\n  CASE WHEN duration_s > 0 THEN CAST(good AS DOUBLE) / duration_s END AS rate,\n  %d AS registry_version, %s AS uncertain_flags\n",
		schemas.RegistryVersion, flags)
	g.printf("FROM (\n  SELECT q.run_id, r.tool, r.window_kind, r.duration_s, r.flags,\n")
	g.printf("    count(*) AS total,\n    count(CASE WHEN q.status = %s THEN 1 END) AS successful,\n    count(CASE WHEN %s THEN 1 END) AS good\n",
		d.literal(schemas.StatusOK), good)
	g.printf("  FROM %s q\n  JOIN %s r ON r.run_id = q.run_id\n  WHERE %s\n  GROUP BY q.run_id, r.tool, r.window_kind, r.duration_s, r.flags\n) counted;\n\n",
		d.view(g.o, "verdict_requests"), d.view(g.o, "verdict_runs"), where)
}

func (g *script) statsView() {
	d := g.d
	o := g.o
	row := func(view, metric, stat, percentile, value, source string) string {
		return fmt.Sprintf("SELECT run_id, %s AS metric_id, %s AS stat, %s AS percentile, %s AS value, %s AS source, %d AS registry_version FROM %s",
			metric, stat, percentile, value, d.literal(source), schemas.RegistryVersion, d.view(o, view))
	}
	var parts []string
	for _, v := range []string{"verdict_stat_count", "verdict_stat_mean", "verdict_stat_std", "verdict_stat_percentile"} {
		parts = append(parts, row(v, "metric_id", "stat", "percentile", "value", schemas.SourceComputed))
	}
	if o.HasSLO {
		parts = append(parts,
			row("verdict_goodput", "goodput_id", d.literal(schemas.StatValue), "CAST(NULL AS DOUBLE)", "rate", schemas.SourceComputed),
			row("verdict_goodput", d.literal(string(schemas.GoodRequests)), d.literal(schemas.StatValue), "CAST(NULL AS DOUBLE)", "CAST(good AS DOUBLE)", schemas.SourceComputed))
	}
	g.comment("What verdict stats --ci 0"+g.statsFlags()+" prints, one row per number:",
		"  SELECT * FROM verdict_stats ORDER BY run_id, metric_id, stat, percentile;")
	if g.tables[schemas.TableMetrics] {
		g.comment("A run without request rows shows the statistics its tool reported for the whole run (not",
			"per endpoint or other dimension), as verdict stats does.")
		reported := fmt.Sprintf("SELECT m.run_id, m.metric_id, m.stat, m.percentile, m.value, %s AS source, %d AS registry_version\nFROM %s m\nJOIN %s r ON r.run_id = m.run_id\nWHERE m.source = %s\n  AND coalesce(m.dimension, '') = ''\n  AND m.run_id NOT IN (SELECT run_id FROM %s)",
			d.literal(schemas.SourceReported), schemas.RegistryVersion, d.view(o, "verdict_metrics"), d.view(o, "verdict_runs"),
			d.literal(schemas.SourceReported), d.view(o, "verdict_requests"))
		if o.metricsGiven {
			ids := make([]string, len(o.Metrics))
			for i, id := range o.Metrics {
				ids[i] = d.literal(string(id))
			}
			reported += "\n  AND m.metric_id IN (" + strings.Join(ids, ", ") + ")"
		}
		parts = append(parts, reported)
	}
	g.printf("%s\n%s;\n", d.createView(o, "verdict_stats"), strings.Join(parts, "\nUNION ALL\n"))
}
