package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/verdict-llm/verdict/internal/gen"
)

// TestJSONDocuments runs every command that writes JSON and checks its
// document against the JSON Schema in docs/json (issue 13 item 9): one
// style for all, a versioned "schema" key, snake_case keys, numbers as
// numbers, intervals as lo and hi. The schemas forbid undocumented keys
// in verdict's own objects, so a renamed or added key fails here until
// docs/json says so.
func TestJSONDocuments(t *testing.T) {
	a, b := demoBundles(t)
	ca, cb := capacityBundles(t)
	quote := demo + "quote-a.yaml"
	cases := []struct {
		schema string
		args   []string
		code   int
	}{
		{"stats", []string{"stats", "--resamples", "200", "--percentiles", "0,50,99", "--slo", "ttft=200ms", a}, 0},
		{"stats", []string{"stats", "--ci", "0", a, b}, 0},
		{"stats", []string{"stats", "--resamples", "200", "--interval", "block", "--metric", "ttft", a}, 0},
		{"compare", []string{"compare", "--resamples", "200", "--mean", a, b}, 0},
		{"show", []string{"show", a}, 0},
		// A run of several files with metrics of its parts (a Locust test).
		{"show", []string{"show", locustBundle(t)}, 0},
		{"capacity", []string{"capacity", "--resamples", "200", "--slo", "ttft:p99<=500ms,ttft<=1s,goodput>=0.9", "--quote", capacityDemo + "quote-h100.yaml", "--interactivity", "30", ca, cb}, 0},
		{"capacity", []string{"capacity", "--resamples", "200", "--slo", "ttft:p99<=10ms", a}, 0},
		{"report", []string{"report", "--resamples", "200", "--quote", quote, a, b}, 0},
		{"cost", []string{"cost", "--no-store", "--quote", quote, a}, 0},
		{"validate", []string{"validate", a}, -1},
		{"schema", []string{"schema"}, 0},
		{"rules", []string{"rules"}, 0},
	}
	// A history with a regression, gated (exit 1), for verdict trend.
	trendDir := t.TempDir()
	step := slices.Concat(slices.Repeat([]float64{1}, 8), slices.Repeat([]float64{1.2}, 6))
	if err := gen.History(context.Background(), filepath.Join(trendDir, "ds"), trendDir, gen.HistoryRuns("r", 0, step, 0.01, 1), 0); err != nil {
		t.Fatal(err)
	}
	cases = append(cases,
		struct {
			schema string
			args   []string
			code   int
		}{"trend", []string{"trend", "--gate", "--since", "r-0006", filepath.Join(trendDir, "ds")}, 1},
		struct {
			schema string
			args   []string
			code   int
		}{"trend", []string{"trend", "--by", "label:engine_version", "--metric", "tpot:mean", filepath.Join(trendDir, "ds")}, 0},
		struct {
			schema string
			args   []string
			code   int
		}{"report", []string{"report", "--resamples", "200", "--trend", filepath.Join(trendDir, "ds"), a}, 0},
		struct {
			schema string
			args   []string
			code   int
		}{"report", []string{"report", "--trend", filepath.Join(trendDir, "ds")}, 0})
	snake := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	for _, c := range cases {
		sch, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "..", "docs", "json", c.schema+".schema.json"))
		if err != nil {
			t.Fatalf("%s: %v", c.schema, err)
		}
		code, out, errs := runCLI(t, append(c.args, "--format", "json")...)
		if c.code >= 0 && code != c.code {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%v does not match docs/json/%s.schema.json: %v", c.args, c.schema, err)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if s, _ := doc["schema"].(string); s != "verdict."+c.schema+"/v1" {
			t.Errorf("%v: schema %q", c.args, s)
		}
		walkKeys(doc, "", func(path, key string) {
			if !snake.MatchString(key) {
				t.Errorf("%v: key %s.%s is not snake_case", c.args, path, key)
			}
		})
	}
}

// walkKeys calls fn with every object key, except the keys of maps whose
// keys are data (labels, definitions by ID, counts by table).
func walkKeys(v any, path string, fn func(path, key string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			fn(path, k)
			switch k {
			case "labels", "definitions", "counts", "reasons", "fields":
				continue
			}
			walkKeys(e, path+"."+k, fn)
		}
	case []any:
		for _, e := range x {
			walkKeys(e, path+"[]", fn)
		}
	}
}

// locustBundle ingests the hand-made Locust test of ingest/locust (four
// CSVs, one run whose endpoints are a dimension).
func locustBundle(t *testing.T) string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join("..", "..", "ingest", "locust", "testdata", "test", "chat_*.csv"))
	dest := filepath.Join(t.TempDir(), "locust.bundle")
	if code, _, errs := runCLI(t, append([]string{"ingest", "-o", dest}, paths...)...); code != 0 {
		t.Fatalf("ingest: %d %s", code, errs)
	}
	return dest
}
