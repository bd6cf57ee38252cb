package validate_test

import (
	"fmt"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/validate"
)

// Two runs of different tools, both at 10 requests/s: vLLM reports the
// gap between streamed chunks, GenAI-Perf a per-request average over
// answer tokens. Validate refuses to compare them and says why.
func ExampleValidate() {
	run := func(id, tool string, itl schemas.MetricID) *validate.RunData {
		return &validate.RunData{
			Bundle: tool + ".bundle",
			Run: schemas.Run{ID: id, Tool: tool, Scenario: schemas.ScenarioServer, Arrival: schemas.ArrivalPoisson,
				RequestRate: schemas.Some(10.0), Streaming: schemas.Some(true)},
			Metrics: []schemas.Metric{
				{RunID: id, MetricID: itl, Stat: schemas.StatMean, Value: schemas.Some(0.012), Method: "arithmetic"},
			},
		}
	}
	rep, err := validate.Validate([]*validate.RunData{run("v1", "vllm", schemas.ITLChunk), run("g1", "genai-perf", schemas.TPOTAnswer)},
		validate.Options{Compare: true, Rules: []string{"V001", "V002", "V004"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("verdict:", rep.Verdict.Text(), "pass:", rep.Pass)
	for _, f := range rep.Findings {
		fmt.Printf("%s %s %s: %v\n", f.Rule, f.Severity, f.Metric, f.Values)
	}
	// Output:
	// verdict: not comparable pass: false
	// V004-metric-definition error ITL/TPOT: [itl_chunk tpot_answer]
}
