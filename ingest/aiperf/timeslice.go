package aiperf

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/internal/jsonscan"
)

// Timeslice exports (--slice-duration, 0.3 on) hold the same metric blocks
// per time slice: {"timeslices": [{"timeslice_index": i, "<tag>": {...}}],
// "input_config": {...}} in JSON, "Timeslice,Metric,Unit,Stat,Value" rows
// in CSV. Each slice becomes a run of its own, labelled with its index;
// slice indexes are renumbered from 0 by AIPerf, so they are positions,
// not time offsets, and no slice times are written.

// readTimeslices reads a timeslice export; parent, when set, is the run
// the slices belong to.
func readTimeslices(in *ingest.Input, kind string, sink ingest.Sink, parent string) ([]*summaryRun, string, error) {
	var slices []*jtree.Node
	var cfg *jtree.Node
	if kind == kindSliceCSV {
		var err error
		if slices, err = sliceCSV(in, sink); err != nil {
			return nil, "", err
		}
	} else {
		rc, err := in.Open()
		if err != nil {
			return nil, "", err
		}
		defer rc.Close()
		root, err := jtree.Parse(in.Path, rc)
		if err != nil {
			return nil, "", err
		}
		ts := root.Get("timeslices")
		if ts == nil || ts.Kind != jsonscan.BeginArray {
			return nil, "", jtree.ErrorAt(in.Path, root, "", "timeslices", "expected an array of time slices")
		}
		slices, cfg = ts.Items(), root.Get("input_config")
	}
	var runs []*summaryRun
	version := ""
	for i, sl := range slices {
		if !sl.IsObject() {
			return nil, "", jtree.ErrorAt(in.Path, sl, fmt.Sprintf("timeslice %d", i), "timeslices", "expected an object, found %s", sl.Describe())
		}
		s := newSummaryRun(in, i, kind)
		s.vs.since("0.3")
		idx := scalar(sl.Get("timeslice_index"))
		if idx == "" {
			idx = strconv.Itoa(i)
		}
		s.record = "timeslice " + idx
		s.label("timeslice_index", idx)
		s.label("timeslice_of", parent)
		s.config(cfg)
		if err := s.scalars(sl); err != nil {
			return nil, "", err
		}
		if !s.streamSet {
			s.inferStreaming(sl)
		}
		s.layout(sl)
		s.run.ToolVersion = s.vs.String()
		version = s.run.ToolVersion
		if err := s.blocks(sl, sink); err != nil {
			return nil, "", err
		}
		runs = append(runs, s)
	}
	if len(runs) == 0 {
		return nil, "", &ingest.Error{File: in.Path, Err: fmt.Errorf("no time slices")}
	}
	return runs, version, nil
}

// sliceCSV turns tidy timeslice rows into one object of blocks per slice.
func sliceCSV(in *ingest.Input, sink ingest.Sink) ([]*jtree.Node, error) {
	rows, err := readCSVRows(in)
	if err != nil {
		return nil, err
	}
	var out []*jtree.Node
	bySlice := map[string]*jtree.Node{}
	for i, row := range rows {
		if i == 0 {
			continue // the header, checked by detection
		}
		if len(row) == 0 || (len(row) == 1 && row[0].text == "") {
			continue
		}
		if len(row) != 5 {
			sink.Reject(rejection(row[0], "", fmt.Sprintf("expected 5 cells (Timeslice,Metric,Unit,Stat,Value), found %d", len(row))))
			continue
		}
		sl := bySlice[row[0].text]
		if sl == nil {
			sl = &jtree.Node{Kind: jsonscan.BeginObject, Pos: jsonscan.Pos{Line: row[0].line, Col: row[0].col}}
			sl.Members = append(sl.Members, jtree.Member{Key: "timeslice_index", Val: &jtree.Node{Kind: jsonscan.String, Text: row[0].text}})
			bySlice[row[0].text] = sl
			out = append(out, sl)
		}
		name, _ := splitLabel(row[1].text)
		tag, ok := headers[name]
		if !ok {
			tag = strings.ReplaceAll(name, " ", "_")
		}
		b := sl.Get(tag)
		if b == nil {
			b = &jtree.Node{Kind: jsonscan.BeginObject, Pos: jsonscan.Pos{Line: row[1].line, Col: row[1].col}}
			b.Members = append(b.Members, jtree.Member{Key: "unit", Val: &jtree.Node{Kind: jsonscan.String, Text: row[2].text}})
			sl.Members = append(sl.Members, jtree.Member{Key: tag, Val: b})
		}
		b.Members = append(b.Members, jtree.Member{Key: row[3].text, Val: cellNode(row[4])})
	}
	return out, nil
}
