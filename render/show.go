package render

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/schemas"
)

// Unknown is how every renderer shows a value the sources did not give.
const Unknown = "unknown"

// WriteShow writes `verdict show` of a bundle; JSON is the verdict.show/v1
// document.
func WriteShow(w io.Writer, d *analysis.ShowData, f Format) error {
	if f == JSON {
		return WriteJSON(w, struct {
			Schema      string                                 `json:"schema"`
			Bundle      string                                 `json:"bundle"`
			Manifest    schemas.Manifest                       `json:"manifest"`
			Runs        []schemas.Run                          `json:"runs"`
			Metrics     []schemas.Metric                       `json:"metrics"`
			Definitions map[schemas.MetricID]schemas.MetricDef `json:"definitions"`
		}{analysis.ShowSchema, d.Bundle, d.Manifest, nonNil(d.Runs), nonNil(d.Metrics), d.Definitions})
	}
	return Write(w, f, ShowTables(d))
}

func optF(o schemas.Opt[float64], unit string) Cell {
	if !o.OK {
		return T(Unknown)
	}
	return N(Quantity(o.V, unit), o.V)
}

func optI(o schemas.Opt[int64]) Cell {
	if !o.OK {
		return T(Unknown)
	}
	return N(strconv.FormatInt(o.V, 10), o.V)
}

func optB(o schemas.Opt[bool]) Cell {
	switch {
	case !o.OK:
		return T(Unknown)
	case o.V:
		return Cell{Text: "yes", Value: true}
	}
	return Cell{Text: "no", Value: false}
}

func orUnknown(s string) string {
	if s == "" {
		return Unknown
	}
	return s
}

// RateCell shows a request rate, with +Inf as "inf".
func RateCell(o schemas.Opt[float64]) Cell {
	if !o.OK {
		return T(Unknown)
	}
	if math.IsInf(o.V, 1) {
		return Cell{Text: "inf", Value: "inf", Right: true}
	}
	return N(Sig(o.V, 4)+" req/s", o.V)
}

// ConcurrencyCell shows a client concurrency limit; 0 means none.
func ConcurrencyCell(o schemas.Opt[int64]) Cell {
	if !o.OK {
		return T(Unknown)
	}
	if o.V == 0 {
		return Cell{Text: "none", Value: int64(0), Right: true}
	}
	return optI(o)
}

// ShowTables builds the text tables of `verdict show`.
func ShowTables(d *analysis.ShowData) []*Table {
	var out []*Table
	runs := &Table{Title: "Runs", Columns: []string{"run", "tool", "format", "scenario", "arrival", "rate", "max conc.", "streaming", "model", "completed", "failed", "duration"}}
	for _, r := range d.Runs {
		runs.AddRow(T(r.ID), T(r.Tool), T(r.Format), T(string(r.Scenario)), T(string(r.Arrival)), RateCell(r.RequestRate),
			ConcurrencyCell(r.MaxConcurrency), optB(r.Streaming), T(orUnknown(r.Model)), optI(r.Completed), optI(r.Failed),
			optF(r.DurationS, schemas.UnitSeconds))
	}
	out = append(out, runs)

	byRun := map[string][]schemas.Metric{}
	for _, m := range d.Metrics {
		byRun[m.RunID] = append(byRun[m.RunID], m)
	}
	for _, r := range d.Runs {
		out = append(out, RunDetails(r))
		var whole, parts []schemas.Metric
		for _, m := range byRun[r.ID] {
			if m.Dimension == "" {
				whole = append(whole, m)
			} else {
				parts = append(parts, m)
			}
		}
		if len(whole) > 0 {
			out = append(out, MetricsTable("Metrics of "+r.ID, whole))
		}
		if len(parts) > 0 {
			out = append(out, DimensionMetricsTable("Metrics of parts of "+r.ID, parts))
		}
	}

	defs := &Table{Title: "Definitions of the metrics above", Columns: []string{"metric", "name", "unit", "level", "definition"}}
	for _, id := range slices.Sorted(maps.Keys(d.Definitions)) {
		def := d.Definitions[id]
		defs.AddRow(T(string(id)), T(def.Name), T(def.Unit), T(string(def.Level)), T(def.Summary()))
	}
	defs.Notes = []string{"`verdict schema` prints every definition in full, with the tools that report each metric."}
	out = append(out, defs)

	out = append(out, SourcesTable(d.Manifest))
	return out
}

// RunDetails lists a run's provenance, load settings, labels, flags and
// system-under-test inventory, with unknowns shown as unknown.
func RunDetails(r schemas.Run) *Table {
	t := &Table{Title: "Run " + r.ID, Columns: []string{"field", "value"}}
	add := func(k, v string) { t.AddRow(T(k), T(orUnknown(v))) }
	add("source", fmt.Sprintf("%s (object %d)", r.SourcePath, r.SourceRecord))
	add("source SHA-256", r.SourceSHA256)
	if len(r.SourceFiles) > 0 {
		add("source files", strings.Join(r.SourceFiles, ", "))
	}
	add("tool version", r.ToolVersion)
	add("tool date", r.ToolDate)
	add("backend", r.Backend)
	add("endpoint", r.Endpoint)
	add("tokenizer", r.Tokenizer)
	add("num prompts", optText(optI(r.NumPrompts)))
	add("burstiness", optText(optF(r.Burstiness, "")))
	if r.RampUp != "" {
		add("ramp-up", r.RampUp)
	}
	add("window", windowText(r))
	add("token source", r.TokenSource)
	flags := strings.Join(r.Flags, ", ")
	if flags == "" {
		flags = "none"
	}
	add("flags", flags)
	for _, k := range slices.Sorted(maps.Keys(r.Labels)) {
		t.AddRow(T("label "+k), T(r.Labels[k]))
	}
	known := 0
	for _, f := range r.SUT.Fields() {
		if f[1] != "" {
			known++
		}
	}
	if known == 0 {
		add("system under test", "unknown: no inventory was supplied (verdict ingest --sut FILE)")
		return t
	}
	for _, f := range r.SUT.Fields() {
		add("sut: "+f[0], f[1])
	}
	return t
}

func optText(c Cell) string { return c.Text }

func windowText(r schemas.Run) string {
	kind := map[string]string{
		schemas.WindowKindDispatch: schemas.WindowDispatch,
		schemas.WindowKindSpan:     schemas.WindowSpan,
		schemas.WindowKindEngine:   schemas.WindowEngine,
	}[r.WindowKind]
	if kind == "" {
		return ""
	}
	s := kind
	if r.WindowStart.OK && r.WindowEnd.OK {
		s += fmt.Sprintf(", %s to %s", r.WindowStart.V.Format("2006-01-02T15:04:05.000Z07:00"), r.WindowEnd.V.Format("15:04:05.000"))
	}
	return s
}

// MetricsTable lists metric rows: value with unit, method and provenance.
func MetricsTable(title string, ms []schemas.Metric) *Table {
	t := &Table{Title: title, Columns: []string{"metric", "stat", "value", "method", "source", "native name", "note"}}
	for _, m := range ms {
		stat := m.Stat
		if m.Stat == schemas.StatP && m.Percentile.OK {
			stat = "p" + strconv.FormatFloat(m.Percentile.V, 'g', -1, 64)
		}
		val := T(Unknown)
		if m.Value.OK {
			val = N(Quantity(m.Value.V, m.Unit), m.Value.V)
		}
		t.AddRow(T(string(m.MetricID)), T(stat), val, T(m.Method), T(m.Source), T(m.NativeName), T(m.Note))
	}
	return t
}

// DimensionMetricsTable lists metric rows of parts of a run (one
// endpoint, say), with the part they cover first.
func DimensionMetricsTable(title string, ms []schemas.Metric) *Table {
	t := MetricsTable(title, ms)
	t.Columns = append([]string{"part"}, t.Columns...)
	for i := range t.Rows {
		t.Rows[i] = append([]Cell{T(ms[i].Dimension)}, t.Rows[i]...)
	}
	return t
}

// SourcesTable accounts for every input of a bundle.
func SourcesTable(m schemas.Manifest) *Table {
	t := &Table{Title: "Sources", Columns: []string{"path", "format", "tool version", "runs", "requests read", "ingested", "rejected", "metric rows read", "rejected "}}
	for _, s := range m.Sources {
		rq, mt := s.Counts[schemas.TableRequests], s.Counts[schemas.TableMetrics]
		t.AddRow(T(s.Path), T(s.Format), T(orUnknown(s.ToolVersion)), N(strconv.Itoa(len(s.Runs)), len(s.Runs)),
			N(strconv.FormatInt(rq.Read, 10), rq.Read), N(strconv.FormatInt(rq.Ingested, 10), rq.Ingested), N(strconv.FormatInt(rq.Rejected, 10), rq.Rejected),
			N(strconv.FormatInt(mt.Read, 10), mt.Read), N(strconv.FormatInt(mt.Rejected, 10), mt.Rejected))
		if len(s.Files) > 1 {
			names := make([]string, len(s.Files))
			for i, f := range s.Files {
				names[i] = f.Path
			}
			t.Notes = append(t.Notes, fmt.Sprintf("%s: one run written as %d files: %s", s.Path, len(s.Files), strings.Join(names, ", ")))
		}
		for _, w := range s.Warnings {
			t.Notes = append(t.Notes, "warning: "+s.Path+": "+w)
		}
		for _, r := range s.Rejections {
			t.Notes = append(t.Notes, "rejected: "+s.Path+": "+r.String())
		}
		if s.RejectionsOmitted > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("rejected: %s: %d more (see manifest.json counts by reason)", s.Path, s.RejectionsOmitted))
		}
	}
	return t
}

// SchemaTables describes every metric definition of the registry.
func SchemaTables() []*Table {
	var out []*Table
	for _, d := range schemas.Registry() {
		t := &Table{Title: string(d.ID) + ": " + d.Name, Columns: []string{"field", "value"}}
		add := func(k, v string) {
			if v != "" {
				t.AddRow(T(k), T(v))
			}
		}
		add("unit", d.Unit)
		add("level", string(d.Level))
		add("from", d.From)
		add("to", d.To)
		add("formula", d.Formula)
		add("population", d.Population)
		add("numerator", d.Numerator)
		add("denominator", d.Denominator)
		add("window", d.Window)
		add("better", string(d.Direction))
		add("description", d.Description)
		for _, n := range d.Reported {
			v := n.Names + " (" + n.Versions + ")"
			if n.Note != "" {
				v += ": " + n.Note
			}
			add("reported by "+n.Tool, v)
		}
		for _, st := range d.Standards {
			add("in "+st.Standard, standardText(st))
		}
		out = append(out, t)
	}
	return out
}

// SchemaSchema is the "schema" value of `verdict schema --format json`.
const SchemaSchema = "verdict.schema/v1"

// Schema writes the metric registry; JSON is the verdict.schema/v1
// document.
func Schema(w io.Writer, f Format) error {
	if f == JSON {
		return WriteJSON(w, struct {
			Schema      string              `json:"schema"`
			Definitions []schemas.MetricDef `json:"definitions"`
		}{SchemaSchema, schemas.Registry()})
	}
	if f == CSV {
		t := &Table{Columns: []string{"id", "name", "unit", "level", "from", "to", "formula", "population", "numerator", "denominator", "window", "direction", "description", "standards"}}
		for _, d := range schemas.Registry() {
			var std []string
			for _, st := range d.Standards {
				std = append(std, st.Standard+": "+standardText(st))
			}
			t.AddRow(T(string(d.ID)), T(d.Name), T(d.Unit), T(string(d.Level)), T(d.From), T(d.To), T(d.Formula), T(d.Population),
				T(d.Numerator), T(d.Denominator), T(d.Window), T(string(d.Direction)), T(d.Description), T(strings.Join(std, "; ")))
		}
		return Write(w, CSV, []*Table{t})
	}
	return Write(w, f, SchemaTables())
}

// standardText renders one crosswalk entry: the name, how closely it
// matches, and what differs.
func standardText(st schemas.StandardName) string {
	v := st.Name + " (" + st.Match + ")"
	if st.Note != "" {
		v += ": " + st.Note
	}
	return v
}
