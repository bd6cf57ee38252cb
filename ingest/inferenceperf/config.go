package inferenceperf

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/schemas"
)

// Settings are what an inference-perf config says about one stage of a run
// (docs/formats/inference-perf.md section 1): the arrival process and
// rate or concurrency of the stage, the API and server, the tokenizer.
// The llm-d Benchmark Report embeds the same config (scenario.load.args in
// 0.1, scenario.load.native.config in 0.2), so ingest/llmdbr reads it here
// too.
type Settings struct {
	Scenario    schemas.Scenario
	Arrival     schemas.Arrival
	Rate        schemas.Opt[float64]
	Concurrency schemas.Opt[int64]
	Streaming   schemas.Opt[bool]
	Backend     string // server.type, e.g. "vllm"
	Endpoint    string // api.type, e.g. "completion"
	BaseURL     string // without credentials
	Model       string
	Tokenizer   string
	// ServerTokens is true when use_server_output_tokens is set: output
	// token counts are the server's, not the client tokenizer's.
	ServerTokens bool
	Stages       int
	Labels       map[string]string
}

// ConfigSettings reads a config tree for the given stage (-1 when the
// stage is unknown or the settings are for the whole run). It never fails:
// a config that says less gives fewer settings.
func ConfigSettings(cfg *jtree.Node, stage int) Settings {
	s := Settings{Scenario: schemas.ScenarioUnknown, Arrival: schemas.ArrivalUnknown, Labels: map[string]string{}}
	if !cfg.IsObject() {
		return s
	}
	api := cfg.Get("api")
	if b, ok := api.Get("streaming").Bool(); ok {
		s.Streaming = schemas.Some(b)
	}
	s.Endpoint, _ = api.Get("type").Str()
	srv := cfg.Get("server")
	s.Backend, _ = srv.Get("type").Str()
	s.Model, _ = srv.Get("model_name").Str()
	if u, ok := srv.Get("base_url").Str(); ok {
		s.BaseURL = StripCredentials(u)
	}
	if b, ok := srv.Get("ignore_eos").Bool(); ok {
		s.Labels["inference_perf.ignore_eos"] = strconv.FormatBool(b)
	}
	s.Tokenizer, _ = cfg.Path("tokenizer", "pretrained_model_name_or_path").Str()
	for _, n := range []*jtree.Node{cfg.Path("report", "request_lifecycle", "use_server_output_tokens"), srv.Get("use_server_output_tokens")} {
		if b, ok := n.Bool(); ok && b {
			s.ServerTokens = true
		}
	}
	if t, ok := cfg.Path("data", "type").Str(); ok {
		s.Labels["inference_perf.data.type"] = t
	}
	s.load(cfg.Get("load"), stage)
	return s
}

func (s *Settings) load(load *jtree.Node, stage int) {
	typ, _ := load.Get("type").Str()
	if typ != "" {
		s.Labels["inference_perf.load.type"] = typ
	}
	switch typ {
	case "constant":
		s.Arrival, s.Scenario = schemas.ArrivalConstant, schemas.ScenarioServer
	case "poisson":
		s.Arrival, s.Scenario = schemas.ArrivalPoisson, schemas.ScenarioServer
	case "concurrent":
		s.Arrival, s.Scenario = schemas.ArrivalClosedLoop, schemas.ScenarioConcurrency
	}
	if sw := load.Get("sweep"); sw.IsObject() {
		if t, ok := sw.Get("type").Str(); ok {
			s.Labels["inference_perf.load.sweep"] = t
		}
	}
	stages := load.Get("stages").Items()
	s.Stages = len(stages)
	if stage < 0 || stage >= len(stages) {
		return
	}
	st := stages[stage]
	if r, ok := st.Get("rate").Float(); ok && r > 0 && !math.IsInf(r, 0) {
		s.Rate = schemas.Some(r)
	}
	if c, ok := st.Get("concurrency_level").Int(); ok && c > 0 {
		s.Concurrency = schemas.Some(c)
		s.Scenario, s.Arrival = schemas.ScenarioConcurrency, schemas.ArrivalClosedLoop
	}
	if d, ok := st.Get("duration").Float(); ok {
		s.Labels["inference_perf.stage_duration_s"] = strconv.FormatFloat(d, 'g', -1, 64)
	}
}

// StripCredentials drops user information and the query from a URL, so
// that an API key written into a base URL never reaches the bundle.
func StripCredentials(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		if i := strings.IndexAny(raw, "?#"); i >= 0 {
			raw = raw[:i]
		}
		return raw
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// Describe renders the settings as one line for a warning or a label.
func (s Settings) Describe() string {
	parts := []string{string(s.Scenario), string(s.Arrival)}
	if s.Rate.OK {
		parts = append(parts, fmt.Sprintf("%g req/s", s.Rate.V))
	}
	if s.Concurrency.OK {
		parts = append(parts, fmt.Sprintf("concurrency %d", s.Concurrency.V))
	}
	return strings.Join(parts, ", ")
}
