package aiperf

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/schemas"
)

// gpu_telemetry_export.jsonl (0.2 on) has one line per GPU per scrape:
//
//	{"timestamp_ns", "dcgm_url", "gpu_index", "gpu_uuid", "gpu_model_name", "hostname",
//	 "telemetry_data": {"gpu_power_usage": W, "energy_consumption": MJ, "gpu_utilization": %,
//	                    "gpu_memory_used": GB, "gpu_memory_total": GB, "sm_clock_frequency": MHz,
//	                    "gpu_temperature": °C, ...}}
//
// Each line is one row of the samples table. Values carry AIPerf's
// display units (GB are 1e9 bytes, converted from MiB by DCGM's factor;
// energy in MJ), converted here to bytes and joules. energy_consumption
// is a cumulative counter: it is stored as read, never averaged. Metric
// names lost their "gpu_" prefix for "nvidia_"/"amd_" in schema 1.5; both
// spellings are read.

type telemetryReader struct {
	in       *ingest.Input
	sink     ingest.Sink
	runID    string
	rows     int64
	ingested int64
	first    time.Time
	last     time.Time
	unmapped map[string]bool
	hosts    map[string]bool
}

// telemetryField maps a telemetry name (prefix removed) to a sample field.
func telemetryField(name string) string {
	for _, p := range []string{"nvidia_", "amd_"} {
		name = strings.TrimPrefix(name, p)
	}
	switch name {
	case "gpu_power_usage", "power_usage":
		return "power"
	case "energy_consumption":
		return "energy"
	case "gpu_utilization", "utilization":
		return "util"
	case "gpu_memory_used", "memory_used":
		return "mem_used"
	case "gpu_memory_total", "memory_total":
		return "mem_total"
	case "sm_clock_frequency", "sm_clock":
		return "sm_clock"
	case "gpu_temperature", "temperature":
		return "temp"
	}
	return ""
}

func (t *telemetryReader) read(ctx context.Context) error {
	rc, err := t.in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	t.unmapped, t.hosts = map[string]bool{}, map[string]bool{}
	br := bufio.NewReaderSize(rc, 1<<20)
	sc := jsonscan.New(nil)
	var rd bytes.Reader
	var off int64
	line := 0
	for {
		b, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return &ingest.Error{File: t.in.Path, Line: line + 1, Err: err}
		}
		if len(b) > 0 {
			line++
			if len(bytes.TrimSpace(b)) > 0 {
				t.rows++
				rd.Reset(b)
				sc.Reset(&rd, jsonscan.Pos{Off: off, Line: line, Col: 1})
				if err := t.line(sc, line); err != nil {
					return err
				}
			}
			off += int64(len(b))
		}
		if err == io.EOF {
			break
		}
		if line&0xfff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	if t.rows == 0 {
		return &ingest.Error{File: t.in.Path, Err: fmt.Errorf("no telemetry lines")}
	}
	if len(t.unmapped) > 0 {
		var names []string
		for n := range t.unmapped {
			names = append(names, n)
		}
		sort.Strings(names)
		t.sink.Warn(fmt.Sprintf("%s: telemetry fields without a samples-table column are not kept: %s", t.in.Path, strings.Join(names, ", ")))
	}
	return nil
}

func (t *telemetryReader) line(sc *jsonscan.Scanner, line int) error {
	record := "sample " + strconv.FormatInt(t.rows-1, 10)
	reject := func(p jsonscan.Pos, field, reason string) {
		t.sink.Reject(schemas.Rejection{Table: schemas.TableSamples, Line: p.Line, Column: p.Col, Record: record, Field: field, Reason: reason})
	}
	tok, err := sc.Next()
	var n *jtree.Node
	if err == nil {
		n, err = jtree.Read(t.in.Path, sc, tok)
	}
	if err == nil {
		if extra, e := sc.Next(); e != io.EOF {
			if e == nil {
				reject(extra.Pos, "", "more than one JSON value on the line")
				return nil
			}
			err = e
		}
	}
	if err != nil {
		p, msg := jsonscan.Pos{Line: line, Col: 1}, err.Error()
		if se, ok := err.(*jsonscan.SyntaxError); ok {
			p, msg = se.Pos, "malformed JSON: "+se.Msg
		} else if ie, ok := err.(*ingest.Error); ok {
			p, msg = jsonscan.Pos{Line: ie.Line, Col: ie.Column}, ie.Err.Error()
		}
		reject(p, "", msg)
		return nil
	}
	if !n.IsObject() {
		reject(n.Pos, "", "expected an object, found "+n.Describe())
		return nil
	}
	ts := n.Get("timestamp_ns")
	ns, ok := ts.Int()
	if !ok || ns <= 0 || ts.Text != strconv.FormatInt(ns, 10) {
		p := n.Pos
		if ts != nil {
			p = ts.Pos
		}
		reject(p, "timestamp_ns", "expected integer nanoseconds since the epoch, found "+ts.Describe())
		return nil
	}
	s := schemas.Sample{RunID: t.runID, Source: "aiperf", Time: time.Unix(0, ns).UTC()}
	s.Host, _ = n.Get("hostname").Str()
	if s.Host == "" {
		s.Host, _ = n.Get("dcgm_url").Str()
	}
	s.Device = scalar(n.Get("gpu_index"))
	s.DeviceUUID, _ = n.Get("gpu_uuid").Str()
	s.DeviceName, _ = n.Get("gpu_model_name").Str()
	data := n.Get("telemetry_data")
	if !data.IsObject() {
		p := n.Pos
		if data != nil {
			p = data.Pos
		}
		reject(p, "telemetry_data", "expected an object of readings")
		return nil
	}
	for _, m := range data.Fields() {
		field := telemetryField(m.Key)
		if field == "" {
			t.unmapped[m.Key] = true
			continue
		}
		if m.Val.IsNull() {
			continue
		}
		v, ok := m.Val.Float()
		if !ok || math.IsInf(v, 0) || v < 0 {
			reject(m.Val.Pos, "telemetry_data."+m.Key, "expected a finite non-negative reading, found "+m.Val.Describe())
			return nil
		}
		if math.IsNaN(v) {
			continue
		}
		switch field {
		case "power":
			s.PowerW = schemas.Some(v)
		case "energy":
			s.EnergyJ = schemas.Some(v * 1e6) // MJ, cumulative
		case "util":
			s.UtilPct = schemas.Some(v)
		case "mem_used":
			s.MemUsedBytes = schemas.Some(int64(math.Round(v * 1e9)))
		case "mem_total":
			s.MemTotalBytes = schemas.Some(int64(math.Round(v * 1e9)))
		case "sm_clock":
			s.SMClockMHz = schemas.Some(v)
		case "temp":
			s.TempC = schemas.Some(v)
		}
	}
	if t.ingested == 0 || s.Time.Before(t.first) {
		t.first = s.Time
	}
	if t.ingested == 0 || s.Time.After(t.last) {
		t.last = s.Time
	}
	t.ingested++
	t.hosts[s.Host] = true
	return t.sink.Sample(&s)
}

// standaloneRun is the run a telemetry file read on its own belongs to:
// all that is known of it is its GPUs' readings.
func (t *telemetryReader) standaloneRun() *schemas.Run {
	vs := anyVersion()
	vs.since("0.2")
	run := &schemas.Run{ID: t.runID, Tool: "aiperf", ToolVersion: vs.String(), Format: kindTelemetry,
		SourcePath: t.in.Path, SourceSHA256: t.in.SHA256(), Scenario: schemas.ScenarioUnknown, Arrival: schemas.ArrivalUnknown,
		Flags: []string{"telemetry_only"}}
	if t.ingested > 0 {
		run.WindowStart, run.WindowEnd = schemas.Some(t.first), schemas.Some(t.last)
	}
	return run
}
