package sqlgen

import (
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// TestEveryRequestDefinition checks that each request- and chunk-level
// registry definition has SQL or a documented reason, never both, and
// that nothing else is listed.
func TestEveryRequestDefinition(t *testing.T) {
	want := map[schemas.MetricID]bool{}
	for _, d := range schemas.Registry() {
		if d.Level != schemas.LevelRequest && d.Level != schemas.LevelChunk {
			continue
		}
		want[d.ID] = true
		_, has := definitions[d.ID]
		why, without := withoutSQL[d.ID]
		switch {
		case has && without:
			t.Errorf("%s has both SQL and a reason for having none", d.ID)
		case !has && !without:
			t.Errorf("%s (%s-level) has neither SQL nor a documented reason in withoutSQL", d.ID, d.Level)
		case without && len(why) < 20:
			t.Errorf("%s: reason %q says too little", d.ID, why)
		}
	}
	for id := range definitions {
		if !want[id] {
			t.Errorf("definitions has %s, which is not a request- or chunk-level registry definition", id)
		}
	}
	for id := range withoutSQL {
		if !want[id] {
			t.Errorf("withoutSQL has %s, which is not a request- or chunk-level registry definition", id)
		}
	}
}

// TestColumnsDeclared checks that every column a definition reads is a
// requests column the Trino tables declare, and that each declared column
// has a Trino type.
func TestColumnsDeclared(t *testing.T) {
	for id, d := range definitions {
		for _, c := range d.columns {
			if !slices.Contains(tableColumns[schemas.TableRequests], c) {
				t.Errorf("%s reads %s, which tableColumns does not declare", id, c)
			}
		}
		if d.value == nil {
			t.Errorf("%s has no value", id)
		}
	}
	for table, cols := range tableColumns {
		sch, ok := schemas.SchemaOf(table)
		if !ok {
			t.Fatalf("no schema %s", table)
		}
		for _, c := range cols {
			idx := sch.FieldIndices(c)
			if len(idx) == 0 {
				t.Errorf("%s has no column %s", table, c)
				continue
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s.%s: %v", table, c, r)
					}
				}()
				trinoType(sch.Field(idx[0]).Type)
			}()
		}
	}
}

// variants are the option sets the golden files hold.
var variants = []struct {
	name string
	o    Options
}{
	{"default", Options{}},
	{"slo-floor", Options{Method: stats.NearestRankFloor, Percentiles: []float64{50, 99.9},
		SLO: stats.SLO{TTFT: 0.2, TPOT: 0.05, ITL: 0.1, E2E: 10}, HasSLO: true}},
	{"cumulative", Options{Method: stats.NearestRankCumulative, Metrics: []schemas.MetricID{schemas.TTFT, schemas.TTST}}},
	{"unmerged", Options{Method: stats.NearestRankCumulativeUnmerged, Metrics: []schemas.MetricID{schemas.TPOT}, Percentiles: []float64{90}}},
}

func generate(t *testing.T, d Dialect, o Options) string {
	t.Helper()
	o.Dialect, o.Dataset, o.Version = d, "history", "test"
	var b strings.Builder
	if err := Write(&b, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestGolden checks each dialect's script: DuckDB's is run by the interop
// module; Spark's and Trino's are checked only here and by
// TestFunctionsDocumented. go test ./sqlgen -update rewrites them.
func TestGolden(t *testing.T) {
	for _, d := range Dialects {
		for _, v := range variants {
			testkit.Golden(t, filepath.Join("testdata", "golden", string(d)+"-"+v.name+".sql"), []byte(generate(t, d, v.o)))
		}
	}
}

var (
	// lineComments and literals are removed before looking for calls.
	lineComments = regexp.MustCompile(`--[^\n]*`)
	literals     = regexp.MustCompile(`'(?:[^'\\]|''|\\.)*'`)
	calls        = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*)\s*\(`)
	// syntax is what looks like a call but is not a function (the
	// generator writes keywords and types in upper case, functions in
	// lower case).
	syntax = []string{"CAST", "VALUES", "UNNEST", "ROW", "ARRAY", "IN", "AS", "AND", "OR", "NOT", "WHEN", "THEN", "ELSE", "FROM", "JOIN", "ON",
		"WITH", "OPTIONS", "BY", "partitioned_by", "VIEW", "TABLE", "EXISTS",
		// names the script itself gives (aliases with column lists, tables)
		"c", "g", "verdict_runs", "verdict_requests", "verdict_metrics"}
)

// callsIn lists the functions a script calls.
func callsIn(script string) []string {
	s := lineComments.ReplaceAllString(script, "")
	s = literals.ReplaceAllString(s, "''")
	var out []string
	for _, m := range calls.FindAllStringSubmatch(s, -1) {
		name := m[1]
		if slices.Contains(syntax, name) { // keywords are upper case, functions lower case
			continue
		}
		if i := strings.LastIndex(name, "."); i >= 0 {
			name = name[i+1:]
		}
		if !slices.Contains(out, strings.ToLower(name)) {
			out = append(out, strings.ToLower(name))
		}
	}
	return out
}

// TestFunctionsDocumented checks that every function each dialect's
// scripts call is in Functions, and that Functions lists nothing unused.
func TestFunctionsDocumented(t *testing.T) {
	for _, d := range Dialects {
		used := map[string]bool{}
		for _, v := range variants {
			for _, f := range callsIn(generate(t, d, v.o)) {
				used[f] = true
			}
		}
		listed := map[string]bool{}
		for _, f := range Functions[d] {
			listed[f.Name] = true
			if !strings.HasPrefix(f.Doc, "https://") {
				t.Errorf("%s %s: no documentation link", d, f.Name)
			}
			if !used[f.Name] {
				t.Errorf("%s: Functions lists %s, which no script calls", d, f.Name)
			}
		}
		for f := range used {
			if !listed[f] {
				t.Errorf("%s: the script calls %s, which Functions does not document", d, f)
			}
		}
	}
}

func TestOptionErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		o    Options
		want error
		msg  string
	}{
		{"dialect", Options{Dialect: "postgres"}, ErrOption, "dialect"},
		{"control character", Options{Dialect: DuckDB, Dataset: "a\nDROP TABLE x;"}, ErrOption, "control character"},
		{"glob", Options{Dialect: DuckDB, Dataset: "runs[1]"}, ErrOption, "glob"},
		{"run-level metric", Options{Dialect: Spark, Metrics: []schemas.MetricID{schemas.RequestThroughput}}, ErrNoSQL, "not a request-level"},
		{"metric without SQL", Options{Dialect: Trino, Metrics: []schemas.MetricID{schemas.TTFTScheduled}}, ErrNoSQL, "LoadGen"},
		{"locust", Options{Dialect: DuckDB, Method: stats.LocustBuckets}, ErrNoSQL, "Locust"},
		{"method", Options{Dialect: DuckDB, Method: "median_of_medians"}, ErrOption, "method"},
		{"percentile", Options{Dialect: DuckDB, Percentiles: []float64{101}}, ErrOption, "outside"},
		{"trino schema", Options{Dialect: Trino, TrinoSchema: "hive.verdict; DROP"}, ErrOption, "catalog.schema"},
		{"trino schema without catalog", Options{Dialect: Trino, TrinoSchema: "verdict"}, ErrOption, "catalog.schema"},
		{"SLO", Options{Dialect: DuckDB, SLO: stats.SLO{TTFT: -1}, HasSLO: true}, ErrOption, "SLO"},
		{"not a dataset", Options{Dialect: DuckDB, Dataset: "testdata"}, ErrOption, "not a verdict dataset"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Write(new(strings.Builder), c.o)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("got %v, want %v mentioning %q", err, c.want, c.msg)
			}
		})
	}
}

// TestLiterals checks that a dataset path becomes a string literal each
// engine reads back as the path, and never ends the literal.
func TestLiterals(t *testing.T) {
	for _, c := range []struct {
		d    Dialect
		in   string
		want string
	}{
		{DuckDB, `it's`, `'it''s'`},
		{Trino, `it's`, `'it''s'`},
		{Spark, `it's`, `'it\'s'`},
		{Spark, `C:\data`, `'C:\\data'`},
		{DuckDB, `C:\data`, `'C:\data'`},
	} {
		if got := c.d.literal(c.in); got != c.want {
			t.Errorf("%s literal(%q) = %s, want %s", c.d, c.in, got, c.want)
		}
	}
	s := generate(t, Spark, Options{})
	if strings.Contains(s, "path 'history/table=requests'") == false {
		t.Error("the Spark script does not read history/table=requests")
	}
}

// TestRefusals checks that each definition refuses the flags that change
// what it reads, and no others.
func TestRefusals(t *testing.T) {
	for _, c := range []struct {
		id   schemas.MetricID
		want []string
	}{
		{schemas.TTFT, nil},
		{schemas.ITLChunk, []string{"itl_includes_ttft"}},
		{schemas.TTST, []string{"itl_includes_ttft"}},
		{schemas.TPOT, []string{"e2e_ends_at_done_event"}},
		{schemas.E2E, []string{"e2e_ends_at_done_event"}},
		{schemas.InputTokens, nil},
	} {
		got, _, _ := flagsOf(inputsOf(c.id, definitions[c.id].columns))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s refuses %v, want %v", c.id, got, c.want)
		}
	}
}
