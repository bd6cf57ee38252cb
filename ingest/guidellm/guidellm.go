// Package guidellm reads GuideLLM reports: the benchmarks.json and
// benchmarks.yaml that `guidellm benchmark` writes, in all five schema
// generations (docs/formats/guidellm.md section 1):
//
//	0  v0.1.x        {benchmarks: [{mode, rate, results, errors, ...}], args}
//	A  v0.2.0-v0.3.x {benchmarks: [{args, run_stats, worker, request_loader, metrics, requests, ...}]}
//	B  v0.4.x        {args, benchmarks: [{config, scheduler_state, scheduler_metrics, metrics, requests}]}
//	C  v0.5-v0.6     {metadata: {version: 1, guidellm_version, ...}, args, benchmarks}
//	D  v0.7+         {metadata: {version: 2, ...}, config, benchmarks}
//
// Each benchmark is one run. Its rate type (synchronous, concurrent,
// throughput, constant, poisson, trace) gives the run's scenario and
// arrival; the profile (a sweep, say) is a label.
//
// GuideLLM's distributions are mapped by definition, not by name. From v0.4
// its per-token latencies are weighted by tokens (tpot_token_weighted,
// tpot_incl_ttft_token_weighted); v0.2-v0.3 time_per_output_token_ms
// excludes the TTFT (decode_time_per_output_token); percentiles are the
// first value whose cumulative probability reaches p
// (stats.NearestRankCumulative), except v0.1's numpy linear ones; std is
// population. Only the "successful" status is stored as metric rows (the
// "total" status pools in errored and incomplete zeros). Milliseconds
// become seconds.
//
// Per-request records become request rows. GuideLLM keeps only a sample of
// them by default (sample_requests); a run whose records are fewer than its
// request totals is flagged "requests_sampled" and its statistics are
// never recomputed. When every record is present, the successful requests'
// statistics are recomputed with GuideLLM's own conventions and stored
// beside the reported ones, and disagreements become warnings.
//
// JSON is read with a streaming tokenizer; when the benchmarks come after
// the report's metadata (v0.4+), each benchmark is processed and dropped
// before the next is read.
package guidellm

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
)

// Format is the GuideLLM ingest format.
type Format struct{}

func (Format) Name() string { return "guidellm" }

func (Format) Description() string {
	return "GuideLLM benchmarks.json / benchmarks.yaml (v0.1 to v0.7+)"
}

// Detect looks for GuideLLM's benchmark markers: the generative_benchmark
// type of v0.2+, the report metadata of v0.5+, or v0.1's mode, results and
// token times.
func (Format) Detect(name string, head []byte) int {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) == 0 {
		return 0
	}
	has := func(s string) bool { return bytes.Contains(head, []byte(s)) }
	if t[0] == '{' {
		if !has(`"benchmarks"`) && !has(`"guidellm_version"`) {
			return 0
		}
		switch {
		case has(`"generative_benchmark"`), has(`"guidellm_version"`):
			// Both strings are GuideLLM's own; score above the 90 that
			// broader detectors give to any JSON with similar metric names.
			return 98
		case has(`"mode"`) && has(`"results"`) && has(`"first_token_time"`):
			return 85
		}
		return 0
	}
	if t[0] == '[' || t[0] == '<' {
		return 0
	}
	// YAML: block style, top-level keys at column 1.
	if !bytes.HasPrefix(t, []byte("benchmarks:")) && !bytes.HasPrefix(t, []byte("metadata:")) &&
		!bytes.HasPrefix(t, []byte("args:")) && !bytes.HasPrefix(t, []byte("config:")) && !bytes.HasPrefix(t, []byte("---")) {
		return 0
	}
	switch {
	case has("type_: generative_benchmark"), has("guidellm_version:"):
		return 98
	case has("\nbenchmarks:") || bytes.HasPrefix(t, []byte("benchmarks:")):
		if has("mode:") && has("results:") && has("first_token_time:") {
			return 85
		}
	}
	return 0
}

// Read reads one GuideLLM report.
func (Format) Read(ctx context.Context, in *ingest.Input, sink ingest.Sink) error {
	rc, err := in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	head := make([]byte, 512)
	n, err := io.ReadFull(rc, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return &ingest.Error{File: in.Path, Err: err}
	}
	head = head[:n]
	body := io.MultiReader(bytes.NewReader(head), rc)
	rd := &reportReader{in: in, sink: sink, ctx: ctx}
	if t := bytes.TrimLeft(head, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '{' {
		err = rd.readJSON(body)
	} else {
		err = rd.readYAML(body)
	}
	if err != nil {
		return err
	}
	if rd.count == 0 {
		return &ingest.Error{File: in.Path, Err: fmt.Errorf("the report holds no benchmarks")}
	}
	version := rd.versions[0]
	for _, v := range rd.versions[1:] {
		if v != version {
			version = "several (see each run's tool_version)"
			break
		}
	}
	sink.Describe("guidellm", "guidellm", version)
	return nil
}

// reportReader reads a report's top level and hands each benchmark to a
// benchReader.
type reportReader struct {
	ctx      context.Context
	in       *ingest.Input
	sink     ingest.Sink
	top      *node // the report's members other than benchmarks
	count    int
	versions []string
}

func (rd *reportReader) syntaxErr(err error) error {
	if se, ok := err.(*jsonscan.SyntaxError); ok {
		return &ingest.Error{File: rd.in.Path, Line: se.Pos.Line, Column: se.Pos.Col, Err: fmt.Errorf("malformed JSON: %s", se.Msg)}
	}
	if _, ok := err.(*ingest.Error); ok {
		return err
	}
	return &ingest.Error{File: rd.in.Path, Err: err}
}

func (rd *reportReader) readJSON(r io.Reader) error {
	sc := jsonscan.New(r)
	tok, err := sc.Next()
	if err != nil {
		return rd.syntaxErr(err)
	}
	if tok.Kind != jsonscan.BeginObject {
		return &ingest.Error{File: rd.in.Path, Line: tok.Pos.Line, Column: tok.Pos.Col, Err: fmt.Errorf("expected a JSON object, found %s", tok.Kind)}
	}
	rd.top = &node{kind: kObject, line: tok.Pos.Line, col: tok.Pos.Col}
	keys := keyCache{}
	var pending []*node // benchmarks read before the report's other members
	sawBenchmarks := false
	for {
		k, err := sc.Next()
		if err != nil {
			return rd.syntaxErr(err)
		}
		if k.Kind == jsonscan.EndObject {
			break
		}
		key, err := sc.Text(k)
		if err != nil {
			return rd.syntaxErr(err)
		}
		v, err := sc.Next()
		if err != nil {
			return rd.syntaxErr(err)
		}
		if key != "benchmarks" {
			child, err := jsonTree(sc, v, keys)
			if err != nil {
				return rd.syntaxErr(err)
			}
			rd.top.keys = append(rd.top.keys, key)
			rd.top.vals = append(rd.top.vals, child)
			continue
		}
		if v.Kind != jsonscan.BeginArray {
			return &ingest.Error{File: rd.in.Path, Line: v.Pos.Line, Column: v.Pos.Col, Field: "benchmarks", Err: fmt.Errorf("expected an array, found %s", v.Kind)}
		}
		sawBenchmarks = true
		stream := len(rd.top.keys) > 0 // the metadata or args came first
		for {
			el, err := sc.Next()
			if err != nil {
				return rd.syntaxErr(err)
			}
			if el.Kind == jsonscan.EndArray {
				break
			}
			b, err := jsonTree(sc, el, keys)
			if err != nil {
				return rd.syntaxErr(err)
			}
			if stream {
				if err := rd.benchmark(b); err != nil {
					return err
				}
			} else {
				pending = append(pending, b)
			}
		}
	}
	if _, err := sc.Next(); err != io.EOF {
		if err == nil {
			return &ingest.Error{File: rd.in.Path, Err: fmt.Errorf("more than one JSON value")}
		}
		return rd.syntaxErr(err)
	}
	if !sawBenchmarks {
		return &ingest.Error{File: rd.in.Path, Err: fmt.Errorf("not a GuideLLM report: no benchmarks array")}
	}
	for _, b := range pending {
		if err := rd.benchmark(b); err != nil {
			return err
		}
	}
	return nil
}

func (rd *reportReader) readYAML(r io.Reader) error {
	root, err := yamlTree(rd.in.Path, r)
	if err != nil {
		return err
	}
	if root.kind != kObject {
		return &ingest.Error{File: rd.in.Path, Line: root.line, Column: root.col, Err: fmt.Errorf("expected a mapping at the top, found %s", root.kind)}
	}
	bs := root.get("benchmarks")
	if bs == nil || bs.kind != kArray {
		return &ingest.Error{File: rd.in.Path, Err: fmt.Errorf("not a GuideLLM report: no benchmarks list")}
	}
	rd.top = &node{kind: kObject}
	for i, k := range root.keys {
		if k != "benchmarks" {
			rd.top.keys = append(rd.top.keys, k)
			rd.top.vals = append(rd.top.vals, root.vals[i])
		}
	}
	for _, b := range bs.vals {
		if err := rd.benchmark(b); err != nil {
			return err
		}
	}
	return nil
}

func (rd *reportReader) benchmark(b *node) error {
	if err := rd.ctx.Err(); err != nil {
		return err
	}
	br := &benchReader{in: rd.in, sink: rd.sink, top: rd.top, b: b, index: rd.count}
	v, err := br.read()
	if err != nil {
		return err
	}
	rd.count++
	rd.versions = append(rd.versions, v)
	return nil
}
