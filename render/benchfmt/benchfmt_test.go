package benchfmt_test

import (
	"bytes"
	"strings"
	"testing"

	xbenchfmt "golang.org/x/perf/benchfmt"

	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/render/benchfmt"
	"github.com/verdict-llm/verdict/schemas"
)

func run(id, model string, ttftP99 float64) benchfmt.Run {
	r := schemas.Run{ID: id, Tool: "vllm", ToolVersion: "2025-01-21+", SourcePath: "results/" + id + ".json\nx",
		Scenario: schemas.ScenarioServer, Arrival: schemas.ArrivalPoisson, RequestRate: schemas.Some(8.0),
		Streaming: schemas.Some(true), Model: model, SUT: schemas.Inventory{GPUModel: "H100", GPUCount: schemas.Some(int64(1))}}
	m := func(id schemas.MetricID, stat string, p, v float64, src string) schemas.Metric {
		row := schemas.Metric{RunID: r.ID, MetricID: id, Stat: stat, Value: schemas.Some(v), Unit: schemas.MustLookup(id).Unit, Source: src}
		if stat == schemas.StatP {
			row.Percentile = schemas.Some(p)
		}
		return row
	}
	return benchfmt.Run{Run: r, Verdict: "valid", Metrics: []schemas.Metric{
		m(schemas.TTFT, schemas.StatMean, 0, 0.05, schemas.SourceReported),
		m(schemas.TTFT, schemas.StatP, 99, ttftP99, schemas.SourceReported),
		m(schemas.TTFT, schemas.StatP, 99.9, ttftP99*2, schemas.SourceReported),
		m(schemas.TTFT, schemas.StatMean, 0, 0.0501, schemas.SourceComputed),
		m(schemas.OutputTokenThroughput, schemas.StatValue, 0, 1000.5, schemas.SourceReported),
		{RunID: r.ID, MetricID: schemas.E2E, Stat: schemas.StatMean, Unit: schemas.UnitSeconds, Source: schemas.SourceReported}, // unknown value: no line
	}}
}

// TestBenchstatReads writes two runs and reads them with benchstat's own
// reader: every line parses, the workload is configuration, each statistic
// is a unit with the value written, and the two runs of one workload share
// names and configuration, so benchstat takes them as two samples.
func TestBenchstatReads(t *testing.T) {
	var buf bytes.Buffer
	if err := benchfmt.Write(&buf, []benchfmt.Run{run("vllm-a", "m", 0.09), run("vllm-b", "m", 0.11)}); err != nil {
		t.Fatal(err)
	}
	ingesttest.Golden(t, "two-runs.txt", buf.Bytes())
	rd := xbenchfmt.NewReader(bytes.NewReader(buf.Bytes()), "two-runs.txt")
	var results []*xbenchfmt.Result
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *xbenchfmt.Result:
			results = append(results, rec.Clone())
		case *xbenchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", rec)
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	if len(results) != 6 { // ttft reported, ttft computed, throughput; twice
		t.Fatalf("%d results, want 6", len(results))
	}
	first := results[0]
	if string(first.Name) != "Metric/id=ttft/source=reported" || first.Iters != 1 {
		t.Errorf("name %q iters %d", first.Name, first.Iters)
	}
	want := map[string]float64{"mean-s": 0.05, "p99-s": 0.09, "p99.9-s": 0.18}
	for _, v := range first.Values {
		if w, ok := want[v.Unit]; !ok || v.Value != w {
			t.Errorf("value %v %s, want %v", v.Value, v.Unit, w)
		}
	}
	if v := results[2].Values[0]; v.Unit != "value-tokens/s" || v.Value != 1000.5 {
		t.Errorf("throughput %+v", v)
	}
	for _, k := range []string{"tool", "scenario", "arrival", "request_rate", "model"} {
		if first.GetConfig(k) == "" || first.GetConfig(k) != results[3].GetConfig(k) {
			t.Errorf("config %s: %q then %q", k, first.GetConfig(k), results[3].GetConfig(k))
		}
	}
	if first.GetConfig("request_rate") != "8" || first.GetConfig("max_concurrency") != "unknown" {
		t.Errorf("config %v", first.Config)
	}
	if string(results[3].Name) != string(first.Name) {
		t.Error("runs of one workload must share benchmark names")
	}
	if strings.Count(buf.String(), "\nx") != 0 {
		t.Error("a newline in untrusted text broke a line")
	}
}
