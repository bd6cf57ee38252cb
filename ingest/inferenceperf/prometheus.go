package inferenceperf

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/ingest/internal/rows"
	"github.com/verdict-llm/verdict/schemas"
)

// A prom is a Prometheus summary being read: what the server's own
// histograms and counters said over the benchmark (summarize_prometheus
// _metrics). It covers every client of the server, not just this
// benchmark, and its percentiles are estimated from histogram buckets.
type prom struct {
	in      *ingest.Input
	sink    ingest.Sink
	run     schemas.Run
	m       rows.Metrics
	skipped []string
}

func newProm(in *ingest.Input, sink ingest.Sink, info fileInfo) *prom {
	id := ingest.RunID("inference-perf", in.SHA256(), 0)
	p := &prom{in: in, sink: sink, m: rows.Metrics{Sink: sink, RunID: id, Record: "prometheus summary", Path: in.Path},
		run: schemas.Run{ID: id, Tool: "inference-perf", ToolVersion: "any (Prometheus summary)", Format: kindPrometheus,
			SourcePath: in.Path, SourceSHA256: in.SHA256(), Scenario: schemas.ScenarioUnknown, Arrival: schemas.ArrivalUnknown,
			Flags: []string{"server_side_metrics"}, Labels: map[string]string{"inference_perf.stage": "all"}}}
	if info.stage >= 0 {
		p.run.Labels["inference_perf.stage"] = strconv.Itoa(info.stage)
	}
	return p
}

// promHistograms are the server histograms and what they measure.
var promHistograms = map[string]schemas.MetricID{
	"time_to_first_token": schemas.ServerTTFT, "time_per_output_token": schemas.ServerTPOT, "request_latency": schemas.ServerE2E,
}

const histNote = "estimated by Prometheus from the server's histogram buckets"

func (p *prom) read(root *jtree.Node) error {
	succ := root.Get("successes")
	if !succ.IsObject() {
		return jtree.ErrorAt(p.in.Path, succ, "prometheus summary", "successes", "expected an object, found %s", succ.Describe())
	}
	if c, ok := succ.Get("count").Int(); ok && c >= 0 {
		p.run.Labels["server.requests_total"] = strconv.FormatInt(c, 10)
	}
	for _, mem := range succ.Fields() {
		key := "successes." + mem.Key
		switch {
		case mem.Key == "count":
		case mem.Key == "rate":
			if err := p.m.Value(schemas.ServerRequestThroughput, mem.Val, key, ""); err != nil {
				return err
			}
		case mem.Key == "prompt_len" || mem.Key == "output_len":
			if err := p.tokens(mem.Key, mem.Val); err != nil {
				return err
			}
		case promHistograms[mem.Key] != "":
			if err := p.m.Dist(promHistograms[mem.Key], mem.Val, key, rows.DistOptions{Note: histNote}); err != nil {
				return err
			}
		default:
			p.skipped = append(p.skipped, key)
		}
	}
	if len(p.skipped) > 0 {
		p.sink.Warn(fmt.Sprintf("%s: server metrics without a definition, not ingested: %s", p.in.Path, strings.Join(p.skipped, ", ")))
	}
	return nil
}

// tokens reads {mean, rate} of prompt or output tokens: the rate is the
// server's token throughput; a mean of 0 is the summary's "no data".
func (p *prom) tokens(key string, n *jtree.Node) error {
	id := schemas.ServerInputTokenThroughput
	if key == "output_len" {
		id = schemas.ServerOutputTokenThroughput
	}
	if err := p.m.Value(id, n.Get("rate"), "successes."+key+".rate", ""); err != nil {
		return err
	}
	if mean, ok := n.Get("mean").Float(); ok && mean != 0 {
		p.run.Labels["server."+key+".mean"] = strconv.FormatFloat(mean, 'g', -1, 64)
	}
	return nil
}
