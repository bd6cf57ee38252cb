package llmdbr

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/ingest/internal/rows"
	"github.com/verdict-llm/verdict/schemas"
)

// Latency fields, by their name under latency (both layouts).
var latencyFields = []string{fTTFT, fNTPOT, fTPOT, fITL, fE2E}

// v01Throughput maps BR 0.1's bare-number throughput keys to fields.
var v01Throughput = []struct{ key, field string }{
	{"input_tokens_per_sec", fInTok}, {"output_tokens_per_sec", fOutTok},
	{"total_tokens_per_sec", fTotTok}, {"requests_per_sec", fReqs},
}

// readV01 reads the 0.1 layout: scenario + metrics (schema_v0_1.py).
func (r *report) readV01() error {
	r.prefix = "metrics."
	if err := r.scenarioV01(r.root.Get("scenario")); err != nil {
		return err
	}
	met := r.root.Get("metrics")
	if !met.IsObject() {
		return jtree.ErrorAt(r.in.Path, met, "", "metrics", "a BR 0.1 report needs a metrics mapping, found %s", met.Describe())
	}
	lat := met.Get("latency")
	for _, f := range latencyFields {
		if err := r.statistics(f, lat.Get(trimGroup(f)), schemas.LevelRequest); err != nil {
			return err
		}
	}
	req := met.Get("requests")
	r.requests(req)
	for _, f := range []string{fISL, fOSL} {
		if err := r.statistics(f, req.Get(trimGroup(f)), schemas.LevelRequest); err != nil {
			return err
		}
	}
	thr := met.Get("throughput")
	for _, t := range v01Throughput {
		if err := r.rate(t.field, thr.Get(t.key), "metrics.throughput."+t.key); err != nil {
			return err
		}
	}
	if err := r.timeV01(met.Get("time")); err != nil {
		return err
	}
	for _, k := range []string{"service", "resources"} {
		if met.Has(k) {
			r.skip("metrics." + k + " (server and hardware statistics without a definition)")
		}
	}
	r.unknownKeys(r.root, "", "version", "scenario", "metrics", "metadata")
	r.unknownKeys(met, "metrics.", "time", "requests", "latency", "throughput", "service", "resources")
	return nil
}

// trimGroup drops the group ("latency.") from a field name.
func trimGroup(field string) string {
	for i := range len(field) {
		if field[i] == '.' {
			return field[i+1:]
		}
	}
	return field
}

// timeV01 reads metrics.time. Its duration is what the converter put
// there: for inference-perf, load_summary.send_duration, the span of the
// send times (native_to_br0_1.py), which is stored as send_span; the
// throughput window is a different span, so it is never the run's
// duration.
func (r *report) timeV01(t *jtree.Node) error {
	if t.IsNull() {
		return nil
	}
	if d := t.Get("duration"); !d.IsNull() {
		v, ok := r.m.Number(d, "metrics.time.duration")
		switch {
		case !ok:
		case v < 0:
			r.m.Reject(d, "metrics.time.duration", "a duration cannot be negative")
		case r.producer == "inference-perf" && r.meta == nil:
			r.flag("br_v01_duration_is_send_span")
			if err := r.m.Add(rows.Row{ID: schemas.SendSpan, Stat: schemas.StatValue, Value: schemas.Some(v), Native: "metrics.time.duration",
				Note: "inference-perf's load_summary.send_duration: first to last send, not the throughput window"}); err != nil {
				return err
			}
		default:
			r.label("br.metrics.time.duration_s", strconv.FormatFloat(v, 'g', -1, 64))
			r.warn("metrics.time.duration (%g s) is kept as a label: BR 0.1 does not say which span it is, and for %s verdict does not know", v, orUnnamed(r.producer))
		}
	}
	start, okS := epoch(t.Get("start"))
	stop, okE := epoch(t.Get("stop"))
	switch {
	case okS && okE && !stop.Before(start):
		r.run.WindowStart, r.run.WindowEnd = schemas.Some(start), schemas.Some(stop)
	case okS && okE:
		r.warn("metrics.time.stop (%s) is before metrics.time.start (%s): the window is not used", stop.Format(time.RFC3339Nano), start.Format(time.RFC3339Nano))
	}
	return nil
}

func orUnnamed(p string) string {
	if p == "" {
		return "an unnamed producer"
	}
	return p
}

// epoch reads Unix seconds (BR 0.1 "UTC seconds from epoch").
func epoch(n *jtree.Node) (time.Time, bool) {
	v, ok := n.Float()
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return time.Time{}, false
	}
	return schemas.UnixSeconds(v)
}

// unknownKeys warns about members of n not in known: BR 0.2 forbids extra
// keys, so a member verdict does not know is a typo or a newer version.
func (r *report) unknownKeys(n *jtree.Node, prefix string, known ...string) {
	for _, m := range n.Fields() {
		ok := false
		for _, k := range known {
			if m.Key == k {
				ok = true
				break
			}
		}
		if !ok {
			r.warn("%d:%d: %s%s is not a BR %s key; not ingested", m.KeyPos.Line, m.KeyPos.Col, prefix, m.Key, r.version)
		}
	}
}

// checkObject returns an error when n is present and not a mapping.
func (r *report) checkObject(n *jtree.Node, field string) error {
	if n != nil && !n.IsNull() && !n.IsObject() {
		return &ingest.Error{File: r.in.Path, Line: n.Pos.Line, Column: n.Pos.Col, Field: field, Err: fmt.Errorf("expected a mapping, found %s", n.Describe())}
	}
	return nil
}
