package validate

import (
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/schemas"
)

func TestSeries(t *testing.T) {
	mk := func(id string, rate float64, engine, method string) *RunData {
		d := &RunData{Run: schemas.Run{ID: id, Tool: "vllm", Scenario: schemas.ScenarioServer, Arrival: schemas.ArrivalPoisson,
			RequestRate: schemas.Some(rate), Streaming: schemas.Some(true), Model: "m",
			SUT: schemas.Inventory{Model: "m", Engine: "vllm", EngineVersion: engine, GPUModel: "H100"}}}
		d.Metrics = []schemas.Metric{{RunID: id, MetricID: schemas.TTFT, Stat: schemas.StatP, Percentile: schemas.Some(99.0),
			Value: schemas.Some(0.1), Method: method, Source: schemas.SourceReported}}
		return d
	}
	runs := []*RunData{mk("a", 10, "0.9", "linear"), mk("b", 10, "0.10", "linear"), mk("c", 20, "0.9", "linear"),
		mk("d", 10, "0.9", "nearest_rank"), mk("e", 10, "0.9", "linear")}
	// Without Vary the engine version splits the series.
	got, err := Series(runs, SeriesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d series", len(got))
	}
	got, err = Series(runs, SeriesOptions{Vary: []string{"engine_version"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0].Runs) != 3 || len(got[0].Excluded) != 1 || got[0].Excluded[0].Run.Run.ID != "d" ||
		got[0].Excluded[0].Findings[0].Rule != "V005-percentile-method" {
		t.Fatalf("series %+v", got)
	}
	if !strings.Contains(got[1].Name, "20 req/s") || got[0].Name == got[1].Name {
		t.Errorf("names %q, %q", got[0].Name, got[1].Name)
	}
	if _, err := Series(runs, SeriesOptions{Vary: []string{"colour"}}); err == nil {
		t.Error("unknown field accepted")
	}
}
