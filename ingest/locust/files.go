package locust

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// entry names a stats entry: a method and a name, or the Aggregated row.
func entry(typ, name string) (label, method string, aggregated bool) {
	if (typ == "" || typ == "None") && (name == "Aggregated" || name == "Total") {
		return "Aggregated", "", true
	}
	if typ == "" {
		return name, "", false
	}
	return typ + " " + name, typ, false
}

// cell reads a numeric cell. "N/A" and an empty cell are missing with a
// note; anything else that is not a finite non-negative number is
// rejected.
func (rd *reader) cell(rw row, col string, idx int, field string) (v float64, ok bool, note string) {
	s := ""
	if idx >= 0 && idx < len(rw.fields) {
		s = strings.TrimSpace(rw.fields[idx])
	} else if col != "" {
		s, idx, _ = rw.get(rd.t.h, col)
	}
	if s == "" || s == "N/A" {
		return 0, false, "N/A: no requests"
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		rd.reject(rw, idx, schemas.TableMetrics, field, fmt.Sprintf("expected a non-negative number, found %q", truncate(s)))
		return 0, false, "rejected"
	}
	return f, true, ""
}

func truncate(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// count reads a whole non-negative number from a column.
func (rd *reader) count(rw row, col string) (int64, bool, string) {
	s, _, ok := rw.get(rd.t.h, col)
	if !ok {
		return 0, false, fmt.Sprintf("no %s column", col)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f != math.Trunc(f) || f > 1<<53 {
		return 0, false, fmt.Sprintf("%s: expected a whole number, found %q", rd.t.h.names[rd.t.h.col[col]], truncate(s))
	}
	return int64(f), true, ""
}

// responseTimes emits an entry's response-time statistics from one row
// (dim names the entry; "" for the whole test).
func (rd *reader) responseTimes(rw row, dim string, n schemas.Opt[int64], note string) error {
	h := rd.t.h
	base := schemas.Metric{RunID: rd.test.run.ID, MetricID: schemas.HTTPResponseTime, Unit: schemas.UnitSeconds, Source: schemas.SourceReported, N: n, Note: note,
		Dimension: dim}
	emit := func(stat, method string, pct schemas.Opt[float64], idx int) error {
		if idx < 0 {
			return nil
		}
		name := strings.Trim(h.names[idx], `"`)
		v, ok, why := rd.cell(rw, "", idx, name)
		if why == "rejected" {
			return nil
		}
		m := base
		m.Stat, m.Method, m.Percentile, m.NativeName = stat, method, pct, name
		if ok {
			m.Value = schemas.Some(v / 1000)
		} else {
			m.Note = joinNote(why, note)
		}
		if n.OK && n.V == 0 && ok && v == 0 {
			m.Value, m.Note = schemas.Opt[float64]{}, joinNote("no requests: the tool's 0 means no data", note)
		}
		return rd.sink.Metric(&m)
	}
	colIdx := func(c string) int {
		if i, ok := h.col[c]; ok {
			return i
		}
		return -1
	}
	if err := emit(schemas.StatMean, "arithmetic", schemas.Opt[float64]{}, colIdx(colAvg)); err != nil {
		return err
	}
	if err := emit(schemas.StatMedian, string(stats.LocustBuckets), schemas.Opt[float64]{}, colIdx(colMedian)); err != nil {
		return err
	}
	if err := emit(schemas.StatMin, "", schemas.Opt[float64]{}, colIdx(colMin)); err != nil {
		return err
	}
	if err := emit(schemas.StatMax, "", schemas.Opt[float64]{}, colIdx(colMax)); err != nil {
		return err
	}
	for _, pc := range h.pcts {
		if err := emit(schemas.StatP, string(stats.LocustBuckets), schemas.Some(pc.p), pc.idx); err != nil {
			return err
		}
	}
	return nil
}

func joinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// value emits a run-level value from a column.
func (rd *reader) value(rw row, dim, col string, id schemas.MetricID, stat string, note string) error {
	idx, ok := rd.t.h.col[col]
	if !ok {
		return nil
	}
	name := strings.Trim(rd.t.h.names[idx], `"`)
	v, ok, why := rd.cell(rw, "", idx, name)
	if why == "rejected" {
		return nil
	}
	m := schemas.Metric{RunID: rd.test.run.ID, MetricID: id, Stat: stat, Unit: schemas.MustLookup(id).Unit, Source: schemas.SourceReported,
		NativeName: name, Note: note, Dimension: dim}
	if ok {
		m.Value = schemas.Some(v)
	} else {
		m.Note = joinNote(why, note)
	}
	return rd.sink.Metric(&m)
}

// dimension names a stats entry as a dimension of the test: "" for the
// Aggregated row (the whole test), "endpoint METHOD NAME" otherwise.
func dimension(label string, aggregated bool) string {
	if aggregated {
		return ""
	}
	return "endpoint " + label
}

// stats reads PREFIX_stats.csv: the Aggregated row is the test's, each
// other row an endpoint of it (a dimension of the run, not a run).
func (rd *reader) stats(ctx context.Context) error {
	h := rd.t.h
	index := 0
	for {
		rw, err := rd.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if index&0xff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		index++
		if err := rd.statsRow(rw, h); err != nil {
			return err
		}
	}
	if index == 0 {
		rd.test.note("the stats file has no entry rows (no request was made)")
	}
	rd.test.haveStats = true
	return nil
}

// statsRow reads one entry row.
func (rd *reader) statsRow(rw row, h header) error {
	typ, _, _ := rw.get(h, colType)
	name, _, _ := rw.get(h, colName)
	label, _, agg := entry(typ, name)
	reqs, ok, why := rd.count(rw, colReqs)
	if !ok {
		rd.reject(rw, h.col[colReqs], schemas.TableMetrics, "request count", why)
		return nil
	}
	fails, ok, why := rd.count(rw, colFails)
	if !ok || fails > reqs {
		if ok {
			why = fmt.Sprintf("%d failures of %d requests", fails, reqs)
		}
		rd.reject(rw, h.col[colFails], schemas.TableMetrics, "failure count", why)
		return nil
	}
	dim := dimension(label, agg)
	run := &rd.test.run
	if agg {
		run.NumPrompts, run.Failed, run.Completed = schemas.Some(reqs), schemas.Some(fails), schemas.Some(reqs-fails)
	} else {
		rd.test.endpoints = append(rd.test.endpoints, label)
		rd.test.endpointReqs += reqs
		rd.test.endpointFails += fails
	}
	for _, c := range []struct {
		id   schemas.MetricID
		v    int64
		name string
	}{{schemas.HTTPRequests, reqs, h.names[h.col[colReqs]]}, {schemas.HTTPFailures, fails, h.names[h.col[colFails]]}} {
		m := schemas.Metric{RunID: run.ID, MetricID: c.id, Stat: schemas.StatSum, Unit: schemas.UnitRequests, Source: schemas.SourceReported,
			NativeName: strings.Trim(c.name, `"`), Value: schemas.Some(float64(c.v)), Dimension: dim}
		if err := rd.sink.Metric(&m); err != nil {
			return err
		}
	}
	n := schemas.Some(reqs)
	if err := rd.responseTimes(rw, dim, n, ""); err != nil {
		return err
	}
	if err := rd.value(rw, dim, colSize, schemas.HTTPResponseSize, schemas.StatMean, ""); err != nil {
		return err
	}
	if err := rd.value(rw, dim, colRPS, schemas.HTTPRequestRate, schemas.StatValue, ""); err != nil {
		return err
	}
	return rd.value(rw, dim, colFPS, schemas.HTTPFailureRate, schemas.StatValue, "")
}

// histEntry is one entry of a stats history.
type histEntry struct {
	label          string
	aggregated     bool
	first, last    int64
	maxUsers       int64
	lastRow        []string
	lastLine       int
	reqs, failures schemas.Opt[int64]
}

// history reads PREFIX_stats_history.csv: one observation of the current
// rates and user count per row, per entry (the Aggregated entry is the
// test's, others are endpoint dimensions).
func (rd *reader) history(ctx context.Context) error {
	entries := map[string]*histEntry{}
	var order []string
	lines := 0
	for {
		rw, err := rd.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if lines++; lines&0xff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		e, err := rd.historyRow(rw, entries, &order)
		if err != nil {
			return err
		}
		if e != nil {
			e.lastRow = append(e.lastRow[:0], rw.fields...)
			e.lastLine = rw.line
		}
	}
	if len(order) == 0 {
		note := "the history file has no rows"
		if lines > 0 {
			note = "no history row could be read"
		}
		rd.test.note(note)
		return nil
	}
	return rd.historyEnd(entries, order)
}

// historyRow reads one history row and returns its entry, or nil when the
// row was rejected.
func (rd *reader) historyRow(rw row, entries map[string]*histEntry, order *[]string) (*histEntry, error) {
	h := rd.t.h
	ts, ok, why := rd.count(rw, colTS)
	if ok && !schemas.Representable(time.Unix(ts, 0)) {
		ok, why = false, fmt.Sprintf("Unix time %d is after %d, the latest a bundle can hold", ts, schemas.Latest.Year())
	}
	if !ok {
		rd.reject(rw, h.col[colTS], schemas.TableMetrics, "Timestamp", why)
		return nil, nil
	}
	typ, _, _ := rw.get(h, colType)
	name, _, _ := rw.get(h, colName)
	label, _, agg := entry(typ, name)
	e := entries[label]
	if e == nil {
		e = &histEntry{label: label, aggregated: agg, first: ts}
		entries[label] = e
		*order = append(*order, label)
	}
	if ts < e.last {
		rd.reject(rw, h.col[colTS], schemas.TableMetrics, "Timestamp", "time goes backwards")
		return nil, nil
	}
	e.last = ts
	dim := dimension(label, agg)
	// One note per row, shared by the row's observations: the metric
	// rows of a history differ only by time.
	u, hasUsers, _ := rd.count(rw, colUsers)
	note := "t=" + strconv.FormatInt(ts, 10) + " (" + time.Unix(ts, 0).UTC().Format(time.RFC3339) + ")"
	if hasUsers {
		note += ", " + strconv.FormatInt(u, 10) + " users"
		e.maxUsers = max(e.maxUsers, u)
		m := schemas.Metric{RunID: rd.test.run.ID, MetricID: schemas.LoadUsers, Stat: schemas.StatObservation, Unit: schemas.UnitUsers,
			Source: schemas.SourceReported, NativeName: "User Count", Value: schemas.Some(float64(u)), Note: note, Dimension: dim}
		if err := rd.sink.Metric(&m); err != nil {
			return nil, err
		}
	}
	for _, c := range []struct {
		col string
		id  schemas.MetricID
	}{{colRPS, schemas.HTTPRequestRateCurrent}, {colFPS, schemas.HTTPFailureRateCurrent}} {
		idx, ok := h.col[c.col]
		if !ok {
			continue
		}
		name := strings.Trim(h.names[idx], `"`)
		v, ok, why := rd.cell(rw, "", idx, name)
		if why == "rejected" {
			continue
		}
		m := schemas.Metric{RunID: rd.test.run.ID, MetricID: c.id, Stat: schemas.StatObservation, Unit: schemas.UnitRequestsPerSecond,
			Source: schemas.SourceReported, NativeName: name, Note: note, Dimension: dim}
		if ok {
			m.Value = schemas.Some(v)
		} else {
			m.Note = joinNote(why, m.Note)
		}
		if err := rd.sink.Metric(&m); err != nil {
			return nil, err
		}
	}
	if n, ok, _ := rd.count(rw, colReqs); ok {
		e.reqs = schemas.Some(n)
	}
	if n, ok, _ := rd.count(rw, colFails); ok {
		e.failures = schemas.Some(n)
	}
	return e, nil
}

// historyEnd completes the test with the history's window and totals, and,
// without --csv-full-history, the last row's cumulative percentiles when
// no stats file gives the whole test's.
func (rd *reader) historyEnd(entries map[string]*histEntry, order []string) error {
	full := len(order) > 1 || order[0] != "Aggregated"
	t := rd.test
	if full {
		t.flag("full_history_windowed_percentiles")
	}
	var first, last int64
	for i, label := range order {
		e := entries[label]
		if i == 0 || e.first < first {
			first = e.first
		}
		last = max(last, e.last)
		t.maxUsers = max(t.maxUsers, e.maxUsers)
	}
	t.historyWindow = [2]int64{first, last}
	agg := entries["Aggregated"]
	if agg == nil {
		return nil
	}
	t.historyReqs, t.historyFails = agg.reqs, agg.failures
	if full {
		return nil
	}
	if t.haveStats {
		return nil // the stats file has the whole test's, the history's last row a snapshot before its end
	}
	// Without --csv-full-history the Aggregated row's percentiles are
	// cumulative: the last row's are the whole run's.
	lastRow := row{fields: agg.lastRow, line: agg.lastLine, r: nil}
	return rd.responseTimes(lastRow, "", agg.reqs, fmt.Sprintf("cumulative, at the last history row (%s)",
		time.Unix(agg.last, 0).UTC().Format(time.RFC3339)))
}

// failures reads PREFIX_failures.csv: one observation per (method, name,
// error), under the entry's endpoint.
func (rd *reader) failures(ctx context.Context) error {
	h := rd.t.h
	var total int64
	rows := 0
	for {
		rw, err := rd.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if rows++; rows&0xff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		occ, ok, why := rd.count(rw, colOcc)
		if !ok {
			rd.reject(rw, h.col[colOcc], schemas.TableMetrics, "Occurrences", why)
			continue
		}
		method, _, _ := rw.get(h, colType)
		name, _, _ := rw.get(h, colName)
		label, _, agg := entry(method, name)
		msg, _, _ := rw.get(h, colError)
		note := "error: " + msg
		if s, _, ok := rw.get(h, colFirst); ok && s != "" {
			note += "; first seen " + s
		}
		if s, _, ok := rw.get(h, colLast); ok && s != "" {
			note += "; last seen " + s
		}
		total += occ
		m := schemas.Metric{RunID: rd.test.run.ID, MetricID: schemas.HTTPFailures, Stat: schemas.StatObservation, Unit: schemas.UnitRequests,
			Source: schemas.SourceReported, NativeName: "Occurrences", Value: schemas.Some(float64(occ)), Note: note,
			Dimension: dimension(label, agg)}
		if err := rd.sink.Metric(&m); err != nil {
			return err
		}
		rd.test.failureEntries = append(rd.test.failureEntries, label)
	}
	rd.test.failuresTotal = schemas.Some(total)
	m := schemas.Metric{RunID: rd.test.run.ID, MetricID: schemas.HTTPFailures, Stat: schemas.StatSum, Unit: schemas.UnitRequests,
		Source: schemas.SourceComputed, NativeName: "sum of Occurrences", Value: schemas.Some(float64(total))}
	return rd.sink.Metric(&m)
}

// exceptions reads PREFIX_exceptions.csv: one observation per exception.
// Tracebacks are long; the note keeps their last line.
func (rd *reader) exceptions(ctx context.Context) error {
	h := rd.t.h
	var total int64
	rows := 0
	for {
		rw, err := rd.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if rows++; rows&0xff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		n, ok, why := rd.count(rw, colCount)
		if !ok {
			rd.reject(rw, h.col[colCount], schemas.TableMetrics, "Count", why)
			continue
		}
		msg, _, _ := rw.get(h, colMessage)
		note := "message: " + msg
		if tb, _, ok := rw.get(h, colTrace); ok && tb != "" {
			ls := strings.Split(strings.TrimSpace(tb), "\n")
			note += "; traceback ends: " + strings.TrimSpace(ls[len(ls)-1])
		}
		if nodes, _, ok := rw.get(h, colNodes); ok && nodes != "" {
			note += "; nodes: " + nodes
		}
		total += n
		m := schemas.Metric{RunID: rd.test.run.ID, MetricID: schemas.ClientExceptions, Stat: schemas.StatObservation, Unit: schemas.UnitExceptions,
			Source: schemas.SourceReported, NativeName: "Count", Value: schemas.Some(float64(n)), Note: note}
		if err := rd.sink.Metric(&m); err != nil {
			return err
		}
	}
	if rows == 0 {
		rd.test.note("the exceptions file has no rows (no exception)")
	}
	m := schemas.Metric{RunID: rd.test.run.ID, MetricID: schemas.ClientExceptions, Stat: schemas.StatSum, Unit: schemas.UnitExceptions,
		Source: schemas.SourceComputed, NativeName: "sum of Count", Value: schemas.Some(float64(total))}
	return rd.sink.Metric(&m)
}
