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

// responseTimes emits an entry's response-time statistics from one row.
func (rd *reader) responseTimes(rw row, runID string, n schemas.Opt[int64], note string) error {
	h := rd.t.h
	base := schemas.Metric{RunID: runID, MetricID: schemas.HTTPResponseTime, Unit: schemas.UnitSeconds, Source: schemas.SourceReported, N: n, Note: note}
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
func (rd *reader) value(rw row, runID, col string, id schemas.MetricID, stat string, note string) error {
	idx, ok := rd.t.h.col[col]
	if !ok {
		return nil
	}
	name := strings.Trim(rd.t.h.names[idx], `"`)
	v, ok, why := rd.cell(rw, "", idx, name)
	if why == "rejected" {
		return nil
	}
	m := schemas.Metric{RunID: runID, MetricID: id, Stat: stat, Unit: schemas.MustLookup(id).Unit, Source: schemas.SourceReported,
		NativeName: name, Note: note}
	if ok {
		m.Value = schemas.Some(v)
	} else {
		m.Note = joinNote(why, note)
	}
	return rd.sink.Metric(&m)
}

// stats reads PREFIX_stats.csv: one run per entry row.
func (rd *reader) stats(ctx context.Context) error {
	h := rd.t.h
	index, emitted := 0, 0
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
		i := index
		index++
		if len(rw.fields) < len(h.names) {
			rd.reject(rw, len(rw.fields)-1, schemas.TableRuns, "", fmt.Sprintf("%d fields, the header has %d", len(rw.fields), len(h.names)))
			continue
		}
		typ, _, _ := rw.get(h, colType)
		name, _, _ := rw.get(h, colName)
		label, method, agg := entry(typ, name)
		reqs, ok, why := rd.count(rw, colReqs)
		if !ok {
			rd.reject(rw, h.col[colReqs], schemas.TableRuns, "request count", why)
			continue
		}
		fails, ok, why := rd.count(rw, colFails)
		if !ok || fails > reqs {
			if ok {
				why = fmt.Sprintf("%d failures of %d requests", fails, reqs)
			}
			rd.reject(rw, h.col[colFails], schemas.TableRuns, "failure count", why)
			continue
		}
		run := rd.newRun(i, kindStats)
		run.Endpoint = name
		if agg {
			run.Endpoint = ""
		}
		run.Labels["locust_entry"] = label
		if method != "" {
			run.Labels["locust_method"] = method
		}
		run.NumPrompts, run.Failed, run.Completed = schemas.Some(reqs), schemas.Some(fails), schemas.Some(reqs-fails)
		if err := rd.sink.Run(&run); err != nil {
			return err
		}
		emitted++
		n := schemas.Some(reqs)
		if err := rd.responseTimes(rw, run.ID, n, ""); err != nil {
			return err
		}
		if err := rd.value(rw, run.ID, colSize, schemas.HTTPResponseSize, schemas.StatMean, ""); err != nil {
			return err
		}
		if err := rd.value(rw, run.ID, colRPS, schemas.HTTPRequestRate, schemas.StatValue, ""); err != nil {
			return err
		}
		if err := rd.value(rw, run.ID, colFPS, schemas.HTTPFailureRate, schemas.StatValue, ""); err != nil {
			return err
		}
	}
	switch {
	case index == 0:
		return rd.emptyRun(kindStats, "the stats file has no entry rows (no request was made)")
	case emitted == 0:
		// Every row was rejected: a run without metrics keeps the file,
		// and its rejections, in the manifest.
		return rd.emptyRun(kindStats, "no entry row could be read")
	}
	return nil
}

// emptyRun reports a run for a file with a header and no rows, so that the
// file is accounted for.
func (rd *reader) emptyRun(format, flag string) error {
	run := rd.newRun(0, format)
	run.Flags = []string{"no_rows"}
	run.Labels["note"] = flag
	return rd.sink.Run(&run)
}

// histRun is one entry of a stats history.
type histRun struct {
	run            schemas.Run
	first, last    int64
	maxUsers       int64
	lastRow        []string
	lastLine       int
	reqs, failures schemas.Opt[int64]
}

// history reads PREFIX_stats_history.csv: one run per entry, with one
// observation of the current rates and user count per row.
func (rd *reader) history(ctx context.Context) error {
	h := rd.t.h
	runs := map[string]*histRun{}
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
		if len(rw.fields) < len(h.names) {
			rd.reject(rw, len(rw.fields)-1, schemas.TableMetrics, "", fmt.Sprintf("%d fields, the header has %d", len(rw.fields), len(h.names)))
			continue
		}
		ts, ok, why := rd.count(rw, colTS)
		if !ok {
			rd.reject(rw, h.col[colTS], schemas.TableMetrics, "Timestamp", why)
			continue
		}
		typ, _, _ := rw.get(h, colType)
		name, _, _ := rw.get(h, colName)
		label, method, agg := entry(typ, name)
		hr := runs[label]
		if hr == nil {
			hr = &histRun{run: rd.newRun(len(order), kindHistory), first: ts}
			hr.run.Labels["locust_entry"] = label
			if method != "" {
				hr.run.Labels["locust_method"] = method
			}
			if !agg {
				hr.run.Endpoint = name
			}
			runs[label] = hr
			order = append(order, label)
		}
		if ts < hr.last {
			rd.reject(rw, h.col[colTS], schemas.TableMetrics, "Timestamp", "time goes backwards")
			continue
		}
		hr.last = ts
		// One note per row, shared by the row's observations: the metric
		// rows of a history differ only by time.
		u, hasUsers, _ := rd.count(rw, colUsers)
		note := "t=" + strconv.FormatInt(ts, 10) + " (" + time.Unix(ts, 0).UTC().Format(time.RFC3339) + ")"
		if hasUsers {
			note += ", " + strconv.FormatInt(u, 10) + " users"
			hr.maxUsers = max(hr.maxUsers, u)
			m := schemas.Metric{RunID: hr.run.ID, MetricID: schemas.LoadUsers, Stat: schemas.StatObservation, Unit: schemas.UnitUsers,
				Source: schemas.SourceReported, NativeName: "User Count", Value: schemas.Some(float64(u)), Note: note}
			if err := rd.sink.Metric(&m); err != nil {
				return err
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
			m := schemas.Metric{RunID: hr.run.ID, MetricID: c.id, Stat: schemas.StatObservation, Unit: schemas.UnitRequestsPerSecond,
				Source: schemas.SourceReported, NativeName: name, Note: note}
			if ok {
				m.Value = schemas.Some(v)
			} else {
				m.Note = joinNote(why, m.Note)
			}
			if err := rd.sink.Metric(&m); err != nil {
				return err
			}
		}
		if n, ok, _ := rd.count(rw, colReqs); ok {
			hr.reqs = schemas.Some(n)
		}
		if n, ok, _ := rd.count(rw, colFails); ok {
			hr.failures = schemas.Some(n)
		}
		hr.lastRow = append(hr.lastRow[:0], rw.fields...)
		hr.lastLine = rw.line
	}
	if len(order) == 0 {
		note := "the history file has no rows"
		if lines > 0 {
			note = "no history row could be read"
		}
		return rd.emptyRun(kindHistory, note)
	}
	full := len(order) > 1 || order[0] != "Aggregated"
	for _, label := range order {
		hr := runs[label]
		run := hr.run
		run.NumPrompts, run.Failed = hr.reqs, hr.failures
		if hr.reqs.OK && hr.failures.OK && hr.failures.V <= hr.reqs.V {
			run.Completed = schemas.Some(hr.reqs.V - hr.failures.V)
		}
		run.DurationS = schemas.Some(float64(hr.last - hr.first))
		run.WindowStart = schemas.Some(time.Unix(hr.first, 0).UTC())
		run.WindowEnd = schemas.Some(time.Unix(hr.last, 0).UTC())
		run.Labels["window"] = "first to last history row (1-second resolution)"
		if hr.maxUsers > 0 {
			run.Labels["max_users"] = strconv.FormatInt(hr.maxUsers, 10)
		}
		if full {
			run.Flags = []string{"full_history_windowed_percentiles"}
		}
		if err := rd.sink.Run(&run); err != nil {
			return err
		}
		if full {
			continue
		}
		// Without --csv-full-history the Aggregated row's percentiles are
		// cumulative: the last row's are the whole run's.
		last := row{fields: hr.lastRow, line: hr.lastLine, r: nil}
		if err := rd.responseTimes(last, run.ID, hr.reqs, fmt.Sprintf("cumulative, at the last history row (%s)",
			time.Unix(hr.last, 0).UTC().Format(time.RFC3339))); err != nil {
			return err
		}
	}
	return nil
}

// failures reads PREFIX_failures.csv: one run, one observation per row.
func (rd *reader) failures(ctx context.Context) error {
	h := rd.t.h
	run := rd.newRun(0, kindFailures)
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
		if len(rw.fields) < len(h.names) {
			rd.reject(rw, len(rw.fields)-1, schemas.TableMetrics, "", fmt.Sprintf("%d fields, the header has %d", len(rw.fields), len(h.names)))
			continue
		}
		occ, ok, why := rd.count(rw, colOcc)
		if !ok {
			rd.reject(rw, h.col[colOcc], schemas.TableMetrics, "Occurrences", why)
			continue
		}
		method, _, _ := rw.get(h, colType)
		name, _, _ := rw.get(h, colName)
		msg, _, _ := rw.get(h, colError)
		note := "error: " + msg
		if s, _, ok := rw.get(h, colFirst); ok && s != "" {
			note += "; first seen " + s
		}
		if s, _, ok := rw.get(h, colLast); ok && s != "" {
			note += "; last seen " + s
		}
		total += occ
		m := schemas.Metric{RunID: run.ID, MetricID: schemas.HTTPFailures, Stat: schemas.StatObservation, Unit: schemas.UnitRequests,
			Source: schemas.SourceReported, NativeName: strings.TrimSpace(method + " " + name), Value: schemas.Some(float64(occ)), Note: note}
		if err := rd.sink.Metric(&m); err != nil {
			return err
		}
	}
	run.Failed = schemas.Some(total)
	if err := rd.sink.Run(&run); err != nil {
		return err
	}
	m := schemas.Metric{RunID: run.ID, MetricID: schemas.HTTPFailures, Stat: schemas.StatSum, Unit: schemas.UnitRequests,
		Source: schemas.SourceComputed, NativeName: "sum of Occurrences", Value: schemas.Some(float64(total))}
	return rd.sink.Metric(&m)
}

// exceptions reads PREFIX_exceptions.csv: one run, one observation per
// row. Tracebacks are long; the note keeps their last line.
func (rd *reader) exceptions(ctx context.Context) error {
	h := rd.t.h
	run := rd.newRun(0, kindExceptions)
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
		m := schemas.Metric{RunID: run.ID, MetricID: schemas.ClientExceptions, Stat: schemas.StatObservation, Unit: schemas.UnitExceptions,
			Source: schemas.SourceReported, NativeName: "Count", Value: schemas.Some(float64(n)), Note: note}
		if err := rd.sink.Metric(&m); err != nil {
			return err
		}
	}
	if rows == 0 {
		run.Flags = []string{"no_rows"}
	}
	if err := rd.sink.Run(&run); err != nil {
		return err
	}
	m := schemas.Metric{RunID: run.ID, MetricID: schemas.ClientExceptions, Stat: schemas.StatSum, Unit: schemas.UnitExceptions,
		Source: schemas.SourceComputed, NativeName: "sum of Count", Value: schemas.Some(float64(total))}
	return rd.sink.Metric(&m)
}
