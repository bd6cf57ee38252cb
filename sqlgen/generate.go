package sqlgen

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
	"github.com/verdict-llm/verdict/validate"
)

// Options configure Write. The zero value (with a Dialect) gives what
// `verdict stats --ci 0` prints by default over the dataset in the current
// directory.
type Options struct {
	Dialect Dialect
	// Dataset is the dataset directory as the engine sees it: a path
	// (relative to the engine's working directory) or, for Spark and
	// Trino, a URI such as s3://bucket/history. Empty means ".".
	Dataset string
	// Metrics are the definitions verdict_stats holds; nil means those
	// `verdict stats` shows by default. Each must have an SQL view.
	Metrics []schemas.MetricID
	// Percentiles (0-100) and Method read the percentiles; nil and ""
	// mean 50, 90, 99 and linear, as `verdict stats`.
	Percentiles []float64
	Method      stats.Method
	// SLO, when HasSLO, adds goodput.
	SLO    stats.SLO
	HasSLO bool
	// TrinoSchema is the catalog.schema (of a Hive catalog) the Trino
	// script creates its tables and views in; empty means hive.verdict.
	TrinoSchema string
	// Version is the verdict version written into the header.
	Version string

	metricsGiven bool // Metrics was set by the caller
}

// Errors of Options.
var (
	ErrNoSQL  = errors.New("no SQL form")
	ErrOption = errors.New("invalid option")
)

// normalize fills the defaults and checks the options.
func (o *Options) normalize() error {
	if !slices.Contains(Dialects, o.Dialect) {
		return fmt.Errorf("%w: dialect %q: use duckdb, spark or trino", ErrOption, o.Dialect)
	}
	if o.Dataset == "" {
		o.Dataset = "."
	}
	if strings.ContainsFunc(o.Dataset, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("%w: dataset %q contains a control character", ErrOption, o.Dataset)
	}
	if o.Dialect == DuckDB && strings.ContainsAny(o.Dataset, "*?[]{}") {
		return fmt.Errorf("%w: dataset %q contains a glob character, which DuckDB's read_parquet would expand", ErrOption, o.Dataset)
	}
	if o.Dataset != "/" && o.Dataset != "." {
		o.Dataset = strings.TrimRight(o.Dataset, "/")
	}
	o.metricsGiven = o.Metrics != nil
	if o.Metrics == nil {
		o.Metrics = analysis.ObservedMetrics
	}
	for _, id := range o.Metrics {
		if _, ok := definitions[id]; ok {
			continue
		}
		if why := withoutSQL[id]; why != "" {
			return fmt.Errorf("%w: %s: %s", ErrNoSQL, id, why)
		}
		return fmt.Errorf("%w: %s is not a request-level definition (verdict schema lists them); run-level numbers are in metrics.parquet", ErrNoSQL, id)
	}
	if o.Percentiles == nil {
		o.Percentiles = []float64{50, 90, 99}
	}
	for _, p := range o.Percentiles {
		if !(p >= 0 && p <= 100) {
			return fmt.Errorf("%w: percentile %v is outside 0-100", ErrOption, p)
		}
	}
	if o.Method == "" {
		o.Method = stats.Linear
	}
	if _, ok := rankMethods[o.Method]; !ok {
		if o.Method == stats.LocustBuckets {
			return fmt.Errorf("%w: percentile method %s: Locust's millisecond buckets are Locust's own statistic, and the Locust reader writes no request rows", ErrNoSQL, o.Method)
		}
		return fmt.Errorf("%w: percentile method %q: use linear, nearest_rank_floor, nearest_rank_cumulative or nearest_rank_cumulative_unmerged", ErrOption, o.Method)
	}
	for name, v := range map[string]float64{"ttft": o.SLO.TTFT, "tpot": o.SLO.TPOT, "itl": o.SLO.ITL, "e2e": o.SLO.E2E} {
		if !(v >= 0) {
			return fmt.Errorf("%w: SLO %s limit %v", ErrOption, name, v)
		}
	}
	if o.TrinoSchema == "" {
		o.TrinoSchema = "hive.verdict"
	}
	if cat, sch, ok := strings.Cut(o.TrinoSchema, "."); !ok || !isIdent(cat) || !isIdent(sch) {
		return fmt.Errorf("%w: Trino schema %q: want catalog.schema, letters, digits and _", ErrOption, o.TrinoSchema)
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if strings.ContainsFunc(o.Version, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("%w: version %q", ErrOption, o.Version)
	}
	return nil
}

func isIdent(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) && !(s[0] >= '0' && s[0] <= '9')
}

// Write writes the SQL script for o to w: the dataset's tables, one view
// per request-level definition, one view per run-level statistic, goodput
// under the SLO, and verdict_stats. When o.Dataset is a local directory it
// must be a verdict dataset with runs and requests; a table it has no
// files for is left out of the script (with a comment) where the script
// can do without it.
func Write(w io.Writer, o Options) error {
	if err := o.normalize(); err != nil {
		return err
	}
	g := &script{o: &o, d: o.Dialect, tables: map[string]bool{schemas.TableRuns: true, schemas.TableRequests: true, schemas.TableMetrics: true}}
	if err := g.checkLocal(); err != nil {
		return err
	}
	g.header()
	g.sources()
	for _, def := range schemas.Registry() {
		if sd, ok := definitions[def.ID]; ok {
			g.definitionView(def, sd)
		}
	}
	g.refusals()
	g.observations()
	g.statViews()
	if o.HasSLO {
		g.goodput()
	}
	g.statsView()
	_, err := io.WriteString(w, g.b.String())
	return err
}

// A script is the SQL being written.
type script struct {
	o      *Options
	d      Dialect
	b      strings.Builder
	tables map[string]bool // tables the script reads
}

func (g *script) printf(format string, args ...any) { fmt.Fprintf(&g.b, format, args...) }

// comment writes each line as an SQL line comment; text never ends a
// comment early, because newlines are replaced.
func (g *script) comment(lines ...string) {
	for _, l := range lines {
		l = strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, l)
		g.b.WriteString(strings.TrimRight("-- "+l, " ") + "\n")
	}
}

// checkLocal looks at a dataset that is a local directory: it must be a
// dataset, with files for runs and requests; metrics may be missing.
func (g *script) checkLocal() error {
	dir := g.o.Dataset
	if strings.Contains(dir, "://") {
		return nil
	}
	if _, err := os.Stat(dir); err != nil {
		return nil // not here: the engine's own path
	}
	compacted := schemas.IsCompacted(dir)
	if !schemas.IsDataset(dir) && !compacted {
		return fmt.Errorf("%w: %s is not a verdict dataset (no %s) nor a compacted copy (no %s); write one with verdict export --dataset", ErrOption, dir, schemas.DatasetFile, schemas.CompactFile)
	}
	if compacted && g.d == Trino {
		return fmt.Errorf("%w: %s is a compacted copy, which has no tool and run_id partition directories for Trino's Hive tables; give Trino the dataset itself", ErrOption, dir)
	}
	for t := range g.tables {
		pattern := filepath.Join(dir, "table="+t, "*", "*", "*.parquet")
		if compacted {
			pattern = filepath.Join(dir, "table="+t, "*.parquet")
		}
		files, _ := filepath.Glob(pattern)
		if len(files) > 0 {
			continue
		}
		if t != schemas.TableMetrics {
			return fmt.Errorf("%w: %s has no files under table=%s, which every statistic reads", ErrOption, dir, t)
		}
		g.tables[t] = false
	}
	return nil
}

func (g *script) header() {
	o := g.o
	g.comment(
		fmt.Sprintf("verdict's metric definitions as %s SQL: registry version %d, dataset schema version %d.", o.Dialect, schemas.RegistryVersion, schemas.SchemaVersion),
		"Written by verdict "+o.Version+" (verdict sql); regenerate it rather than edit it.",
		"Dataset: "+o.Dataset+" (table=runs, table=requests and table=metrics, as verdict export writes them).",
		"",
		"Each verdict_<definition> view holds one observation per row (per chunk gap for itl_chunk)",
		"over the definition's population, with its definition ID, unit and registry version; rows of",
		"runs whose version flags change the definition are refused (verdict_refusals lists them),",
		"and flags that leave it uncertain are listed in uncertain_flags.",
		fmt.Sprintf("verdict_stats (run_id, metric_id, stat, percentile, value) holds what `verdict stats --ci 0%s` prints:", g.statsFlags()),
		"count, mean, population standard deviation and percentiles per run and metric, goodput under",
		"an SLO, and the tool's own statistics for runs without request rows.",
	)
	for _, l := range methodNotes[o.Method] {
		g.comment(l)
	}
	if g.d == Spark {
		g.comment("", "Spark: each view holds a run's series as one sorted array while reading percentiles.")
	}
	g.b.WriteString("\n")
}

// statsFlags are the `verdict stats` flags that give the same numbers.
func (g *script) statsFlags() string {
	o := g.o
	var f []string
	if !slices.Equal(o.Metrics, analysis.ObservedMetrics) {
		f = append(f, "--metric "+strings.Join(idStrings(o.Metrics), ","))
	}
	if !slices.Equal(o.Percentiles, []float64{50, 90, 99}) {
		ps := make([]string, len(o.Percentiles))
		for i, p := range o.Percentiles {
			ps[i] = strconv.FormatFloat(p, 'g', -1, 64)
		}
		f = append(f, "--percentiles "+strings.Join(ps, ","))
	}
	if o.Method != stats.Linear {
		f = append(f, "--method "+string(o.Method))
	}
	if o.HasSLO {
		f = append(f, "--slo "+sloText(o.SLO))
	}
	if len(f) == 0 {
		return ""
	}
	return " " + strings.Join(f, " ")
}

func idStrings(ids []schemas.MetricID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}

// sloText writes an SLO as --slo takes it.
func sloText(s stats.SLO) string {
	var parts []string
	for _, l := range []struct {
		name string
		v    float64
	}{{"ttft", s.TTFT}, {"tpot", s.TPOT}, {"itl", s.ITL}, {"e2e", s.E2E}} {
		if l.v > 0 {
			parts = append(parts, l.name+"="+time.Duration(math.Round(l.v*1e9)).String())
		}
	}
	return strings.Join(parts, ",")
}

// number writes a float64 as a DOUBLE literal that reads back to the same
// value in every engine (a literal with an exponent is DOUBLE in all
// three; without one DuckDB and Spark would read a DECIMAL).
func number(v float64) string {
	return strconv.FormatFloat(v, 'e', -1, 64)
}

// flagsOf splits the known flags bearing on the given definitions into
// those that change them (refused) and those that leave them uncertain.
func flagsOf(ids []schemas.MetricID) (changes, uncertain []string, notes []string) {
	for _, f := range validate.DefinitionFlags() {
		if !slices.Contains(ids, f.Metric) {
			continue
		}
		if f.Changes {
			changes = append(changes, f.Flag)
		} else {
			uncertain = append(uncertain, f.Flag)
		}
		notes = append(notes, f.Flag+": "+f.Note)
	}
	return changes, uncertain, notes
}

// inputsOf lists a definition and the definitions of the columns it reads.
func inputsOf(id schemas.MetricID, columns []string) []schemas.MetricID {
	ids := []schemas.MetricID{id}
	sch := schemas.RequestsSchema()
	for _, c := range columns {
		idx := sch.FieldIndices(c)
		if len(idx) == 0 {
			panic("sqlgen: no requests column " + c)
		}
		if m, ok := sch.Field(idx[0]).Metadata.GetValue(schemas.MetaMetric); ok && !slices.Contains(ids, schemas.MetricID(m)) {
			ids = append(ids, schemas.MetricID(m))
		}
	}
	return ids
}
