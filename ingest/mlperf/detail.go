package mlperf

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// An entry is one :::MLLOG line: a key and its value.
type entry struct {
	key  string
	kind jsonscan.Kind // String, Number, True, False, Null, BeginArray or BeginObject
	text string        // a string's value, a number's text, "true" or "false"
	n    int           // arrays and objects: elements or members
	line int
	col  int // of the value
	// lenient is set when the line was not valid JSON and the value was
	// recovered from LoadGen's fixed layout.
	lenient            bool
	isError, isWarning bool
}

// A detailLog is every line of a detail log, read.
type detailLog struct {
	entries  []entry // file order; a repeated key keeps every occurrence
	rejected []schemas.Rejection
	lines    int // :::MLLOG lines seen (entries + rejected)
}

// scanDetail reads the :::MLLOG lines of r. A line that cannot be read is
// rejected; a file whose first non-blank line is not an :::MLLOG line is
// not a detail log.
func scanDetail(ctx context.Context, path string, r io.Reader) (*detailLog, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		d      detailLog
		line   int
		off    int64
		long   []byte
		sc     = jsonscan.New(nil)
		seenML bool
	)
	for {
		raw, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], raw...)
			for err == bufio.ErrBufferFull {
				raw, err = br.ReadSlice('\n')
				long = append(long, raw...)
			}
			raw = long
		}
		if err != nil && err != io.EOF {
			return nil, &ingest.Error{File: path, Line: line + 1, Err: err}
		}
		if len(raw) == 0 && err == io.EOF {
			break
		}
		line++
		start := off
		off += int64(len(raw))
		if line&0xff == 0 {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
		}
		text := bytes.TrimRight(raw, "\r\n")
		trimmed := bytes.TrimLeft(text, " \t\ufeff")
		if len(bytes.TrimSpace(trimmed)) == 0 {
			if err == io.EOF {
				break
			}
			continue
		}
		marker := ""
		switch {
		case bytes.HasPrefix(trimmed, []byte(markerMLLOG)):
			marker = markerMLLOG
		case bytes.HasPrefix(trimmed, []byte(markerENDPTS)):
			marker = markerENDPTS
		}
		if marker == "" {
			if !seenML {
				return nil, &ingest.Error{File: path, Line: line, Column: 1,
					Err: fmt.Errorf("not an MLPerf LoadGen log: found %q, expected :::MLLOG lines (mlperf_log_detail.txt of LoadGen 1.0 or later) or the %q title (mlperf_log_summary.txt)",
						truncate(string(trimmed), 60), summaryTitle)}
			}
			d.lines++
			d.rejected = append(d.rejected, schemas.Rejection{Table: schemas.TableMetrics, Line: line, Column: 1,
				Reason: "not an :::MLLOG line"})
		} else {
			seenML = true
			d.lines++
			lead := len(text) - len(trimmed) + len(marker)
			js := text[lead:]
			pos := jsonscan.Pos{Off: start + int64(lead), Line: line, Col: lead + 1}
			e, perr := parseLine(sc, js, pos)
			if perr != nil {
				ok := false
				if !errors.Is(perr, jsonscan.ErrTooDeep) { // a hostile line is never recovered
					e, ok = lenientLine(js, line, lead)
				}
				if !ok {
					rej := schemas.Rejection{Table: schemas.TableMetrics, Line: line, Reason: "unreadable :::MLLOG line: " + perr.Error()}
					var se *jsonscan.SyntaxError
					if errors.As(perr, &se) {
						rej.Column = se.Pos.Col
						rej.Reason = "unreadable :::MLLOG line: " + se.Msg
					}
					if k := keyOf(js); k != "" {
						rej.Field = k
					}
					d.rejected = append(d.rejected, rej)
				} else {
					d.entries = append(d.entries, e)
				}
			} else {
				d.entries = append(d.entries, e)
			}
		}
		if err == io.EOF {
			break
		}
	}
	if !seenML {
		return nil, &ingest.Error{File: path, Err: errors.New("no :::MLLOG lines found")}
	}
	return &d, nil
}

// parseLine reads one line's JSON object.
func parseLine(sc *jsonscan.Scanner, js []byte, pos jsonscan.Pos) (entry, error) {
	sc.Reset(bytes.NewReader(js), pos)
	e := entry{line: pos.Line}
	tok, err := sc.Next()
	if err != nil {
		return e, err
	}
	if tok.Kind != jsonscan.BeginObject {
		return e, fmt.Errorf("expected a JSON object after the marker, found %s", tok.Kind)
	}
	hasKey, hasValue := false, false
	for {
		k, err := sc.Next()
		if err != nil {
			return e, err
		}
		if k.Kind == jsonscan.EndObject {
			break
		}
		name, err := sc.Text(k)
		if err != nil {
			return e, err
		}
		v, err := sc.Next()
		if err != nil {
			return e, err
		}
		switch name {
		case "key":
			if v.Kind != jsonscan.String {
				return e, fmt.Errorf("key is %s, not a string", v.Kind)
			}
			if e.key, err = sc.Text(v); err != nil {
				return e, err
			}
			hasKey = true
		case "value":
			hasValue = true
			e.kind, e.col = v.Kind, v.Pos.Col
			switch v.Kind {
			case jsonscan.String:
				if e.text, err = sc.Text(v); err != nil {
					return e, err
				}
			case jsonscan.Number:
				e.text = string(v.Raw)
			case jsonscan.True:
				e.text = "true"
			case jsonscan.False:
				e.text = "false"
			case jsonscan.BeginArray:
				if e.n, err = sc.SkipArray(); err != nil {
					return e, err
				}
			case jsonscan.BeginObject:
				if e.n, err = countMembers(sc); err != nil {
					return e, err
				}
			}
		case "metadata":
			if v.Kind != jsonscan.BeginObject {
				if err := sc.Skip(v); err != nil {
					return e, err
				}
				continue
			}
			for {
				mk, err := sc.Next()
				if err != nil {
					return e, err
				}
				if mk.Kind == jsonscan.EndObject {
					break
				}
				mname, err := sc.Text(mk)
				if err != nil {
					return e, err
				}
				mv, err := sc.Next()
				if err != nil {
					return e, err
				}
				switch {
				case mname == "is_error" && mv.Kind == jsonscan.True:
					e.isError = true
				case mname == "is_warning" && mv.Kind == jsonscan.True:
					e.isWarning = true
				}
				if err := sc.Skip(mv); err != nil {
					return e, err
				}
			}
		default:
			if err := sc.Skip(v); err != nil {
				return e, err
			}
		}
	}
	if _, err := sc.Next(); err != io.EOF {
		if err == nil {
			err = errors.New("text after the JSON object")
		}
		return e, err
	}
	if !hasKey || !hasValue {
		return e, errors.New(`the object has no "key" or no "value"`)
	}
	return e, nil
}

// countMembers skips an object whose '{' was just returned and counts its
// members.
func countMembers(sc *jsonscan.Scanner) (int, error) {
	n := 0
	for {
		k, err := sc.Next()
		if err != nil {
			return 0, err
		}
		if k.Kind == jsonscan.EndObject {
			return n, nil
		}
		n++
		v, err := sc.Next()
		if err != nil {
			return 0, err
		}
		if err := sc.Skip(v); err != nil {
			return 0, err
		}
	}
}

// LoadGen's fixed layout of a line whose string value holds a quote or a
// backslash it did not escape.
var lenientRe = regexp.MustCompile(`^\{"key": "([A-Za-z0-9_.]+)", "value": "(.*)", "time_ms": [-+0-9.eE]+, "namespace": "[^"]*", "event_type": "[^"]*", "metadata": \{"is_error": (true|false), "is_warning": (true|false)`)

func lenientLine(js []byte, line, lead int) (entry, bool) {
	trimmed := bytes.TrimLeft(js, " \t")
	lead += len(js) - len(trimmed)
	js = trimmed
	g := lenientRe.FindSubmatch(js)
	if g == nil {
		return entry{}, false
	}
	return entry{key: string(g[1]), kind: jsonscan.String, text: string(g[2]), line: line,
		col: lead + bytes.Index(js, []byte(`"value": "`)) + len(`"value": `) + 1, lenient: true,
		isError: string(g[3]) == "true", isWarning: string(g[4]) == "true"}, true
}

var keyRe = regexp.MustCompile(`^\{"key": "([A-Za-z0-9_.]+)"`)

func keyOf(js []byte) string {
	if g := keyRe.FindSubmatch(bytes.TrimLeft(js, " \t")); g != nil {
		return string(g[1])
	}
	return ""
}

// Detail-log keys of statistics, with the definition they report.
var (
	reLatency      = regexp.MustCompile(`^result_(min|max|mean)_latency_ns$`)
	reLatencyP     = regexp.MustCompile(`^result_(\d+(?:\.\d+)?)_percentile_latency_ns$`)
	reQueryLatency = regexp.MustCompile(`^result_(min|max|mean)_query_latency_ns$`)
	reQueryP       = regexp.MustCompile(`^result_(\d+(?:\.\d+)?)_percentile_per_query_latency_ns$`)
	reTTFT         = regexp.MustCompile(`^result_first_token_(min|max|mean)_latency_ns$`)
	reTTFTP        = regexp.MustCompile(`^result_first_token_(\d+(?:\.\d+)?)_percentile_latency_ns$`)
	reTPOT         = regexp.MustCompile(`^result_time_to_output_token_(min|max|mean)$`)
	reTPOTP        = regexp.MustCompile(`^result_time_per_output_token_(\d+(?:\.\d+)?)_percentile_ns$`)
)

var statOf = map[string]string{"min": schemas.StatMin, "max": schemas.StatMax, "mean": schemas.StatMean}

// rateKeys are run-level values in their definition's unit.
var rateKeys = map[string]schemas.MetricID{
	"result_scheduled_samples_per_sec":              schemas.SampleThroughputScheduled,
	"result_completed_samples_per_sec":              schemas.SampleThroughputCompleted,
	"result_qps_with_loadgen_overhead":              schemas.SampleThroughputIssued,
	"result_qps_without_loadgen_overhead":           schemas.SampleRateInverseMeanLatency,
	"result_samples_per_second":                     schemas.OfflineSampleThroughput,
	"result_tokens_per_second":                      schemas.OfflineOutputTokenThroughput,
	"result_completed_tokens_per_second":            schemas.OutputTokenThroughputCompleted,
	"result_token_throughput_with_loadgen_overhead": schemas.OutputTokenThroughputIssued,
	"result_token_throughput":                       schemas.OutputTokenRatePerLatency,
}

// Keys kept out of the labels: they are read into run fields or metrics,
// or are large and say nothing about the run's settings.
var skipLabel = map[string]bool{
	"loaded_qsl_set": true, "loadgen_file_sha1": true, "generic_message": true,
}

// A detailReader turns a detail log's entries into logData.
type detailReader struct {
	sink ingest.Sink
	d    *logData
	uniq []entry // the first occurrence of each key, in file order

	tokenMode bool
	esMet     bool
	targetP   float64
}

// readDetail reads a detail log into logData.
func readDetail(ctx context.Context, path string, r io.Reader, sink ingest.Sink) (*logData, error) {
	log, err := scanDetail(ctx, path, r)
	if err != nil {
		return nil, err
	}
	for _, rej := range log.rejected {
		sink.Reject(rej)
	}
	dr := &detailReader{sink: sink, d: newLogData(formatDetail), esMet: true}
	dr.dedupe(log.entries)
	dr.settings()
	dr.validity()
	for _, e := range dr.uniq {
		dr.entry(e)
	}
	dr.d.serverChecks(sink)
	return dr.d, nil
}

// dedupe keeps the first occurrence of each key (as LoadGen's log_parser
// does) and reports LoadGen's errors and warnings.
func (r *detailReader) dedupe(entries []entry) {
	first := map[string]int{}
	for _, e := range entries {
		if e.lenient {
			r.sink.Warn(fmt.Sprintf("line %d: %s: the value is not valid JSON (LoadGen does not escape strings); read as raw text", e.line, e.key))
		}
		if e.isError || e.isWarning || strings.HasPrefix(e.key, "error_") || e.key == "warning_generic_message" {
			kind := "warning"
			if e.isError || strings.HasPrefix(e.key, "error_") {
				kind = "error"
			}
			r.sink.Warn(fmt.Sprintf("line %d: LoadGen %s %s: %s", e.line, kind, e.key, truncate(e.text, 300)))
			continue
		}
		if at, dup := first[e.key]; dup {
			if e.key != "generic_message" {
				r.sink.Warn(fmt.Sprintf("line %d: key %s repeats (first at line %d); the first value is used", e.line, e.key, at))
			}
			continue
		}
		first[e.key] = e.line
		r.uniq = append(r.uniq, e)
	}
}

func (r *detailReader) get(k string) (entry, bool) {
	for _, e := range r.uniq {
		if e.key == k {
			return e, true
		}
	}
	return entry{}, false
}

func (r *detailReader) str(k string) string {
	e, _ := r.get(k)
	return e.text
}

func (r *detailReader) integer(k string) schemas.Opt[int64] {
	e, ok := r.get(k)
	if !ok || e.kind != jsonscan.Number {
		return schemas.Opt[int64]{}
	}
	n, err := strconv.ParseInt(e.text, 10, 64)
	if err != nil || n < 0 {
		return schemas.Opt[int64]{}
	}
	return schemas.Some(n)
}

func (r *detailReader) number(k string) schemas.Opt[float64] {
	e, ok := r.get(k)
	if !ok || e.kind != jsonscan.Number {
		return schemas.Opt[float64]{}
	}
	f, err := jsonscan.Float([]byte(e.text))
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return schemas.Opt[float64]{}
	}
	return schemas.Some(f)
}

// settings reads the version, date, scenario, token mode, counts and the
// Server target.
func (r *detailReader) settings() {
	d := r.d
	if v := r.str("loadgen_version"); v != "" {
		d.version = "LoadGen " + v
	} else {
		d.version = "LoadGen 1.0 or later (no loadgen_version line)"
	}
	d.date = r.str("test_datetime")
	d.scenario = r.str("effective_scenario")
	if d.scenario == "" {
		d.scenario = r.str("requested_scenario")
	}
	switch e, ok := r.get("requested_use_token_latencies"); {
	case ok && (e.kind == jsonscan.True || e.kind == jsonscan.False):
		d.token = schemas.Some(e.kind == jsonscan.True)
	default:
		_, a := r.get("result_first_token_mean_latency_ns")
		_, b := r.get("result_tokens_per_second")
		if a || b {
			d.token = schemas.Some(true)
		}
	}
	r.tokenMode = d.token.OK && d.token.V
	d.queries = r.integer("result_query_count")
	d.samplesPerQuery = r.integer("generated_samples_per_query")
	if !d.samplesPerQuery.OK {
		d.samplesPerQuery = r.integer("effective_samples_per_query")
	}
	if d.scenario == scServer {
		d.targetQPS = r.number("effective_target_qps")
		if !d.targetQPS.OK {
			d.targetQPS = r.number("requested_server_target_qps")
		}
	}
	if p := r.number("effective_target_latency_percentile"); p.OK && p.V > 0 && p.V < 1 {
		r.targetP = p.V
	}
}

// validity reads the result's validity and its reasons as flags.
func (r *detailReader) validity() {
	d := r.d
	if r.str("result_validity") == "INVALID" {
		d.flag("result_invalid")
	}
	for _, k := range []struct{ key, flag string }{
		{"result_perf_constraints_met", "perf_constraints_not_met"},
		{"result_min_duration_met", "min_duration_not_met"},
		{"result_min_queries_met", "min_queries_not_met"},
		{"early_stopping_met", "early_stopping_not_met"},
	} {
		if e, ok := r.get(k.key); ok && e.kind == jsonscan.False {
			d.flag(k.flag)
		}
	}
	if n := r.integer("num_errors"); n.OK && n.V > 0 {
		d.flag("loadgen_errors")
	}
	if e, ok := r.get("effective_sample_concatenate_permutation"); ok && e.kind == jsonscan.True {
		d.flag("sample_concatenate_permutation")
	}
	if _, ok := r.get("result_inferred_completed_tokens_per_second"); ok {
		d.flag("token_latencies_inferred")
	}
	if _, ok := r.get("result_inferred_tokens_per_second"); ok {
		d.flag("token_latencies_inferred")
	}
	if e, ok := r.get("early_stopping_met"); ok && e.kind == jsonscan.False {
		r.esMet = false
	}
}

func (r *detailReader) reject(e entry, reason string) {
	r.sink.Reject(schemas.Rejection{Table: schemas.TableMetrics, Line: e.line, Column: e.col, Field: e.key, Reason: reason})
}

// num checks a statistic's value: a number, finite.
func (r *detailReader) num(e entry) (float64, bool) {
	if e.kind != jsonscan.Number {
		r.reject(e, fmt.Sprintf("expected a number, found %s", describe(e)))
		return 0, false
	}
	f, err := jsonscan.Float([]byte(e.text))
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		r.reject(e, "expected a finite number, found "+e.text)
		return 0, false
	}
	return f, true
}

func (r *detailReader) latency(e entry, id schemas.MetricID, stat string, pct float64, method string) {
	f, ok := r.num(e)
	if !ok {
		return
	}
	if f < 0 && id != schemas.TPOTLoadGen {
		r.reject(e, "negative latency "+e.text)
		return
	}
	if f < 0 {
		r.d.flag("negative_tpot")
	}
	r.d.addNS(id, stat, pct, method, e.key, f)
}

// latencyKeys map the detail log's latency keys (statistic, percentile) to
// definitions.
var latencyKeys = []struct {
	stat, pct *regexp.Regexp
	id        schemas.MetricID
}{
	{reLatency, reLatencyP, schemas.E2EScheduled},
	{reQueryLatency, reQueryP, schemas.QueryLatencyScheduled},
	{reTTFT, reTTFTP, schemas.TTFTScheduled},
	{reTPOT, reTPOTP, schemas.TPOTLoadGen},
}

// entry reads one entry: a latency, a rate, a setting read into a metric,
// or a label.
func (r *detailReader) entry(e entry) {
	k := e.key
	for _, lk := range latencyKeys {
		if g := lk.stat.FindStringSubmatch(k); g != nil {
			r.latency(e, lk.id, statOf[g[1]], 0, statMethod(g[1]))
			return
		}
		if g := lk.pct.FindStringSubmatch(k); g != nil {
			if p, ok := pctLabel(g[1]); ok {
				r.latency(e, lk.id, schemas.StatP, p, string(stats.NearestRankFloor))
				return
			}
		}
	}
	if id, ok := rateKeys[k]; ok {
		r.rate(e, id)
		return
	}
	if r.setting(e) {
		return
	}
	if skipLabel[k] {
		if e.kind == jsonscan.BeginArray {
			r.d.labels[k] = fmt.Sprintf("[array of %d]", e.n)
		}
		return
	}
	if (strings.HasPrefix(k, "early_stopping_") && strings.HasSuffix(k, "_result")) || k == "result_invalid_reason" {
		r.d.labels[k] = cleanResult(e.text)
		return
	}
	r.d.labels[k] = labelText(e)
}

// rate reads a result rate; result_token_throughput is tokens per
// nanosecond (a LoadGen bug) and becomes tokens per second.
func (r *detailReader) rate(e entry, id schemas.MetricID) {
	f, ok := r.num(e)
	if !ok {
		return
	}
	if f < 0 {
		r.reject(e, "negative rate "+e.text)
		return
	}
	note := ""
	if e.key == "result_token_throughput" {
		if f < 1e-3 {
			note = "LoadGen wrote " + e.text + " tokens per nanosecond (a LoadGen bug); stored x1e9 as tokens/s"
			f *= 1e9
			r.d.flag("result_token_throughput_per_ns_converted")
		} else {
			note = "LoadGen wrote " + e.text + "; too large to be tokens per nanosecond, so taken as tokens/s"
			r.d.flag("result_token_throughput_taken_as_per_second")
		}
	}
	r.d.addValue(id, e.key, f, note)
}

// setting reads the entries that become metrics or trimmed labels: early
// stopping, the Server latency limits, the git log message.
func (r *detailReader) setting(e entry) bool {
	d, k := r.d, e.key
	switch k {
	case "early_stopping_latency_ss", "early_stopping_latency_ms":
		earlyStoppingEntry(d, e, r.num, r.tokenMode, r.esMet, r.targetP)
	case "requested_server_ttft_latency", "requested_server_tpot_latency":
		d.labels[k] = e.text
		if d.scenario == scServer && r.tokenMode {
			if f, ok := r.num(e); ok && f > 0 {
				id := schemas.TTFTScheduledLimit
				if k == "requested_server_tpot_latency" {
					id = schemas.TPOTLoadGenLimit
				}
				d.limit(id, k, f, r.targetP)
			}
		}
	case "effective_target_latency_ns":
		d.labels[k] = e.text
		if d.scenario == scServer && !r.tokenMode {
			if f, ok := r.num(e); ok && f > 0 {
				d.limit(schemas.E2EScheduledLimit, k, f, r.targetP)
			}
		}
	case "loadgen_git_log_message":
		first, _, _ := strings.Cut(e.text, `\n`)
		first, _, _ = strings.Cut(first, "\n")
		d.labels[k] = truncate(first, 200)
	default:
		return false
	}
	return true
}

// limit adds a Server latency constraint.
func (d *logData) limit(id schemas.MetricID, native string, ns, p float64) {
	note := "a setting, not a measurement"
	if p > 0 {
		note = fmt.Sprintf("bound on the p%s (target_latency_percentile %s); a setting, not a measurement",
			strconv.FormatFloat(p*100, 'g', -1, 64), strconv.FormatFloat(p, 'g', -1, 64))
	}
	if !d.has(id, schemas.StatValue, 0) {
		d.addValue(id, native, ns/1e9, note)
	}
}

// earlyStoppingEntry maps early_stopping_latency_ss and _ms. SingleStream
// logs the p90 (_ss) and p99 (_ms) estimates of sample latency; in token
// mode LoadGen runs early stopping on TPOT and then, only if that passed,
// on TTFT, keeping the last estimate. MultiStream logs the p99 estimate of
// query latency in _ms. A zero means LoadGen did not compute it.
func earlyStoppingEntry(d *logData, e entry, num func(entry) (float64, bool), tokenMode, esMet bool, targetP float64) {
	f, ok := num(e)
	if !ok {
		return
	}
	var id schemas.MetricID
	pct := 0.0
	switch d.scenario {
	case scSingleStream:
		id, pct = schemas.E2EScheduledEarlyStopping, 90
		if targetP > 0 {
			pct = targetP * 100
		}
		if e.key == "early_stopping_latency_ms" {
			pct = 99
		}
		if tokenMode {
			id = schemas.TTFTScheduledEarlyStopping
		}
	case scMultiStream:
		if e.key != "early_stopping_latency_ms" {
			d.labels[e.key] = e.text
			return
		}
		id, pct = schemas.QueryLatencyScheduledEarlyStopping, 99
		if targetP > 0 {
			pct = targetP * 100
		}
	default:
		d.labels[e.key] = e.text
		return
	}
	m := schemas.Metric{MetricID: id, Stat: schemas.StatP, Percentile: schemas.Some(pct), Unit: schemas.UnitSeconds,
		Method: methodEarlyStopping, Source: schemas.SourceReported, NativeName: e.key}
	switch {
	case f <= 0:
		m.Note = "LoadGen logged " + e.text + ": not computed (too few queries for this percentile)"
	case tokenMode && !esMet:
		m.Note = "token mode: early stopping failed on TPOT, so this is not a TTFT estimate"
		m.MetricID = schemas.TPOTLoadGenEarlyStopping
		m.Value = schemas.Some(f / 1e9)
	default:
		m.Value = schemas.Some(f / 1e9)
		if tokenMode {
			m.Note = "token mode: LoadGen keeps the last estimate it computed, TTFT's"
		}
	}
	d.metrics = append(d.metrics, m)
}

// serverChecks relates a Server run's p99s to its limits the way LoadGen
// and the submission checker do, and records how many samples early
// stopping tolerates above each limit.
func (d *logData) serverChecks(sink ingest.Sink) {
	if d.scenario != scServer {
		return
	}
	find := func(id schemas.MetricID, stat string, pct float64) (float64, bool) {
		for _, m := range d.metrics {
			if m.MetricID == id && m.Stat == stat && m.Value.OK && (stat != schemas.StatP || m.Percentile.V == pct) {
				return m.Value.V, true
			}
		}
		return 0, false
	}
	for _, c := range []struct{ limit, metric schemas.MetricID }{
		{schemas.TTFTScheduledLimit, schemas.TTFTScheduled}, {schemas.TPOTLoadGenLimit, schemas.TPOTLoadGen}, {schemas.E2EScheduledLimit, schemas.E2EScheduled},
	} {
		lim, ok := find(c.limit, schemas.StatValue, 0)
		if !ok {
			continue
		}
		p99, ok := find(c.metric, schemas.StatP, 99)
		if !ok {
			continue
		}
		switch {
		case p99 == lim:
			d.flag("perf_constraint_at_limit")
			sink.Warn(fmt.Sprintf("%s p99 equals its limit: LoadGen passes the run, the submission checker (strict <) does not", c.metric))
		case p99 > lim && !slicesContains(d.flags, "perf_constraints_not_met"):
			sink.Warn(fmt.Sprintf("%s p99 %.9g s exceeds its limit %.9g s, yet the log says the performance constraints were met", c.metric, p99, lim))
		}
	}
	if d.queries.OK && d.queries.V > 0 {
		p := 0.99
		if s, ok := d.labels["effective_target_latency_percentile"]; ok {
			if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 && f < 1 {
				p = f
			}
		}
		t := stats.EarlyStoppingMaxOverLatency(int(d.queries.V), p)
		d.labels["early_stopping_tolerated_overlatency"] = fmt.Sprintf("%d of %d samples may exceed each latency limit at p%s (computed by verdict)",
			max(t, 0), d.queries.V, strconv.FormatFloat(p*100, 'g', -1, 64))
	}
}

func slicesContains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

func statMethod(stat string) string {
	if stat == "mean" {
		return methodMean
	}
	return ""
}

func describe(e entry) string {
	switch e.kind {
	case jsonscan.String:
		return fmt.Sprintf("the string %q", truncate(e.text, 60))
	case jsonscan.BeginArray:
		return fmt.Sprintf("an array of %d elements", e.n)
	case jsonscan.BeginObject:
		return "an object"
	}
	return e.kind.String()
}

func labelText(e entry) string {
	switch e.kind {
	case jsonscan.BeginArray:
		return fmt.Sprintf("[array of %d]", e.n)
	case jsonscan.BeginObject:
		return fmt.Sprintf("{object of %d}", e.n)
	case jsonscan.Null:
		return "null"
	}
	return truncate(e.text, 500)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// cleanResult turns LoadGen's " * A.  * B." (newlines already replaced by
// spaces) into "A. B.".
func cleanResult(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, " * ", " ")), " ")
}
