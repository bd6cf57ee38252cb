package all_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
)

// deepLevels is the nesting of the hostile inputs: 4 million levels, as
// in the report of issue 15 (an 8 MB file that overflowed the stack).
const deepLevels = 4 << 20

// deepen inserts a member "deep": [[[...]]] nested levels deep before the
// last '}' of the first line (line formats) or of the whole file, so that
// the file still starts as the tool's own and detection picks its format.
func deepen(t *testing.T, data []byte, lines bool, levels int) []byte {
	t.Helper()
	end := len(data)
	if lines {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			end = i
		}
	}
	at := bytes.LastIndexByte(data[:end], '}')
	if at < 0 {
		t.Fatal("no object to deepen")
	}
	var b bytes.Buffer
	b.Grow(len(data) + 2*levels + 16)
	b.Write(data[:at])
	b.WriteString(`, "deep": `)
	b.Write(bytes.Repeat([]byte{'['}, levels))
	b.Write(bytes.Repeat([]byte{']'}, levels))
	b.Write(data[at:])
	return b.Bytes()
}

// TestDeepJSON: every JSON reader refuses a document nested millions of
// levels deep with a positioned error ("nesting deeper than 1000
// levels"), instead of overflowing the stack, and leaves no temporary
// bundle directory behind.
func TestDeepJSON(t *testing.T) {
	cases := []struct {
		format, fixture string
		lines           bool
		// folder: the fixture is read within its folder (copied whole),
		// as a tool that refuses the file alone needs.
		folder bool
	}{
		{"vllm", "../vllm/testdata/serve_detailed.json", false, false},
		{"vllm", "../vllm/testdata/sweep_summary.json", false, false},
		{"genai-perf", "../genaiperf/testdata/artifacts/demo-8b-openai-chat-concurrency2/profile_export_genai_perf.json", false, false},
		{"genai-perf", "../genaiperf/testdata/artifacts/demo-8b-openai-chat-concurrency2/profile_export.json", false, false},
		{"aiperf", "../aiperf/testdata/artifacts/demo-8b-openai-chat-concurrency4/profile_export_aiperf.json", false, false},
		{"aiperf", "../aiperf/testdata/artifacts/demo-8b-openai-chat-concurrency4/profile_export_aiperf_timeslices.json", false, false},
		{"aiperf", "../aiperf/testdata/artifacts/demo-8b-openai-chat-concurrency4/gpu_telemetry_export.jsonl", true, false},
		{"aiperf", "../aiperf/testdata/artifacts/demo-8b-openai-chat-concurrency4/profile_export.jsonl", true, false},
		{"guidellm", "../guidellm/testdata/genC_complete.json", false, false},
		{"guidellm", "../guidellm/testdata/gen0_v01.json", false, false},
		{"llmperf", "../llmperf/testdata/demo_summary.json", false, false},
		{"llmperf", "../llmperf/testdata/demo_individual_responses.json", false, false},
		{"mlperf", "../mlperf/testdata/server_token_detail.txt", true, false},
		{"genai-bench", "../genaibench/testdata/experiment/N480_240_300_150_text-to-text_num_concurrency_4_time_60s.json", false, false},
		{"genai-bench", "../genaibench/testdata/experiment/experiment_metadata.json", false, true},
		{"inference-perf", "../inferenceperf/testdata/report/stage_0_lifecycle_metrics.json", false, false},
		{"inference-perf", "../inferenceperf/testdata/report/per_request_lifecycle_metrics.json", false, false},
		{"inference-perf", "../inferenceperf/testdata/report/summary_lifecycle_metrics.json", false, false},
		{"inference-perf", "../inferenceperf/testdata/summary_prometheus_metrics.json", false, false},
		{"llmd-br", "../llmdbr/testdata/v0.2_vllm-benchmark.json", false, false},
		{"mlperf-endpoints", "../mlperfendpoints/testdata/result_summary_native_window.json", false, false},
		{"mlperf-endpoints", "../mlperfendpoints/testdata/report/performance/result_summary.json", false, false},
	}
	for _, c := range cases {
		t.Run(c.format+"/"+filepath.Base(c.fixture), func(t *testing.T) {
			data, err := os.ReadFile(c.fixture)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			in := filepath.Join(dir, filepath.Base(c.fixture))
			input := in
			if c.folder {
				input = filepath.Join(dir, "in")
				in = filepath.Join(input, filepath.Base(c.fixture))
				if err := os.CopyFS(input, os.DirFS(filepath.Dir(c.fixture))); err != nil {
					t.Fatal(err)
				}
				os.Chmod(in, 0o644)
			}
			if err := os.WriteFile(in, deepen(t, data, c.lines, deepLevels), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, format := range []string{"", c.format} {
				dest := filepath.Join(dir, "out.bundle")
				sum, err := ingest.ToBundle(context.Background(), []string{input}, dest, ingest.Options{Formats: all.Formats(), Format: format})
				if c.lines {
					// A line record is one row: it is rejected, with the
					// limit as its reason, and the other lines are read.
					if err != nil {
						t.Fatalf("format %q: %v", format, err)
					}
					os.RemoveAll(dest)
					found := false
					for _, rej := range sum.Manifest.Sources[0].Rejections {
						found = found || rej.Line == 1 && strings.Contains(rej.Reason, "nesting deeper than 1000 levels")
					}
					if !found {
						t.Errorf("format %q: no rejection of line 1 for its nesting: %+v", format, sum.Manifest.Sources[0].Rejections)
					}
					continue
				}
				if err == nil {
					t.Fatalf("format %q: no error", format)
				}
				msg := err.Error()
				if !strings.Contains(msg, "nesting deeper than 1000 levels") || !regexp.MustCompile(`^`+regexp.QuoteMeta(in)+`:\d+:\d+: `).MatchString(msg) {
					t.Errorf("format %q: %v", format, err)
				}
				left, _ := filepath.Glob(filepath.Join(dir, ".out.bundle.tmp-*"))
				if _, serr := os.Stat(dest); serr == nil || len(left) > 0 {
					t.Errorf("format %q: bundle or temporary directory left: %v", format, left)
				}
			}
		})
	}
}
