package benchfmt_test

import (
	"os"

	"github.com/verdict-llm/verdict/render/benchfmt"
	"github.com/verdict-llm/verdict/schemas"
)

// Write one run: its workload as configuration, one line per metric.
func ExampleWrite() {
	run := schemas.Run{ID: "vllm-1", Tool: "vllm", ToolVersion: "0.11", SourcePath: "a.json", Scenario: schemas.ScenarioServer,
		Arrival: schemas.ArrivalPoisson, RequestRate: schemas.Some(8.0), Model: "m"}
	ms := []schemas.Metric{
		{RunID: "vllm-1", MetricID: schemas.TTFT, Stat: schemas.StatP, Percentile: schemas.Some(99.0), Value: schemas.Some(0.09), Unit: "s", Source: "reported"},
		{RunID: "vllm-1", MetricID: schemas.TTFT, Stat: schemas.StatMean, Value: schemas.Some(0.05), Unit: "s", Source: "reported"},
	}
	benchfmt.Write(os.Stdout, []benchfmt.Run{{Run: run, Metrics: ms, Verdict: "valid"}})
	// Output:
	// tool: vllm
	// scenario: server
	// arrival: poisson
	// request_rate: 8
	// max_concurrency: unknown
	// burstiness: unknown
	// streaming: unknown
	// model: m
	// # verdict run vllm-1 from a.json (vllm 0.11)
	// # validation: valid
	// BenchmarkMetric/id=ttft/source=reported 1 0.09 p99-s 0.05 mean-s
}
