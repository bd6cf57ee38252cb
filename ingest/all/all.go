// Package all lists every ingest format verdict knows, in the order
// detection considers them.
package all

import (
	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/aiperf"
	"github.com/verdict-llm/verdict/ingest/genaibench"
	"github.com/verdict-llm/verdict/ingest/genaiperf"
	"github.com/verdict-llm/verdict/ingest/guidellm"
	"github.com/verdict-llm/verdict/ingest/inferenceperf"
	"github.com/verdict-llm/verdict/ingest/llmdbr"
	"github.com/verdict-llm/verdict/ingest/llmperf"
	"github.com/verdict-llm/verdict/ingest/locust"
	"github.com/verdict-llm/verdict/ingest/mlperf"
	"github.com/verdict-llm/verdict/ingest/mlperfendpoints"
	"github.com/verdict-llm/verdict/ingest/vllm"
)

// Formats returns the known formats.
func Formats() []ingest.Format {
	return []ingest.Format{
		vllm.Format{},
		genaiperf.Format{},
		aiperf.Format{},
		mlperf.Format{}, guidellm.Format{}, llmperf.Format{}, locust.Format{},
		llmdbr.Format{}, inferenceperf.Format{}, genaibench.Format{}, mlperfendpoints.Format{},
	}
}
