package br_test

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/verdict-llm/verdict/render/br"
	"github.com/verdict-llm/verdict/schemas"
)

// Write a run's TTFT as a Benchmark Report: the field holds verdict's ttft,
// in seconds, and the verdict component says so.
func ExampleWrite() {
	run := schemas.Run{ID: "vllm-1", Tool: "vllm", NumPrompts: schemas.Some(int64(10))}
	ms := []schemas.Metric{{RunID: "vllm-1", MetricID: schemas.TTFT, Stat: schemas.StatMean, Value: schemas.Some(0.05), Unit: schemas.UnitSeconds}}
	var buf bytes.Buffer
	if _, err := br.Write(&buf, br.Run{Run: run, Metrics: ms}); err != nil {
		panic(err)
	}
	var doc struct {
		Version string
		Results struct {
			RequestPerformance struct {
				Aggregate struct {
					Latency struct {
						TTFT map[string]any `json:"time_to_first_token"`
					}
				}
			} `json:"request_performance"`
		}
	}
	json.Unmarshal(buf.Bytes(), &doc)
	fmt.Println(doc.Version, doc.Results.RequestPerformance.Aggregate.Latency.TTFT)
	// Output: 0.2.1 map[mean:0.05 units:s]
}
