package interop

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/sqlgen"
	"github.com/verdict-llm/verdict/stats"
)

// The SQL tests run every view `verdict sql --dialect duckdb` writes over
// one dataset holding the demo bundles and every file of the real-tool
// corpus (../shared/fixtures) that verdict ingests, and check the numbers
// against `verdict stats` (render.ComputeStats, the command's own code):
// counts and goodput counts exactly, percentiles to the bit, means to
// 1e-12 relative. The definitions verdict stats does not show are checked
// against a recomputation from the request rows (reference, below).

var (
	sqlOnce sync.Once
	sqlDS   string
	sqlErr  error
	sqlNote string
)

// testSLO has a limit on every metric goodput knows; verdict stats and the
// SQL must agree on all of them (a request with unknown chunk gaps is not
// good under an ITL limit, one with a single chunk meets it).
var testSLO = stats.SLO{TTFT: 0.2, TPOT: 0.05, ITL: 0.1, E2E: 10}

// sqlDataset builds the dataset once per test binary.
func sqlDataset(t *testing.T) string {
	t.Helper()
	sqlOnce.Do(func() {
		dir, err := os.MkdirTemp("", "verdict-sql")
		if err != nil {
			sqlErr = err
			return
		}
		sqlDS = filepath.Join(dir, "history")
		sqlNote, sqlErr = buildSQLDataset(dir, sqlDS)
	})
	if sqlErr != nil {
		t.Fatal(sqlErr)
	}
	if sqlNote != "" {
		if testkit.RequireCorpus() {
			t.Fatal(sqlNote)
		}
		t.Log(sqlNote)
	}
	return sqlDS
}

// buildSQLDataset ingests the demo platforms and each corpus file into its
// own bundle and exports them all; a corpus file that is not a result
// verdict reads (a README, a sidecar) is passed over. It returns a note
// when the corpus is absent.
func buildSQLDataset(tmp, ds string) (string, error) {
	ctx := context.Background()
	formats := all.Formats()
	var inputs []string
	for _, f := range []string{"platform-a.json", "platform-b.json"} {
		inputs = append(inputs, demo+f)
	}
	note := ""
	corpus := testkit.CorpusRoot()
	if fi, err := os.Stat(corpus); err != nil || !fi.IsDir() {
		note = "the real-tool corpus is not at " + corpus + " (set " + testkit.EnvCorpus + "): the SQL views are checked on the demo bundles only"
	} else {
		filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".md") && !strings.Contains(p, string(filepath.Separator)+"billing"+string(filepath.Separator)) {
				inputs = append(inputs, p)
			}
			return nil
		})
	}
	exported := 0
	for i, in := range inputs {
		out := filepath.Join(tmp, fmt.Sprintf("b%03d.bundle", i))
		if _, err := ingest.ToBundle(ctx, []string{in}, out, ingest.Options{Formats: formats}); err != nil {
			if i < 2 {
				return "", err // the demo must ingest
			}
			continue
		}
		b, err := schemas.OpenBundle(out)
		if err != nil {
			return "", err
		}
		res, err := schemas.Export(ctx, b, ds, schemas.ExportOptions{})
		if err != nil {
			return "", fmt.Errorf("%s: %w", in, err)
		}
		exported += len(res.Exported)
	}
	if exported < 2 {
		return "", fmt.Errorf("only %d runs exported", exported)
	}
	return note, nil
}

// runScript generates the DuckDB script for o and runs it in a fresh
// database.
func runScript(t *testing.T, o sqlgen.Options) *sql.DB {
	t.Helper()
	o.Dialect = sqlgen.DuckDB
	var b strings.Builder
	if err := sqlgen.Write(&b, o); err != nil {
		t.Fatal(err)
	}
	db := open(t)
	if _, err := db.Exec(b.String()); err != nil {
		t.Fatalf("the script fails in DuckDB: %v", err)
	}
	return db
}

// A statKey names one number of verdict_stats.
type statKey struct {
	run, metric, stat string
	pct               string // "" for none
}

func pctKey(p float64, ok bool) string {
	if !ok {
		return ""
	}
	return strconv.FormatFloat(p, 'g', -1, 64)
}

// sqlStats reads verdict_stats: the values of each key, sorted (the
// metrics table can hold one statistic twice, under two native names).
func sqlStats(t *testing.T, db *sql.DB, source string) map[statKey][]float64 {
	t.Helper()
	rows, err := db.Query("SELECT run_id, metric_id, stat, percentile, value FROM verdict_stats WHERE source = ?", source)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[statKey][]float64{}
	for rows.Next() {
		var k statKey
		var p, v sql.NullFloat64
		if err := rows.Scan(&k.run, &k.metric, &k.stat, &p, &v); err != nil {
			t.Fatal(err)
		}
		k.pct = pctKey(p.Float64, p.Valid)
		val := math.NaN()
		if v.Valid {
			val = v.Float64
		}
		out[k] = append(out[k], val)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, vs := range out {
		sort.Float64s(vs)
	}
	return out
}

// refused reads verdict_refusals as run -> definitions.
func refused(t *testing.T, db *sql.DB) map[string][]string {
	t.Helper()
	rows, err := db.Query("SELECT run_id, definition_id FROM verdict_refusals")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var run, id string
		rows.Scan(&run, &id)
		out[run] = append(out[run], id)
	}
	return out
}

// relClose reports whether a and b agree to rel relative to the larger.
func relClose(a, b, rel float64) bool {
	if a == b || math.IsNaN(a) && math.IsNaN(b) {
		return true
	}
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

// compareStats checks verdict_stats against verdict stats for one set of
// options and returns how many numbers were compared.
func compareStats(t *testing.T, ds string, method stats.Method) int {
	t.Helper()
	db := runScript(t, sqlgen.Options{Dataset: ds, Method: method, SLO: testSLO, HasSLO: true})
	got := sqlStats(t, db, schemas.SourceComputed)
	reported := sqlStats(t, db, schemas.SourceReported)
	refusals := refused(t, db)

	o := analysis.DefaultStats
	o.Confidence, o.Method, o.SLO, o.HasSLO = 0, method, testSLO, true
	res, err := analysis.ComputeStats(context.Background(), []string{ds}, o)
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	seen := map[statKey]bool{}
	check := func(k statKey, want float64, exact bool, what string) {
		seen[k] = true
		vs, ok := got[k]
		switch {
		case !ok && slices.Contains(refusals[k.run], k.metric):
			return // refused by a version flag, and verdict_refusals says so
		case !ok:
			t.Errorf("%v: verdict stats %v, no row in verdict_stats", k, want)
		case len(vs) != 1:
			t.Errorf("%v: %d rows in verdict_stats", k, len(vs))
		case exact && vs[0] != want && !(math.IsNaN(vs[0]) && math.IsNaN(want)):
			t.Errorf("%v (%s): verdict stats %v, SQL %v", k, what, want, vs[0])
		case !exact && !relClose(vs[0], want, 1e-12):
			t.Errorf("%v (%s): verdict stats %v, SQL %v (relative difference %.3g)", k, what, want, vs[0], math.Abs(vs[0]-want)/math.Abs(want))
		default:
			compared++
		}
	}
	for _, r := range res.Runs {
		id := r.Run.ID
		if len(r.Reported) > 0 {
			want := map[statKey][]float64{}
			for _, m := range r.Reported {
				k := statKey{id, string(m.MetricID), m.Stat, pctKey(m.Percentile.V, m.Percentile.OK)}
				v := math.NaN()
				if m.Value.OK {
					v = m.Value.V
				}
				want[k] = append(want[k], v)
			}
			for k, ws := range want {
				sort.Float64s(ws)
				if !slices.EqualFunc(ws, reported[k], func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
					t.Errorf("%v (reported): verdict stats %v, SQL %v", k, ws, reported[k])
				}
				compared += len(ws)
				delete(reported, k)
			}
			continue
		}
		for _, m := range r.Metrics {
			met := string(m.Metric)
			check(statKey{id, met, schemas.StatCount, ""}, float64(m.N), true, "n")
			check(statKey{id, met, schemas.StatMean, ""}, m.Mean.Value, false, "mean")
			check(statKey{id, met, schemas.StatStd, ""}, m.Std, false, "std")
			for _, q := range m.Quantiles {
				check(statKey{id, met, schemas.StatP, pctKey(q.Percentile, true)}, q.Value, true, "percentile")
			}
		}
		if g := r.Goodput; g != nil {
			gid := string(schemas.Goodput)
			if r.Run.WindowKind == schemas.WindowKindSpan {
				gid = string(schemas.GoodputSpan)
			}
			check(statKey{id, string(schemas.GoodRequests), schemas.StatValue, ""}, float64(g.Good), true, "good requests")
			check(statKey{id, gid, schemas.StatValue, ""}, g.Rate, true, "goodput rate")
		}
	}
	for k := range got {
		if !seen[k] {
			t.Errorf("%v: verdict_stats has %v, verdict stats shows no such number", k, got[k])
		}
	}
	for k, vs := range reported {
		t.Errorf("%v: verdict_stats has reported %v, verdict stats shows none", k, vs)
	}
	return compared
}

// TestSQLStatsEqualVerdictStats is the check: one SELECT over
// verdict_stats answers what `verdict stats --ci 0` answers.
func TestSQLStatsEqualVerdictStats(t *testing.T) {
	ds := sqlDataset(t)
	for _, m := range []stats.Method{stats.Linear, stats.NearestRankFloor, stats.NearestRankCumulative, stats.NearestRankCumulativeUnmerged} {
		t.Run(string(m), func(t *testing.T) {
			n := compareStats(t, ds, m)
			t.Logf("%d numbers equal", n)
			if n < 100 {
				t.Errorf("only %d numbers compared", n)
			}
		})
	}
}

// flaggedDataset is the demo platform A as a run whose flags say its chunk
// gaps start with the TTFT and its E2E ends at [DONE], beside platform B
// unflagged.
func flaggedDataset(t *testing.T) (ds, flagged string) {
	t.Helper()
	ctx := context.Background()
	a, b, _ := fixture(t)
	src, err := schemas.OpenBundle(a)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := src.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "flagged.bundle")
	w, err := schemas.CreateBundle(dest, schemas.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run := runs[0]
	run.ID, run.Flags = "flagged-"+run.ID, []string{"itl_includes_ttft", "e2e_ends_at_done_event", "itl_may_include_ttft"}
	w.AddRun(run)
	err = src.RequestColumns(ctx, nil, func(q *schemas.Request) error {
		q.RunID = run.ID
		return w.AddRequest(q)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(schemas.Manifest{}); err != nil {
		t.Fatal(err)
	}
	ds = filepath.Join(t.TempDir(), "history")
	for _, dir := range []string{dest, b} {
		bb, err := schemas.OpenBundle(dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := schemas.Export(ctx, bb, ds, schemas.ExportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return ds, run.ID
}

// TestSQLRefusesFlaggedRuns checks on DuckDB that a run whose flags change
// a definition has no rows in that definition's view (nor in goodput when a
// limit reads it), that verdict_refusals says why, that definitions it
// does not read keep its rows, and that uncertain_flags names the flags
// leaving a definition uncertain.
func TestSQLRefusesFlaggedRuns(t *testing.T) {
	ds, flagged := flaggedDataset(t)
	db := runScript(t, sqlgen.Options{Dataset: ds, SLO: stats.SLO{E2E: 10}, HasSLO: true})
	count := func(q string) int {
		var n int
		queryRow(t, db, q, &n)
		return n
	}
	for _, c := range []struct {
		view string
		want bool // rows of the flagged run remain
	}{
		{"verdict_ttft", true}, {"verdict_input_tokens", true}, {"verdict_output_tokens", true},
		{"verdict_e2e", false}, {"verdict_tpot", false}, {"verdict_ttst", false}, {"verdict_itl_chunk", false},
		{"verdict_tpot_incl_ttft", false}, {"verdict_goodput", false},
	} {
		n := count(fmt.Sprintf("SELECT count(*) FROM %s WHERE run_id = '%s'", c.view, flagged))
		others := count(fmt.Sprintf("SELECT count(*) FROM %s WHERE run_id <> '%s'", c.view, flagged))
		if (n > 0) != c.want || others == 0 {
			t.Errorf("%s: %d rows of the flagged run (want rows: %v), %d of the other", c.view, n, c.want, others)
		}
	}
	var flags string
	queryRow(t, db, fmt.Sprintf("SELECT CAST(flags AS VARCHAR) FROM verdict_refusals WHERE run_id = '%s' AND definition_id = 'tpot'", flagged), &flags)
	if flags != "[e2e_ends_at_done_event]" {
		t.Errorf("verdict_refusals gives %s for tpot", flags)
	}
	queryRow(t, db, fmt.Sprintf("SELECT CAST(any_value(uncertain_flags) AS VARCHAR) FROM verdict_ttft WHERE run_id = '%s'", flagged), &flags)
	if flags != "[]" {
		t.Errorf("ttft marked uncertain by %s", flags)
	}
	if n := count(fmt.Sprintf("SELECT count(*) FROM verdict_stats WHERE run_id = '%s' AND metric_id IN ('e2e', 'tpot', 'itl_chunk', 'goodput')", flagged)); n != 0 {
		t.Errorf("verdict_stats has %d numbers of refused definitions for the flagged run", n)
	}
	if n := count(fmt.Sprintf("SELECT count(*) FROM verdict_stats WHERE run_id = '%s' AND metric_id = 'ttft'", flagged)); n != 6 {
		t.Errorf("verdict_stats has %d TTFT numbers for the flagged run, want count, mean, std and 3 percentiles", n)
	}
}
