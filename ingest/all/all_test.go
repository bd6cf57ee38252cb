package all_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/internal/testkit"
)

// TestDetectionMatrix runs detection over every real-tool file of the
// shared corpus: each must be taken for its own tool by every other
// format's Detect losing, with no tie, and ingest through the driver with
// the counts adding up.
func TestDetectionMatrix(t *testing.T) {
	formats := all.Formats()
	// folder -> the tool (and format) its files are; aiperf-energy holds
	// AIPerf runs with GPU energy telemetry.
	toolOf := map[string]string{"aiperf-energy": "aiperf"}
	for _, folder := range []string{"vllm", "genai-perf", "aiperf", "mlperf", "guidellm", "llmperf", "locust",
		"llmd-br", "inference-perf", "genai-bench", "mlperf-endpoints", "aiperf-energy"} {
		tool := folder
		if t, ok := toolOf[folder]; ok {
			tool = t
		}
		dir := testkit.Corpus(t, folder)
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, path := range files {
			if strings.HasSuffix(path, "SOURCES.md") {
				continue
			}
			t.Run(tool+"/"+filepath.Base(path), func(t *testing.T) {
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				head := data[:min(len(data), ingest.HeadSize)]
				best, bestScore, scores := "", 0, []string{}
				for _, f := range formats {
					s := f.Detect(path, head)
					if s > 0 {
						scores = append(scores, f.Name()+"="+strconv.Itoa(s))
					}
					switch {
					case s > bestScore:
						best, bestScore = f.Name(), s
					case s == bestScore && s > 0:
						t.Errorf("tie between %s and %s at %d", best, f.Name(), s)
					}
				}
				if best != tool {
					t.Errorf("detected as %q (scores %v), want %q", best, scores, tool)
				}
				sum, err := ingest.ToBundle(context.Background(), []string{path}, filepath.Join(t.TempDir(), "b"), ingest.Options{Formats: formats})
				if reason, refused := refusedFile(path); refused {
					// Configs, metadata and schemas without results: refused
					// with the reason, by the tool's own format.
					if err == nil || !strings.Contains(err.Error(), reason) {
						t.Errorf("want a refusal saying %q, got %v", reason, err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				src := sum.Manifest.Sources[0]
				if src.Tool != tool {
					t.Errorf("source tool %q", src.Tool)
				}
				for table, c := range src.Counts {
					if c.Read != c.Ingested+c.Rejected {
						t.Errorf("%s: %+v", table, c)
					}
				}
				if src.ToolVersion == "" {
					t.Error("no tool version")
				}
				if len(src.Runs) == 0 {
					t.Error("no runs")
				}
			})
		}
	}
}

// refusedFile says which corpus files hold no results, and the reason
// their format gives.
func refusedFile(path string) (string, bool) {
	base := filepath.Base(path)
	switch {
	case strings.HasSuffix(base, "json-schema.json"):
		return "JSON Schema of the Benchmark Report, not a report", true
	case strings.HasSuffix(base, "experiment_metadata.json"):
		return "not its results", true
	case strings.HasSuffix(base, ".yaml") && (filepath.Base(filepath.Dir(path)) == "inference-perf" || filepath.Base(filepath.Dir(path)) == "mlperf-endpoints"):
		return "not its results", true
	}
	return "", false
}
