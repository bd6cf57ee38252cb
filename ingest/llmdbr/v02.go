package llmdbr

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/schemas"
)

// v02Throughput maps BR 0.2's throughput keys to fields.
var v02Throughput = []struct{ key, field string }{
	{"input_token_rate", fInTok}, {"output_token_rate", fOutTok},
	{"total_token_rate", fTotTok}, {"request_rate", fReqs},
}

// readV02 reads the 0.2 and 0.2.1 layout: run + scenario + results
// (schema_v0_2.py, schema_v0_2_1.py).
func (r *report) readV02() error {
	r.prefix = schemas.BRAggregate
	run := r.root.Get("run")
	if !run.IsObject() {
		return jtree.ErrorAt(r.in.Path, run, "", "run", "a BR %s report needs a run mapping, found %s", r.version, run.Describe())
	}
	r.runSection(run)
	sc := r.root.Get("scenario")
	if sc.IsNull() {
		// inference-perf's own writer emits partials without a scenario;
		// its file name says which tool and stage they are.
		if stage, ok := stageFromName(r.in.Path); ok {
			r.native = r.version == "0.2.1"
			r.setProducer("inference-perf", "")
			r.label("br.stage", stage)
			r.warn("no scenario: the producer (inference-perf) and stage %s are taken from the file name %s", stage, "inference-perf.partial.stage_"+stage)
		} else {
			r.setProducer("", "")
		}
	} else {
		if t := str(sc.Path("load", "standardized", "tool")); normalizeTool(t) == "inference-perf" {
			r.native = r.version == "0.2.1"
		}
		if err := r.scenarioV02(sc); err != nil {
			return err
		}
	}
	if r.meta != nil {
		if r.meta.Scenario != "" {
			r.run.Scenario = schemas.Scenario(r.meta.Scenario)
		}
		if r.meta.Arrival != "" {
			r.run.Arrival = schemas.Arrival(r.meta.Arrival)
		}
	}
	res := r.root.Get("results")
	if !res.IsObject() {
		return jtree.ErrorAt(r.in.Path, res, "", "results", "a BR %s report needs a results mapping, found %s", r.version, res.Describe())
	}
	if err := r.aggregate(res.Path("request_performance", "aggregate")); err != nil {
		return err
	}
	if res.Path("request_performance", "time_series").IsObject() {
		r.skip("results.request_performance.time_series (per-interval series)")
	}
	for _, k := range []string{"session_performance", "observability", "profiling", "component_health"} {
		if !res.Get(k).IsNull() {
			r.skip("results." + k)
		}
	}
	r.unknownKeys(r.root, "", "version", "run", "scenario", "results")
	r.unknownKeys(res, "results.", "request_performance", "session_performance", "observability", "profiling", "component_health")
	return nil
}

// runSection reads run: IDs, user, description, keywords and the time.
func (r *report) runSection(run *jtree.Node) {
	if str(run.Get("uid")) == "" {
		r.warn("run.uid is missing; BR requires it")
	}
	for _, k := range []string{"uid", "eid", "cid", "pid", "user", "description"} {
		r.label("br.run."+k, str(run.Get(k)))
	}
	var kw []string
	for _, k := range run.Get("keywords").Items() {
		kw = append(kw, str(k))
	}
	r.label("br.run.keywords", strings.Join(kw, ", "))
	t := run.Get("time")
	start, okS := isoTime(t.Get("start"))
	end, okE := isoTime(t.Get("end"))
	if okS && okE && !end.Before(start) {
		// The load generator's wall-clock window of the stage (inference-perf)
		// or of the harness (llm-d-benchmark): not a throughput window.
		r.run.WindowStart, r.run.WindowEnd = schemas.Some(start), schemas.Some(end)
		r.run.ToolDate = str(t.Get("start"))
	} else if okS && okE {
		r.warn("run.time.end is before run.time.start: the window is not used")
	}
	if d := t.Get("duration"); !d.IsNull() {
		s, _ := d.Str()
		secs, ok := isoDuration(s)
		if !ok {
			r.m.Reject(d, "run.time.duration", "expected an ISO-8601 duration such as PT2.5S, found "+d.Describe())
		} else {
			r.label("br.run.time.duration_s", strconv.FormatFloat(secs, 'g', -1, 64))
		}
	}
}

// aggregate reads results.request_performance.aggregate.
func (r *report) aggregate(agg *jtree.Node) error {
	if agg.IsNull() {
		return nil
	}
	if err := r.checkObject(agg, "results.request_performance.aggregate"); err != nil {
		return err
	}
	req := agg.Get("requests")
	if req.IsObject() {
		r.requests(req)
		for _, f := range []string{fISL, fOSL} {
			if err := r.statistics(f, req.Get(trimGroup(f)), schemas.LevelRequest); err != nil {
				return err
			}
		}
		for _, k := range []string{"request_size", "multimodal"} {
			if req.Has(k) {
				r.skip(r.prefix + "requests." + k + " (payload sizes and media have no definition)")
			}
		}
		r.unknownKeys(req, r.prefix+"requests.", "total", "failures", "incomplete", "input_length", "output_length", "request_size", "multimodal")
	}
	lat := agg.Get("latency")
	for _, f := range latencyFields {
		if err := r.statistics(f, lat.Get(trimGroup(f)), schemas.LevelRequest); err != nil {
			return err
		}
	}
	r.unknownKeys(lat, r.prefix+"latency.", "time_to_first_token", "normalized_time_per_output_token", "time_per_output_token", "inter_token_latency", "request_latency")
	thr := agg.Get("throughput")
	for _, t := range v02Throughput {
		if err := r.statistics(t.field, thr.Get(t.key), schemas.LevelRun); err != nil {
			return err
		}
	}
	for _, k := range []string{"image_rate", "video_rate", "audio_rate"} {
		if thr.Has(k) {
			r.skip(r.prefix + "throughput." + k + " (media rates have no definition)")
		}
	}
	r.unknownKeys(thr, r.prefix+"throughput.", "input_token_rate", "output_token_rate", "total_token_rate", "request_rate", "image_rate", "video_rate", "audio_rate")
	r.unknownKeys(agg, r.prefix, "requests", "latency", "throughput")
	return nil
}

var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00"}

// isoTime reads an ISO-8601 date-time; one without a zone is read as UTC.
func isoTime(n *jtree.Node) (time.Time, bool) {
	s, ok := n.Str()
	if !ok || s == "" {
		return time.Time{}, false
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

var isoDur = regexp.MustCompile(`^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$`)

// isoDuration reads an ISO-8601 duration of days, hours, minutes and
// seconds (PT2.200S, PT1H30M): what BR's run.time.duration holds.
func isoDuration(s string) (float64, bool) {
	m := isoDur.FindStringSubmatch(s)
	if m == nil || s == "P" || s == "PT" {
		return 0, false
	}
	total := 0.0
	for i, unit := range []float64{86400, 3600, 60, 1} {
		if m[i+1] == "" {
			continue
		}
		v, err := strconv.ParseFloat(m[i+1], 64)
		if err != nil {
			return 0, false
		}
		total += v * unit
	}
	return total, true
}
