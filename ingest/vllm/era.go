package vllm

import (
	"fmt"
	"time"
)

// No vLLM result file records a vLLM version. What a file's keys say about
// the benchmark code that wrote it is an era: an interval of upstream
// commit dates. A key that appeared on a date bounds the era from below; a
// key that disappeared bounds it from above; the file's own date (when the
// run finished) bounds it from above too. Semantics that changed over time
// (TPOT's formula, token counting, a swapped mean and median) are decided
// only when the era lies entirely on one side of the change, and flagged as
// uncertain otherwise.

// A day is a date as "YYYY-MM-DD"; "" is unbounded.
type era struct{ lo, hi string }

func (e era) String() string {
	switch {
	case e.lo == "" && e.hi == "":
		return "unknown"
	case e.lo == "":
		return "before " + e.hi
	case e.hi == "":
		return e.lo + " or later"
	}
	return e.lo + ".." + e.hi
}

// before reports whether the whole era lies before day.
func (e era) before(day string) bool { return e.hi != "" && e.hi <= day }

// since reports whether the whole era lies on or after day.
func (e era) since(day string) bool { return e.lo != "" && e.lo >= day }

// within reports whether the whole era lies in [lo, hi).
func (e era) within(lo, hi string) bool { return e.since(lo) && e.before(hi) }

// keySince lists keys by the upstream date they first appeared.
var keySince = map[string]string{
	"request_throughput":             "2024-03-27",
	"input_lens":                     "2024-03-27",
	"mean_itl_ms":                    "2024-06-05",
	"std_ttft_ms":                    "2024-07-11",
	"mean_e2el_ms":                   "2024-08-29",
	"total_token_throughput":         "2024-09-04",
	"max_concurrency":                "2024-10-18",
	"request_goodput:":               "2024-10-20",
	"burstiness":                     "2024-11-07",
	"endpoint_type":                  "2025-03-11",
	"ramp_up_strategy":               "2025-06-24",
	"request_goodput":                "2025-07-01",
	"max_output_tokens_per_s":        "2025-09-17",
	"failed":                         "2025-10-17",
	"spec_decode_acceptance_rate":    "2026-01-06",
	"start_times":                    "2026-01-22",
	"rtfx":                           "2026-02-09",
	"queue_times":                    "2026-08-28",
	"mean_client_queue_time_ms":      "2026-08-28",
	"latencies":                      "2026-09-13",
	"probe_completed":                "2026-09-13",
	"diffusion_committed_throughput": "2026-09-13",
}

// keyUntil lists keys by the upstream date they were removed or renamed.
// "request_goodput:" lives on in forks; a file from a fork is dated by its
// code, which is what matters here.
var keyUntil = map[string]string{
	"request_inthroughput": "2024-03-27",
	"version":              "2024-03-27",
	"input_throughput":     "2024-09-04",
	"use_beam_search":      "2024-10-06",
	"request_goodput:":     "2025-07-01",
	"best_of":              "2025-05-27",
}

// eraOf dates a run object's code from its keys and its date.
func eraOf(r *record) era {
	var e era
	for _, m := range r.members {
		if d, ok := keySince[m.key]; ok && d > e.lo {
			e.lo = d
		}
		if d, ok := keyUntil[m.key]; ok && (e.hi == "" || d < e.hi) {
			e.hi = d
		}
	}
	// vllm bench serve wrote endpoint_type without backend until 2025-09-18.
	if r.has("endpoint_type") && !r.has("backend") && (e.hi == "" || "2025-09-18" < e.hi) {
		e.hi = "2025-09-18"
	}
	if v, ok := r.get("date"); ok {
		if d, ok := fileDay(v.text); ok && (e.hi == "" || d < e.hi) {
			// The run finished on d, so its code is from d or earlier.
			// Use the next day as an exclusive bound.
			e.hi = d
		}
	}
	if e.lo != "" && e.hi != "" && e.lo > e.hi {
		// Contradictory evidence (a back-dated clock, a fork): trust the keys.
		e.hi = ""
	}
	return e
}

// fileDay turns vLLM's "YYYYmmdd-HHMMSS" into the following day, an
// exclusive upper bound on the code's date.
func fileDay(s string) (string, bool) {
	t, err := time.Parse("20060102-150405", s)
	if err != nil {
		return "", false
	}
	return t.AddDate(0, 0, 1).Format("2006-01-02"), true
}

func (e era) describe(date string) string {
	s := fmt.Sprintf("benchmark code of %s", e)
	if date != "" {
		s += " (file dated " + date + ")"
	}
	return s
}
