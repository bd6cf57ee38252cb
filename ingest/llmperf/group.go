package llmperf

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/schemas"
)

// One run, two files (docs/formats/llmperf.md, "One run, two files"):
// token_benchmark_ray.py writes <name>_summary.json and
// <name>_individual_responses.json into one results directory, with
// <name> = <model>_<mean input>_<mean output>. Given together they are one
// run: the summary's statistics beside those recomputed from the
// responses, under the era the summary's date gives, and the counts of
// both must agree.

var _ ingest.GroupFormat = Format{}

const (
	kindSummary    = "llmperf-summary"
	kindIndividual = "llmperf-individual"
	kindPair       = "llmperf-pair" // the two files of one run
)

func fileKind(c *ingest.Candidate) (string, string, bool) {
	t := bytes.TrimLeft(c.Head, " \t\r\n\ufeff")
	if len(t) == 0 {
		return "", "", false
	}
	kind, suffix := kindSummary, "_summary.json"
	if t[0] == '[' {
		kind, suffix = kindIndividual, "_individual_responses.json"
	}
	stem, ok := ingest.Stem(c.Path, suffix)
	if !ok {
		return "", "", false // not named as part of a pair
	}
	return kind, stem, true
}

// Group pairs each summary with the responses of the same name and
// directory, when their request counts agree.
func (Format) Group(files []*ingest.Candidate) ([][]int, error) {
	gs, err := ingest.GroupByStem(files, fileKind, []string{kindSummary, kindIndividual})
	if err != nil {
		return nil, err
	}
	for _, g := range gs {
		if len(g) != 2 {
			continue
		}
		s, i := files[g[0]], files[g[1]]
		started, err := summaryStarted(s)
		if err != nil {
			return nil, err
		}
		n, err := countResponses(i)
		if err != nil {
			return nil, err
		}
		if started.OK && started.V != int64(n) {
			return nil, ingest.GroupMismatch(s.Path, i.Path, "request count",
				"results_num_requests_started "+strconv.FormatInt(started.V, 10), strconv.Itoa(n)+" responses")
		}
	}
	return gs, nil
}

// summaryStarted reads a summary's results_num_requests_started.
func summaryStarted(c *ingest.Candidate) (schemas.Opt[int64], error) {
	rc, err := c.Open()
	if err != nil {
		return schemas.Opt[int64]{}, &ingest.Error{File: c.Path, Err: err}
	}
	defer rc.Close()
	sc := jsonscan.New(rc)
	tok, err := sc.Next()
	if err != nil || tok.Kind != jsonscan.BeginObject {
		return schemas.Opt[int64]{}, nil // Read reports what is wrong
	}
	ms, err := readObject(sc, c.Path, nil, true)
	if err != nil {
		return schemas.Opt[int64]{}, nil
	}
	r := &summaryReader{ms: ms}
	return r.count("results_num_requests_started"), nil
}

// countResponses counts the elements of a responses list.
func countResponses(c *ingest.Candidate) (int, error) {
	rc, err := c.Open()
	if err != nil {
		return 0, &ingest.Error{File: c.Path, Err: err}
	}
	defer rc.Close()
	sc := jsonscan.New(rc)
	if tok, err := sc.Next(); err != nil || tok.Kind != jsonscan.BeginArray {
		return 0, nil
	}
	n := 0
	for {
		tok, err := sc.Next()
		if err != nil || tok.Kind == jsonscan.EndArray {
			return n, nil
		}
		n++
		if err := sc.Skip(tok); err != nil {
			return n, nil
		}
	}
}

// openJSON opens an input and returns its scanner and first token.
func openJSON(in *ingest.Input, want jsonscan.Kind, what string) (*jsonscan.Scanner, jsonscan.Token, io.Closer, error) {
	rc, err := in.Open()
	if err != nil {
		return nil, jsonscan.Token{}, nil, err
	}
	sc := jsonscan.New(rc)
	tok, err := sc.Next()
	if err != nil {
		rc.Close()
		if err == io.EOF {
			return nil, tok, nil, &ingest.Error{File: in.Path, Err: fmt.Errorf("no JSON value found")}
		}
		return nil, tok, nil, syntaxErr(in.Path, err)
	}
	if tok.Kind != want {
		rc.Close()
		return nil, tok, nil, &ingest.Error{File: in.Path, Line: tok.Pos.Line, Column: tok.Pos.Col, Err: fmt.Errorf("expected %s, found %s", what, tok.Kind)}
	}
	return sc, tok, rc, nil
}

// ReadGroup reads a summary and its individual responses as one run.
func (Format) ReadGroup(ctx context.Context, files []*ingest.Input, sink ingest.Sink) error {
	if len(files) != 2 {
		return fmt.Errorf("llmperf: a group is a summary and its responses, got %d files", len(files))
	}
	sc, open, c, err := openJSON(files[0], jsonscan.BeginObject, "a summary object")
	if err != nil {
		return err
	}
	sr, err := parseSummary(files[0], sc, open, sink)
	c.Close()
	if err != nil {
		return err
	}
	runID := ingest.RunID("llmperf", files[0].SHA256(), 0)
	sc, _, c, err = openJSON(files[1], jsonscan.BeginArray, "a list of responses")
	if err != nil {
		return err
	}
	rr := newResponsesReader(ctx, files[1], sink, runID)
	err = rr.read(sc)
	c.Close()
	if err != nil {
		return err
	}
	sr.era = pairEra(sr, individualEra(rr.rows, rr.lists), sink)
	if err := sr.build(ctx); err != nil {
		return err
	}
	run := &sr.run
	run.Format = kindPair
	if codes := rr.errorCodes(); codes != "" {
		run.Labels["error_codes"] = codes
	}
	for _, f := range rr.flags() {
		if !slices.Contains(run.Flags, f) {
			run.Flags = append(run.Flags, f)
		}
	}
	slices.Sort(run.Flags)
	checkCounts(run, rr, sink)
	if err := sink.Run(run); err != nil {
		return err
	}
	reported := sr.reported()
	for i := range reported {
		if err := sink.Metric(&reported[i]); err != nil {
			return err
		}
	}
	computed, err := emitComputed(run.ID, sr.era, rr.rows, sink)
	if err != nil {
		return err
	}
	if rr.rejected == 0 {
		ingest.Check{Where: files[0].Path, From: "the individual responses", Tolerance: func(schemas.Metric) float64 { return 1e-9 }}.
			Compare(sink, reported, computed)
	}
	sink.Describe(kindPair, "llmperf", run.ToolVersion)
	return nil
}

// pairEra chooses the era of a summary read with its responses: the
// summary's date, when it has one, with a warning where the responses'
// rates contradict it; else the responses' evidence.
func pairEra(sr *summaryReader, data era, sink ingest.Sink) era {
	if !sr.ts.OK {
		return data
	}
	e := sr.era
	chunks := slices.Contains(data.flags, "request_output_throughput_counts_chunks")
	tokens := slices.Contains(data.flags, "itl_per_chunk_assumed")
	switch {
	case chunks && e.rateID != schemas.RequestOutputChunkRate:
		sink.Warn(fmt.Sprintf("%s: the summary's date puts its code on or after 2024-04-07, but the responses' rates count chunks (%s); the date is kept", sr.in.Path, data.desc))
	case tokens && e.rateID == schemas.RequestOutputChunkRate:
		sink.Warn(fmt.Sprintf("%s: the summary's date puts its code before 2024-04-07, but the responses' rates are exactly tokens / latency; the date is kept", sr.in.Path))
	}
	if slices.Contains(data.flags, "itl_lists_pooled") {
		e.itlID = schemas.ITLChunk
		e.flags = append(slices.Clone(e.flags), "itl_lists_pooled")
	}
	return e
}

// checkCounts compares the summary's request counts with the responses'.
func checkCounts(run *schemas.Run, rr *responsesReader, sink ingest.Sink) {
	for _, c := range []struct {
		what string
		sum  schemas.Opt[int64]
		resp int
		set  *schemas.Opt[int64]
	}{
		{"started", run.NumPrompts, rr.n, &run.NumPrompts},
		{"completed", run.Completed, len(rr.rows), &run.Completed},
		{"failed", run.Failed, rr.failed, &run.Failed},
	} {
		switch {
		case !c.sum.OK:
			*c.set = schemas.Some(int64(c.resp))
		case c.sum.V != int64(c.resp) && rr.rejected == 0:
			sink.Warn(fmt.Sprintf("%s: the summary counts %d %s requests, the responses %d", run.SourcePath, c.sum.V, c.what, c.resp))
		}
	}
}
