package all_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/schemas"
)

// TestNativeNamesDocumented ingests every corpus file and checks that each
// metric row a reader emits is documented in the native-name tables
// (schemas/native_<tool>.go, shown by verdict schema): a row for the
// tool and definition, and the row's native name among that row's Names.
// Names are written for people ("ttfts; {mean,median,std,pN}_ttft_ms"),
// so both sides are reduced to their key stems: braces expanded, then the
// statistic and unit words (mean, p99, ms, ...) dropped.
func TestNativeNamesDocumented(t *testing.T) {
	formats := all.Formats()
	type key struct {
		tool   string
		metric schemas.MetricID
		native string
	}
	where := map[key]string{}
	for _, folder := range corpusFolders {
		dir := testkit.Corpus(t, folder)
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, path := range files {
			if _, refused := refusedFile(path); refused || strings.HasSuffix(path, "SOURCES.md") {
				continue
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			head := data[:min(len(data), ingest.HeadSize)]
			var best ingest.Format
			score := 0
			for _, f := range formats {
				if s := f.Detect(path, head); s > score {
					best, score = f, s
				}
			}
			r, err := ingesttest.ReadFile(t, best, path)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			tools := map[string]string{}
			for _, run := range r.Runs {
				tools[run.ID] = run.Tool
			}
			for _, m := range r.Metrics {
				if m.Source != schemas.SourceReported {
					continue // verdict's own computation over the tool's data
				}
				k := key{tools[m.RunID], m.MetricID, m.NativeName}
				if _, ok := where[k]; !ok {
					where[k] = filepath.Base(path)
				}
			}
		}
	}
	if len(where) == 0 {
		t.Fatal("no metric rows read")
	}
	for k, file := range where {
		def, _ := schemas.Lookup(k.metric)
		var rows []schemas.Native
		for _, n := range def.Reported {
			if n.Tool == k.tool {
				rows = append(rows, n)
			}
		}
		if len(rows) == 0 {
			t.Errorf("%s: %s emits %s (native %q), and no native-name table row maps %s to it", file, k.tool, k.metric, k.native, k.tool)
			continue
		}
		if k.native == "" {
			t.Errorf("%s: %s reports %s without its native name", file, k.tool, k.metric)
			continue
		}
		words := keyWords(k.native)
		if !slices.ContainsFunc(rows, func(n schemas.Native) bool { return documents(n.Names, words) }) {
			var names []string
			for _, n := range rows {
				names = append(names, n.Names)
			}
			t.Errorf("%s: %s emits %s as %q, and its words %q are not all in the documented names %q", file, k.tool, k.metric, k.native, words, names)
		}
	}
}

var corpusFolders = []string{"vllm", "genai-perf", "aiperf", "mlperf", "guidellm", "llmperf", "locust",
	"llmd-br", "inference-perf", "genai-bench", "mlperf-endpoints", "aiperf-energy"}

var (
	wordSplit = regexp.MustCompile(`[^a-z0-9]+`)
	// statWord matches the words of a key that name its statistic, unit
	// or population rather than what it measures.
	statWord = regexp.MustCompile(`^(mean|avg|median|std|stddev|dev|min|max|sum|total|count|pn|p\d+|\d+|ms|s|us|ns|sec|of|quantiles|percentile|percentiles|successful|metrics|result|summary)$`)
)

// keyWords are the words of a native key that say what it measures.
func keyWords(name string) []string {
	var out []string
	for _, w := range wordSplit.Split(strings.ToLower(name), -1) {
		if w != "" && !statWord.MatchString(w) {
			out = append(out, w)
		}
	}
	return out
}

// documents reports whether a native key's words and a Names text agree:
// every word of the key is in the text (keys written out in full), or
// every word of one of the text's keys is in the key (the text names the
// key without the path of objects around it, "latency.request_latency"
// for results.request_performance.aggregate.latency.request_latency).
func documents(names string, words []string) bool {
	have := map[string]bool{}
	for _, w := range wordSplit.Split(strings.ToLower(names), -1) {
		have[w] = true
	}
	if !slices.ContainsFunc(words, func(w string) bool { return !have[w] }) {
		return true
	}
	for _, key := range strings.FieldsFunc(names, func(r rune) bool { return strings.ContainsRune(";,()", r) }) {
		kw := keyWords(key)
		if len(kw) > 0 && !slices.ContainsFunc(kw, func(w string) bool { return !slices.Contains(words, w) }) {
			return true
		}
	}
	return false
}
