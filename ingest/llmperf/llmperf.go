// Package llmperf reads the results of ray-project/llmperf's
// token_benchmark_ray.py: <name>_summary.json (one flat object) and
// <name>_individual_responses.json (a list of per-request objects).
//
// Given together (same directory, same <name>), the two files are one run
// (group.go): the summary's statistics, the responses' request rows, and
// the statistics verdict recomputes from them the way the tool summarises
// (requests without error_code only, pandas linear percentiles, std with
// ddof 1), checked against the summary's. Given alone, each file is a run
// of its own, with the label result_name (the file name without its
// suffix).
//
// What LLMPerf's numbers mean changed with its code, and no file records
// the code version (the "version" field has said 2023-08-31 since the
// start):
//
//   - inter_token_latency_s is the sum of the chunk gaps, TTFT included,
//     divided by the tokenizer's output tokens until 2024-12-08
//     (tpot_incl_ttft), by the streamed chunk count after
//     (tpot_incl_ttft_per_chunk);
//   - request_output_throughput_token_per_s counted chunks until
//     2024-04-07 (request_output_chunk_rate), tokens after
//     (e2e_output_token_rate).
//
// A summary is dated by its timestamp (the run's date bounds its code's
// date from above); an individual-responses file by its data (a
// chunk-based rate times the latency is not the token count), and when
// the data cannot tell the eras apart the era is unknown; a pair takes
// the summary's date. The choice is recorded as run flags. Token counts come from the
// hf-internal-testing/llama-tokenizer and include the BOS token.
// Failed requests (error_code set; LLMPerf writes zeros for their
// latencies) are request rows with status error and no latency.
package llmperf

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
)

// Format is the LLMPerf ingest format.
type Format struct{}

func (Format) Name() string { return "llmperf" }

func (Format) Description() string {
	return "LLMPerf token_benchmark_ray.py *_summary.json and *_individual_responses.json"
}

const (
	tokenizer   = "hf-internal-testing/llama-tokenizer"
	tokenSource = "client tokenizer hf-internal-testing/llama-tokenizer (not the served model's), output counts include the BOS token"
)

// Detect recognises the summary by its flattened results_ keys and the
// individual responses by their per-request keys. LLMPerf's correctness
// files (llm_correctness.py) have other keys and are not recognised.
func (Format) Detect(name string, head []byte) int {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) == 0 {
		return 0
	}
	has := func(s string) bool { return bytes.Contains(head, []byte(s)) }
	if has(`"num_mismatched_requests"`) || has(`"mismatch_rate"`) {
		return 0
	}
	switch t[0] {
	case '{':
		if (has(`"results_ttft_s_`) || has(`"results_inter_token_latency_s_`) || has(`"results_end_to_end_latency_s_`)) &&
			(has(`"num_concurrent_requests"`) || has(`"mean_input_tokens"`)) {
			return 90
		}
	case '[':
		if has(`"inter_token_latency_s"`) && has(`"ttft_s"`) && has(`"end_to_end_latency_s"`) {
			return 90
		}
		if strings.HasSuffix(name, "_individual_responses.json") && bytes.Equal(bytes.TrimSpace(t), []byte("[]")) {
			return 40
		}
	}
	return 0
}

// resultName is the file name without LLMPerf's suffix.
func resultName(path string) string {
	base := filepath.Base(path)
	for _, s := range []string{"_individual_responses.json", "_summary.json", ".json"} {
		if strings.HasSuffix(base, s) {
			return strings.TrimSuffix(base, s)
		}
	}
	return base
}

// Read reads one LLMPerf file.
func (Format) Read(ctx context.Context, in *ingest.Input, sink ingest.Sink) error {
	rc, err := in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	sc := jsonscan.New(rc)
	tok, err := sc.Next()
	if err == io.EOF {
		return &ingest.Error{File: in.Path, Err: fmt.Errorf("no JSON value found")}
	}
	if err != nil {
		return syntaxErr(in.Path, err)
	}
	switch tok.Kind {
	case jsonscan.BeginObject:
		err = readSummary(ctx, in, sc, tok, sink)
	case jsonscan.BeginArray:
		err = readIndividual(ctx, in, sc, tok, sink)
	default:
		return &ingest.Error{File: in.Path, Line: tok.Pos.Line, Column: tok.Pos.Col,
			Err: fmt.Errorf("expected a summary object or a list of responses, found %s", tok.Kind)}
	}
	if err != nil {
		return err
	}
	if tok, err := sc.Next(); err != io.EOF {
		if err != nil {
			return syntaxErr(in.Path, err)
		}
		return &ingest.Error{File: in.Path, Line: tok.Pos.Line, Column: tok.Pos.Col, Err: fmt.Errorf("more than one JSON value")}
	}
	return nil
}

func syntaxErr(path string, err error) error {
	if se, ok := err.(*jsonscan.SyntaxError); ok {
		return &ingest.Error{File: path, Line: se.Pos.Line, Column: se.Pos.Col, Err: fmt.Errorf("malformed JSON: %s", se.Msg)}
	}
	return &ingest.Error{File: path, Err: err}
}

// A member is one key of a flat object. Arrays of numbers are read into
// list; nested objects and other arrays are skipped.
type member struct {
	key     string
	kind    jsonscan.Kind
	text    string // strings, and numbers' text in summaries
	num     float64
	numErr  bool // a Number token that does not parse
	pos     jsonscan.Pos
	list    []float64
	listBad bool // an array with a non-number element
}

// valueText is the member's value as text, for messages.
func (m member) valueText() string {
	if m.text == "" && m.kind == jsonscan.Number {
		return strconv.FormatFloat(m.num, 'g', -1, 64)
	}
	return m.text
}

// knownKeys are interned so that reading a response allocates no key
// strings.
var knownKeys = []string{"error_code", "error_msg", "inter_token_latency_s", "ttft_s", "end_to_end_latency_s",
	"request_output_throughput_token_per_s", "number_total_tokens", "number_output_tokens", "number_input_tokens"}

func internKey(b []byte) string {
	for _, k := range knownKeys {
		if string(b) == k {
			return k
		}
	}
	return string(b)
}

// readObject reads a flat object whose '{' was just returned, appending
// its members to ms[:0]. keepNumText keeps numbers' text (summaries); the
// response lists only need their values.
func readObject(sc *jsonscan.Scanner, path string, ms []member, keepNumText bool) ([]member, error) {
	ms = ms[:0]
	var scratch []byte
	for {
		k, err := sc.Next()
		if err != nil {
			return nil, syntaxErr(path, err)
		}
		if k.Kind == jsonscan.EndObject {
			return ms, nil
		}
		kb, err := jsonscan.Unquote(k.Raw, scratch[:0])
		if err != nil {
			return nil, syntaxErr(path, err)
		}
		key := internKey(kb)
		v, err := sc.Next()
		if err != nil {
			return nil, syntaxErr(path, err)
		}
		m := member{key: key, kind: v.Kind, pos: v.Pos}
		switch v.Kind {
		case jsonscan.String:
			if len(v.Raw) > 2 {
				if m.text, err = sc.Text(v); err != nil {
					return nil, syntaxErr(path, err)
				}
			}
		case jsonscan.Number:
			f, perr := jsonscan.Float(v.Raw)
			m.num, m.numErr = f, perr != nil
			if keepNumText || perr != nil || key == "error_code" {
				m.text = string(v.Raw)
			}
		case jsonscan.True, jsonscan.False:
			m.text = v.Kind.String()
		case jsonscan.BeginArray:
			for {
				e, err := sc.Next()
				if err != nil {
					return nil, syntaxErr(path, err)
				}
				if e.Kind == jsonscan.EndArray {
					break
				}
				if e.Kind != jsonscan.Number {
					m.listBad = true
					if err := sc.Skip(e); err != nil {
						return nil, syntaxErr(path, err)
					}
					continue
				}
				f, perr := jsonscan.Float(e.Raw)
				if perr != nil {
					m.listBad = true
					continue
				}
				m.list = append(m.list, f)
			}
		case jsonscan.BeginObject:
			if err := sc.Skip(v); err != nil {
				return nil, syntaxErr(path, err)
			}
		}
		ms = append(ms, m)
	}
}
