// Package br writes a run as an llm-d Benchmark Report v0.2.1
// (docs/formats/llmd-br.md), so that BR's consumers (llm-d-benchmark's
// analysis, llm-d-prism) read verdict's results, and verdict's own reader
// reads them back with the same definitions.
//
// It formats a finished model: the run, its metric rows and, when the
// caller validated it, its validation verdict. It opens no bundle.
//
// BR names fields, not definitions. Each field is filled from the first
// definition the run has among those the crosswalk lists for it
// (schemas.StandardFor), and what was written is recorded in a generic
// stack component labelled "verdict" (schemas.BRMeta): the definition and
// method behind every field, the definitions BR has no field for, the
// run's version flags, labels and inventory, and the validation verdict.
// Values are written in the units BR requires: s, s/token, count, tokens/s
// and queries/s. Percentiles BR has no key for (p80, p97) are not written
// and are named in the returned notes.
package br

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/schemas"
)

// Version is the BR version written.
const Version = "0.2.1"

// Run is one run to write.
type Run struct {
	Run        schemas.Run
	Metrics    []schemas.Metric
	Validation *schemas.BRValidation // nil when not validated
	// VerdictVersion is recorded in the report.
	VerdictVersion string
}

// A field is one BR field and the units it is written in.
type field struct {
	name  string // relative to the aggregate, e.g. "latency.time_to_first_token"
	units string
	run   bool // a run-level rate
}

var fields = []field{
	{schemas.BRInputLength, "count", false}, {schemas.BROutputLength, "count", false},
	{schemas.BRTTFT, "s", false}, {schemas.BRNTPOT, "s/token", false}, {schemas.BRTPOT, "s/token", false},
	{schemas.BRITL, "s/token", false}, {schemas.BRRequestLat, "s", false},
	{schemas.BRInputRate, "tokens/s", true}, {schemas.BROutputRate, "tokens/s", true},
	{schemas.BRTotalRate, "tokens/s", true}, {schemas.BRRequestRate, "queries/s", true},
}

// Write writes r as one BR v0.2.1 JSON document and returns notes on what
// could not be written.
func Write(w io.Writer, r Run) ([]string, error) {
	doc, notes := Document(r)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	_, err := w.Write(buf.Bytes())
	return notes, err
}

// Document builds the report of r as an ordered JSON object.
func Document(r Run) (Object, []string) {
	b := &builder{r: r, meta: schemas.BRMeta{Schema: schemas.BRMetaSchema, VerdictVersion: r.VerdictVersion,
		RunID: r.Run.ID, Tool: r.Run.Tool, ToolVersion: r.Run.ToolVersion, Format: r.Run.Format,
		Scenario: string(r.Run.Scenario), Arrival: string(r.Run.Arrival),
		Definitions: map[string]schemas.BRField{}, Flags: r.Run.Flags, Validation: r.Validation}}
	if len(r.Run.Labels) > 0 {
		b.meta.Labels = maps.Clone(r.Run.Labels)
	}
	if r.Run.DurationS.OK {
		b.meta.Window = map[string]float64{"duration_s": r.Run.DurationS.V}
	}
	agg := b.aggregate()
	b.notWritten()
	doc := Object{
		{"version", Version},
		{"run", b.run()},
		{"scenario", b.scenario()},
		{"results", Object{{"request_performance", Object{{"aggregate", agg}}}}},
	}
	return doc, b.notes
}

type builder struct {
	r       Run
	meta    schemas.BRMeta
	notes   []string
	written map[schemas.MetricID]bool
	mean    map[string]float64 // field -> mean written
}

func (b *builder) note(format string, args ...any) {
	b.notes = append(b.notes, fmt.Sprintf(format, args...))
}

// rowsOf returns the run's rows of one definition, reported rows first
// choice: a field holds one source.
func (b *builder) rowsOf(id schemas.MetricID) ([]schemas.Metric, string) {
	var rep, comp []schemas.Metric
	for _, m := range b.r.Metrics {
		if m.MetricID != id || !m.Value.OK || math.IsNaN(m.Value.V) || math.IsInf(m.Value.V, 0) {
			continue
		}
		if m.Source == schemas.SourceComputed {
			comp = append(comp, m)
		} else {
			rep = append(rep, m)
		}
	}
	if len(rep) > 0 {
		return rep, schemas.SourceReported
	}
	return comp, schemas.SourceComputed
}

// aggregate fills results.request_performance.aggregate.
func (b *builder) aggregate() Object {
	b.written, b.mean = map[schemas.MetricID]bool{}, map[string]float64{}
	groups := map[string]Object{}
	for _, f := range fields {
		st, ok := b.statistics(f)
		if !ok {
			continue
		}
		group, key, _ := strings.Cut(f.name, ".")
		groups[group] = append(groups[group], Member{key, st})
	}
	var agg Object
	req := Object{}
	if total, ok := b.total(); ok {
		req = append(req, Member{"total", total})
		run := b.r.Run
		if run.Failed.OK {
			req = append(req, Member{"failures", run.Failed.V})
			// Requests sent that neither completed nor failed.
			if run.Completed.OK && total-run.Failed.V-run.Completed.V > 0 {
				req = append(req, Member{"incomplete", total - run.Failed.V - run.Completed.V})
			}
		}
		req = append(req, groups["requests"]...)
		agg = append(agg, Member{"requests", req})
	} else if len(groups["requests"]) > 0 {
		b.note("requests: the number of requests sent is unknown, and BR requires it: input and output lengths are not written")
	}
	for _, g := range []string{"latency", "throughput"} {
		if len(groups[g]) > 0 {
			agg = append(agg, Member{g, groups[g]})
		}
	}
	return agg
}

func (b *builder) total() (int64, bool) {
	run := b.r.Run
	switch {
	case run.NumPrompts.OK:
		return run.NumPrompts.V, true
	case run.Completed.OK && run.Failed.OK:
		return run.Completed.V + run.Failed.V, true
	}
	return 0, false
}

// statistics builds one field's Statistics from the first definition the
// run has among the field's crosswalk entries.
func (b *builder) statistics(f field) (Object, bool) {
	for _, cand := range schemas.StandardFor(schemas.StandardBR, schemas.BRAggregate+f.name) {
		ms, source := b.rowsOf(cand.Metric)
		if len(ms) == 0 {
			continue
		}
		st, def, ok := b.fromRows(f, ms)
		if !ok {
			b.note("%s: %s has no mean or single value, which BR requires; not written", f.name, cand.Metric)
			continue
		}
		def.Metric, def.Source = cand.Metric, source
		b.meta.Definitions[f.name] = def
		b.written[cand.Metric] = true
		if cand.Match != schemas.MatchSame {
			b.note("%s holds %s (%s)", f.name, cand.Metric, cand.Note)
		}
		return st, true
	}
	return nil, false
}

// fromRows turns one definition's rows into a Statistics object.
func (b *builder) fromRows(f field, ms []schemas.Metric) (Object, schemas.BRField, bool) {
	var def schemas.BRField
	vals := map[string]float64{}
	for _, m := range ms {
		switch m.Stat {
		case schemas.StatMean, schemas.StatValue:
			vals["mean"] = m.Value.V
		case schemas.StatStd:
			if m.Value.V >= 0 {
				vals["stddev"], def.Std = m.Value.V, m.Method
			}
		case schemas.StatMin, schemas.StatMax:
			vals[m.Stat] = m.Value.V
		case schemas.StatMedian:
			if _, ok := vals["p50"]; !ok {
				vals["p50"] = m.Value.V
			}
		case schemas.StatP:
			key, ok := schemas.BRPercentileKey(m.Percentile.V)
			if !ok {
				b.note("%s: %s p%g has no BR key; not written", f.name, m.MetricID, m.Percentile.V)
				continue
			}
			vals[key], def.Percentile = m.Value.V, m.Method
		}
	}
	mean, ok := vals["mean"]
	if !ok {
		return nil, def, false
	}
	b.mean[f.name] = mean
	st := Object{{"units", f.units}, {"mean", mean}}
	for _, k := range schemas.BRStatOrder {
		if v, ok := vals[k]; ok && k != "mean" {
			st = append(st, Member{k, v})
		}
	}
	return st, def, true
}

// notWritten lists the run's definitions that found no field.
func (b *builder) notWritten() {
	seen := map[schemas.MetricID]bool{}
	for _, m := range b.r.Metrics {
		if !b.written[m.MetricID] && !seen[m.MetricID] {
			seen[m.MetricID] = true
			b.meta.NotWritten = append(b.meta.NotWritten, m.MetricID)
		}
	}
	slices.Sort(b.meta.NotWritten)
}

// run fills the run section; uid is verdict's run ID.
func (b *builder) run() Object {
	run := b.r.Run
	out := Object{{"uid", run.ID}}
	for _, k := range []string{"eid", "cid", "pid", "user", "description"} {
		if v := run.Labels["br.run."+k]; v != "" {
			out = append(out, Member{k, v})
		}
	}
	var t Object
	if run.WindowStart.OK {
		t = append(t, Member{"start", run.WindowStart.V.UTC().Format(time.RFC3339Nano)})
	}
	if run.WindowEnd.OK {
		t = append(t, Member{"end", run.WindowEnd.V.UTC().Format(time.RFC3339Nano)})
	}
	switch {
	case run.DurationS.OK:
		t = append(t, Member{"duration", isoDuration(run.DurationS.V)})
	case run.WindowStart.OK && run.WindowEnd.OK:
		t = append(t, Member{"duration", isoDuration(run.WindowEnd.V.Sub(run.WindowStart.V).Seconds())})
	}
	if len(t) > 0 {
		out = append(out, Member{"time", t})
	}
	return out
}

func isoDuration(s float64) string { return "PT" + strconv.FormatFloat(s, 'f', -1, 64) + "S" }

// cfgID is a content hash, as BR's cfg_id fields are.
func cfgID(v any) string {
	data, _ := json.Marshal(v)
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:16])
}
