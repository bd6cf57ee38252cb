package llmperf_test

import (
	"context"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/validate"
)

// TestUnknownEraAgainstDatedRun runs V004 end to end on the one-token-chunk
// responses of make_era.py (December 2023 code, a server streaming one token
// per chunk) against dated runs of the same LLMPerf version (every file says
// "2023-08-31"). Alone, the responses cannot tell the code eras apart
// (docs/formats/llmperf.md section 5): their ITL and rate definitions differ
// from those of a dated run only as far as their era is unknown, so V004
// says the match cannot be verified (issue 14: it said "different
// definitions"). With their summary the pair is dated, December 2023: it
// matches a run of its own era, and against a 2026 run the definitions
// really differ.
func TestUnknownEraAgainstDatedRun(t *testing.T) {
	bundle := func(names ...string) string {
		t.Helper()
		sum, err := ingestFiles(t, names...)
		if err != nil {
			t.Fatal(err)
		}
		return sum.Dest
	}
	alone := bundle("oneperchunk_individual_responses.json")
	pair := bundle("oneperchunk_summary.json", "oneperchunk_individual_responses.json")
	dec2023 := bundle("oneperchunk_summary.json")                            // timestamp 2023-12-27: chunk rates, ITL over tokenizer tokens
	jan2026 := bundle("demo_summary.json", "demo_individual_responses.json") // timestamp 2026-01-01: the newest code
	const differ = "no definition is common to both runs, so the numbers measure different things"
	for _, c := range []struct {
		name       string
		a, b       string
		verdict    validate.Verdict
		unverified int // findings that say the match cannot be verified
		different  int // findings of different definitions
	}{
		{"unknown era against 2026", alone, jan2026, validate.Incomplete, 2, 0},
		{"unknown era against 2023", alone, dec2023, validate.Incomplete, 2, 0},
		{"dated pair against its era", pair, dec2023, validate.Comparable, 0, 0},
		{"dated pair against 2026", pair, jan2026, validate.NotComparable, 0, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := analysis.Validate(context.Background(), []string{c.a, c.b}, validate.Options{Compare: true, Rules: []string{"V004"}})
			if err != nil {
				t.Fatal(err)
			}
			unverified, different := 0, 0
			for _, f := range rep.Findings {
				switch {
				case strings.Contains(f.Message, differ):
					different++
				case f.Unverified && strings.Contains(f.Message, "cannot be verified") && strings.Contains(f.Message, "_uncertain"):
					unverified++
				default:
					t.Errorf("finding %+v", f)
				}
			}
			if rep.Verdict != c.verdict || unverified != c.unverified || different != c.different {
				t.Errorf("verdict %s, %d unverified, %d different definitions; want %s, %d, %d; findings %+v",
					rep.Verdict, unverified, different, c.verdict, c.unverified, c.different, rep.Findings)
			}
		})
	}
}
