package validate

import (
	"math"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/schemas"
)

// ruleCase is one hand-written case of one rule: a change to a clean pair
// of runs, and whether the rule fires.
type ruleCase struct {
	rule   string
	name   string
	change func(a, b *RunData)
	// fire: the rule reports a finding; unverified: that finding reports
	// missing evidence; skip: the rule does not apply.
	fire, unverified, skip bool
	// want are substrings of the findings' messages or evidence.
	want []string
}

func rulesCases() []ruleCase {
	none := func(a, b *RunData) {}
	return []ruleCase{
		// V001
		{rule: "V001", name: "server vs offline", fire: true, want: []string{"server scenario", "offline scenario", "run-a", "run-b"},
			change: func(a, b *RunData) { b.Run.Scenario = schemas.ScenarioOffline }},
		{rule: "V001", name: "unknown scenario", fire: true, unverified: true, want: []string{"scenario of run-b is unknown"},
			change: func(a, b *RunData) { b.Run.Scenario = schemas.ScenarioUnknown }},
		{rule: "V001", name: "same scenario", change: none},

		// V002
		{rule: "V002", name: "finite vs inf", fire: true, want: []string{"run-a offered a finite rate of 10 req/s", "run-b released every request at once"},
			change: func(a, b *RunData) { b.Run.RequestRate = schemas.Some(math.Inf(1)) }},
		{rule: "V002", name: "rates differ", fire: true, want: []string{"10 req/s for run-a, 30 req/s for run-b"},
			change: func(a, b *RunData) { b.Run.RequestRate = schemas.Some(30.0) }},
		{rule: "V002", name: "poisson vs gamma", fire: true, want: []string{"poisson (burstiness 1) for run-a, gamma (burstiness 0.5) for run-b"},
			change: func(a, b *RunData) {
				b.Run.Arrival, b.Run.Burstiness = schemas.ArrivalGamma, schemas.Some(0.5)
			}},
		{rule: "V002", name: "gamma shapes differ", fire: true, want: []string{"different burstiness: 2 for run-a, 0.5 for run-b"},
			change: func(a, b *RunData) {
				a.Run.Arrival, a.Run.Burstiness = schemas.ArrivalGamma, schemas.Some(2.0)
				b.Run.Arrival, b.Run.Burstiness = schemas.ArrivalGamma, schemas.Some(0.5)
			}},
		{rule: "V002", name: "concurrency differs", fire: true, want: []string{"concurrency limits differ: none for run-a, 64 for run-b"},
			change: func(a, b *RunData) { b.Run.MaxConcurrency = schemas.Some(int64(64)) }},
		{rule: "V002", name: "ramp-up", fire: true, want: []string{"ramp-up differs: none for run-a, linear 1->10 req/s for run-b"},
			change: func(a, b *RunData) { b.Run.RampUp = "linear 1->10 req/s" }},
		{rule: "V002", name: "concurrency unknown", fire: true, unverified: true, want: []string{"client concurrency limit of run-b is unknown"},
			change: func(a, b *RunData) { b.Run.MaxConcurrency = schemas.Opt[int64]{} }},
		{rule: "V002", name: "same arrival, rates equal to rounding", change: func(a, b *RunData) { b.Run.RequestRate = schemas.Some(10 * (1 + 1e-12)) }},

		// V003
		{rule: "V003", name: "streamed vs not", fire: true, want: []string{"run-a streamed its responses and run-b did not"},
			change: func(a, b *RunData) { b.Run.Streaming = schemas.Some(false) }},
		{rule: "V003", name: "streaming unknown", fire: true, unverified: true, want: []string{"whether run-b streamed is unknown"},
			change: func(a, b *RunData) { b.Run.Streaming = schemas.Opt[bool]{} }},
		{rule: "V003", name: "unknown but no streamed metric compared", skip: true,
			change: func(a, b *RunData) {
				b.Run.Streaming = schemas.Opt[bool]{}
				for _, id := range []schemas.MetricID{schemas.TTFT, schemas.TPOT, schemas.ITLChunk} {
					dropMetric(b, id)
				}
			}},
		{rule: "V003", name: "both streamed", change: none},

		// V004
		{rule: "V004", name: "per-chunk ITL vs per-token TPOT", fire: true,
			want: []string{"ITL/TPOT is reported under different definitions", "itl_chunk (ITL (per chunk))", "tpot_answer (TPOT (answer))", "by run-b"},
			change: func(a, b *RunData) {
				dropMetric(a, schemas.TPOT)
				dropMetric(b, schemas.TPOT)
				renameMetric(b, schemas.ITLChunk, schemas.TPOTAnswer)
			}},
		{rule: "V004", name: "TTFT with vs without reasoning", fire: true, want: []string{"TTFT is reported under different definitions", "ttft_answer"},
			change: func(a, b *RunData) { renameMetric(b, schemas.TTFT, schemas.TTFTAnswer) }},
		{rule: "V004", name: "TPOT including TTFT", fire: true, want: []string{"tpot_incl_ttft (TPOT including TTFT)"},
			change: func(a, b *RunData) {
				dropMetric(b, schemas.ITLChunk)
				renameMetric(b, schemas.TPOT, schemas.TPOTInclTTFT)
			}},
		{rule: "V004", name: "version quirk on one side", fire: true, want: []string{"run-b has the flag itl_includes_ttft", "the first chunk gap is the TTFT"},
			change: func(a, b *RunData) { b.Run.Flags = []string{"itl_includes_ttft"} }},
		{rule: "V004", name: "uncertain quirk on one side", fire: true, unverified: true, want: []string{"itl_may_include_ttft", "cannot be verified"},
			change: func(a, b *RunData) { b.Run.Flags = []string{"itl_may_include_ttft"} }},
		{rule: "V004", name: "definition unknown to the registry", fire: true, unverified: true, want: []string{"tpot_newtool", "not in this verdict's registry"},
			change: func(a, b *RunData) {
				dropMetric(b, schemas.ITLChunk)
				renameMetric(b, schemas.TPOT, "tpot_newtool")
			}},
		{rule: "V004", name: "a common definition exists", change: func(a, b *RunData) { dropMetric(b, schemas.ITLChunk) }},
		{rule: "V004", name: "the same quirk on both sides", change: func(a, b *RunData) {
			a.Run.Flags = []string{"itl_includes_ttft"}
			b.Run.Flags = []string{"itl_includes_ttft"}
		}},

		// V005
		{rule: "V005", name: "nearest rank vs linear", fire: true, want: []string{"p99 of ttft is computed differently", "nearest_rank_floor", "linear"},
			change: func(a, b *RunData) { setMethod(b, schemas.TTFT, schemas.StatP, "nearest_rank_floor") }},
		{rule: "V005", name: "population vs sample std", fire: true, want: []string{"std of ttft", "population", "sample"},
			change: func(a, b *RunData) { setMethod(b, schemas.TTFT, schemas.StatStd, "sample") }},
		{rule: "V005", name: "method not recorded", fire: true, unverified: true, want: []string{"method not recorded"},
			change: func(a, b *RunData) { setMethod(b, schemas.TTFT, schemas.StatP, "") }},
		{rule: "V005", name: "a common method among several", change: func(a, b *RunData) {
			m := metric("run-b", schemas.TTFT, schemas.StatP, 99, 0.057, "nearest_rank_floor", nRequests)
			m.Source = schemas.SourceComputed
			b.Metrics = append(b.Metrics, m)
		}},

		// V006
		{rule: "V006", name: "dispatch vs span throughput", fire: true, want: []string{"request throughput is reported over different populations or windows", "request_throughput_span"},
			change: func(a, b *RunData) { renameMetric(b, schemas.RequestThroughput, schemas.RequestThroughputSpan) }},
		{rule: "V006", name: "window kinds differ", fire: true, want: []string{"dispatch (first dispatch -> last completion) for run-a, span"},
			change: func(a, b *RunData) { b.Run.WindowKind = schemas.WindowKindSpan }},
		{rule: "V006", name: "same window", change: none},

		// V007
		{rule: "V007", name: "hashes differ", fire: true, want: []string{"datasets differ: SHA-256 abababababab", "cdcdcdcdcdcd"},
			change: func(a, b *RunData) { b.Run.SUT.DatasetSHA256 = strings.Repeat("cd", 32) }},
		{rule: "V007", name: "names differ", fire: true, want: []string{"prompts-700 for run-a, sharegpt for run-b"},
			change: func(a, b *RunData) {
				a.Run.SUT.DatasetSHA256, b.Run.SUT.DatasetSHA256 = "", ""
				b.Run.SUT.Dataset = "sharegpt"
			}},
		{rule: "V007", name: "unknown dataset", fire: true, unverified: true, want: []string{"dataset of run-b is not recorded"},
			change: func(a, b *RunData) {
				b.Run.SUT.Dataset, b.Run.SUT.DatasetSHA256 = "", ""
				b.Requests = SummariseRequests(shiftInputs(goodRequests("run-b", nRequests), 1))
			}},
		{rule: "V007", name: "unknown dataset, same prompt sequence", change: func(a, b *RunData) {
			a.Run.SUT.Dataset, a.Run.SUT.DatasetSHA256 = "", ""
			b.Run.SUT.Dataset, b.Run.SUT.DatasetSHA256 = "", ""
		}},

		// V008
		{rule: "V008", name: "input lengths differ (KS)", fire: true, want: []string{"input length distributions differ", "Kolmogorov-Smirnov D=1", "mean 224.5"},
			change: func(a, b *RunData) {
				b.Requests = SummariseRequests(shiftInputs(goodRequests("run-b", nRequests), 100))
			}},
		{rule: "V008", name: "mean lengths differ (no per-request data)", fire: true, want: []string{"mean output lengths differ by 50%", "no per-request lengths"},
			change: func(a, b *RunData) {
				a.Requests, b.Requests = nil, nil
				setMetric(b, schemas.OutputTokens, schemas.StatSum, 2*150850)
			}},
		{rule: "V008", name: "slightly shifted lengths", change: func(a, b *RunData) {
			b.Requests = SummariseRequests(shiftInputs(goodRequests("run-b", nRequests), 1))
		}},
		{rule: "V008", name: "no lengths", skip: true, change: func(a, b *RunData) {
			a.Requests, b.Requests = nil, nil
			dropMetric(a, schemas.InputTokens)
			dropMetric(a, schemas.OutputTokens)
		}},

		// V009
		{rule: "V009", name: "prompt counts differ", fire: true, want: []string{"700 for run-a, 1000 for run-b"},
			change: func(a, b *RunData) { b.Run.NumPrompts = schemas.Some(int64(1000)) }},
		{rule: "V009", name: "same prompt count", change: none},

		// V010
		{rule: "V010", name: "quantization differs", fire: true, want: []string{"quantization differs: bf16 for run-a, fp8 for run-b"},
			change: func(a, b *RunData) { b.Run.SUT.Quantization = "fp8" }},
		{rule: "V010", name: "token source differs", fire: true, want: []string{"token source differs"},
			change: func(a, b *RunData) { b.Run.TokenSource = "client tokenizer" }},
		{rule: "V010", name: "only the platform differs", change: none},

		// V011 (a and b in one bundle)
		{rule: "V011", name: "GPU changed inside a configuration", fire: true, want: []string{"sut.gpu_model changed inside the configuration a.bundle", "run-a: NVIDIA H100; run-b: AMD MI300X"},
			change: func(a, b *RunData) { b.Bundle = a.Bundle; b.Run.SUT.CacheState = "reset" }},
		{rule: "V011", name: "same system, a field unknown on one run", change: func(a, b *RunData) {
			b.Bundle = a.Bundle
			b.Run.SUT = goodSUT("NVIDIA H100")
			b.Run.SUT.Driver = ""
		}},

		// V012 (a and b in one bundle, same system)
		{rule: "V012", name: "repeat without cache reset", fire: true, want: []string{"run-b ran after run-a against the same server", "same prompts", "cache_state unknown"},
			change: func(a, b *RunData) {
				b.Bundle = a.Bundle
				b.Run.SUT = goodSUT("NVIDIA H100")
				b.Run.SUT.CacheState = ""
				b.Run.WindowStart.V = a.Run.WindowStart.V.Add(3600e9)
			}},
		{rule: "V012", name: "repeat with a warm cache", fire: true, want: []string{"its cache_state is warm"},
			change: func(a, b *RunData) {
				b.Bundle = a.Bundle
				b.Run.SUT = goodSUT("NVIDIA H100")
				b.Run.SUT.CacheState = "warm"
			}},
		{rule: "V012", name: "repeat after a cache reset", change: func(a, b *RunData) {
			b.Bundle = a.Bundle
			b.Run.SUT = goodSUT("NVIDIA H100")
			b.Run.SUT.CacheState = "reset"
		}},
		{rule: "V012", name: "repeat on another dataset", change: func(a, b *RunData) {
			b.Bundle = a.Bundle
			b.Run.SUT = goodSUT("NVIDIA H100")
			b.Run.SUT.CacheState = ""
			b.Run.SUT.DatasetSHA256 = strings.Repeat("cd", 32)
		}},

		// V013 (run a)
		{rule: "V013", name: "three tokens per chunk", fire: true, want: []string{"chunks carry 3.014 output tokens on average"},
			change: func(a, b *RunData) { a.Requests = SummariseRequests(coalesce(goodRequests("run-a", nRequests), 3)) }},
		{rule: "V013", name: "ITL far above TPOT", fire: true, want: []string{"mean per-chunk ITL (45.7 ms) is 3.152 times the mean tpot (14.5 ms)", "acceptance length of 2.8"},
			change: func(a, b *RunData) {
				a.Requests = nil
				setMetric(a, schemas.ITLChunk, schemas.StatMean, 0.0457)
				setMetric(a, schemas.TPOT, schemas.StatMean, 0.0145)
				a.Metrics = append(a.Metrics, metric("run-a", schemas.SpecDecodeAcceptanceLength, schemas.StatValue, 0, 2.8, "", 0))
			}},
		{rule: "V013", name: "ITL far below TPOT", fire: true, want: []string{"many chunks carry no token"},
			change: func(a, b *RunData) {
				a.Requests = nil
				setMetric(a, schemas.ITLChunk, schemas.StatMean, 0.004)
			}},
		{rule: "V013", name: "one token per chunk", change: none},
		{rule: "V013", name: "no evidence", skip: true, change: func(a, b *RunData) {
			a.Requests = nil
			dropMetric(a, schemas.ITLChunk)
		}},

		// V014 (run a)
		{rule: "V014", name: "TTFT equals E2E", fire: true, want: []string{"TTFT equals E2E latency for 700 of 700"},
			change: func(a, b *RunData) { a.Requests = SummariseRequests(unstream(goodRequests("run-a", nRequests), false)) }},
		{rule: "V014", name: "one chunk per request", fire: true, want: []string{"700 of 700 successful multi-token requests arrived in a single chunk"},
			change: func(a, b *RunData) { a.Requests = SummariseRequests(unstream(goodRequests("run-a", nRequests), true)) }},
		{rule: "V014", name: "not streamed yet TTFT reported", fire: true, want: []string{"streaming: no", "ttft, tpot and itl_chunk"},
			change: func(a, b *RunData) { a.Run.Streaming = schemas.Some(false) }},
		{rule: "V014", name: "mean TTFT equals mean E2E", fire: true, want: []string{"mean TTFT (2.19 s) equals mean E2E latency"},
			change: func(a, b *RunData) {
				a.Requests = nil
				setMetric(a, schemas.TTFT, schemas.StatMean, 2.19)
			}},
		{rule: "V014", name: "single-token outputs", change: func(a, b *RunData) {
			reqs := goodRequests("run-a", nRequests)
			for i := range reqs {
				reqs[i].OutputTokens = schemas.Some(int64(1))
				reqs[i].E2ES = reqs[i].TTFTS
				reqs[i].ChunkGapsS = []float64{}
			}
			a.Requests = SummariseRequests(reqs)
		}},
		{rule: "V014", name: "streamed", change: none},
		{rule: "V014", name: "no TTFT at all", skip: true, change: func(a, b *RunData) {
			a.Requests = nil
			for _, id := range []schemas.MetricID{schemas.TTFT, schemas.TPOT, schemas.ITLChunk} {
				dropMetric(a, id)
			}
		}},

		// V015 (run a)
		{rule: "V015", name: "no warm-up", fire: true, want: []string{"warmup_requests: 0"},
			change: func(a, b *RunData) { a.Run.SUT.WarmupRequests = schemas.Some(int64(0)) }},
		{rule: "V015", name: "tool says no warm-up", fire: true, want: []string{"the tool recorded warmup_request_count: 0"},
			change: func(a, b *RunData) {
				a.Run.SUT.WarmupRequests = schemas.Opt[int64]{}
				a.Run.Labels = map[string]string{"warmup_request_count": "0"}
			}},
		{rule: "V015", name: "warm-up not recorded", fire: true, unverified: true, want: []string{"is not recorded"},
			change: func(a, b *RunData) { a.Run.SUT.WarmupRequests = schemas.Opt[int64]{} }},
		{rule: "V015", name: "cold first request", fire: true, want: []string{"first request (index 0) has a TTFT of 2.5 s", "times the median"},
			change: func(a, b *RunData) {
				reqs := goodRequests("run-a", nRequests)
				reqs[0].TTFTS = schemas.Some(2.5)
				a.Requests = SummariseRequests(reqs)
			}},
		{rule: "V015", name: "warm-up recorded by the tool", change: func(a, b *RunData) {
			a.Run.SUT.WarmupRequests = schemas.Opt[int64]{}
			a.Run.Labels = map[string]string{"warmup_request_count": "10"}
		}},
		{rule: "V015", name: "warm-up rows", change: func(a, b *RunData) {
			a.Run.SUT.WarmupRequests = schemas.Opt[int64]{}
			reqs := goodRequests("run-a", nRequests)
			reqs[0].Phase = schemas.PhaseWarmup
			reqs[0].TTFTS = schemas.Some(2.5)
			a.Requests = SummariseRequests(reqs)
		}},

		// V016 (run a)
		{rule: "V016", name: "all failed", fire: true, want: []string{"no request succeeded (completed 0, failed 700)"},
			change: func(a, b *RunData) {
				a.Run.Completed, a.Run.Failed = schemas.Some(int64(0)), schemas.Some(int64(700))
				a.Run.Flags = []string{"no_successful_requests"}
			}},
		{rule: "V016", name: "failures above the threshold", fire: true, want: []string{"50 of 700 requests failed (7.143%, policy limit 1%)"},
			change: func(a, b *RunData) { a.Run.Completed, a.Run.Failed = schemas.Some(int64(650)), schemas.Some(int64(50)) }},
		{rule: "V016", name: "failures not reported", fire: true, unverified: true, want: []string{"does not report failed requests"},
			change: func(a, b *RunData) { a.Run.Failed, a.Requests = schemas.Opt[int64]{}, nil }},
		{rule: "V016", name: "failures within the threshold", change: func(a, b *RunData) {
			a.Run.Completed, a.Run.Failed = schemas.Some(int64(697)), schemas.Some(int64(3))
		}},
		{rule: "V016", name: "failures counted from complete request rows", change: func(a, b *RunData) { a.Run.Failed = schemas.Opt[int64]{} }},

		// V017 (run a)
		{rule: "V017", name: "p99 over 100 requests", fire: true, want: []string{"p95 needs 130 (e2e over 100); p99 needs 662 (ttft over 100, tpot over 100)"},
			change: func(a, b *RunData) {
				for i := range a.Metrics {
					a.Metrics[i].N = schemas.Some(int64(100))
				}
				a.Metrics = append(a.Metrics, metric("run-a", schemas.E2E, schemas.StatP, 95, 2.3, "linear", 100))
			}},
		{rule: "V017", name: "enough samples", change: none},
		{rule: "V017", name: "descriptive percentiles are not claims", change: func(a, b *RunData) {
			a.Metrics = append(a.Metrics, metric("run-a", schemas.InputTokens, schemas.StatP, 99, 149, "linear", 10))
		}},

		// V018 (run a)
		{rule: "V018", name: "no inventory", fire: true, unverified: true,
			want:   []string{"no system-under-test inventory was supplied; unknown model, quantization, engine, engine_version, gpu_model, gpu_count, driver, dataset"},
			change: func(a, b *RunData) { a.Run.SUT = schemas.Inventory{} }},
		{rule: "V018", name: "window unknown", fire: true, unverified: true, want: []string{"measurement window is unknown (window_kind, duration_s)"},
			change: func(a, b *RunData) { a.Run.WindowKind, a.Run.DurationS = "", schemas.Opt[float64]{} }},
		{rule: "V018", name: "load unknown", fire: true, unverified: true, want: []string{"how load was offered is unknown (scenario, arrival)"},
			change: func(a, b *RunData) { a.Run.Scenario, a.Run.Arrival = schemas.ScenarioUnknown, schemas.ArrivalUnknown }},
		{rule: "V018", name: "definition unknown", fire: true, unverified: true, want: []string{"metric definitions unknown to this verdict: ttft_future"},
			change: func(a, b *RunData) { renameMetric(a, schemas.TTFT, "ttft_future") }},
		{rule: "V018", name: "uncertain definition", fire: true, unverified: true, want: []string{"e2el_mean_median_may_be_swapped: mean and median E2E may be swapped"},
			change: func(a, b *RunData) { a.Run.Flags = []string{"e2el_mean_median_may_be_swapped"} }},
		{rule: "V018", name: "complete", change: func(a, b *RunData) { a.Run.SUT.Image, a.Run.SUT.CUDA = "", "" }},

		// V019 (run a)
		{rule: "V019", name: "GenAI-Perf", fire: true, want: []string{"genai-perf, which is no longer maintained", "AIPerf"},
			change: func(a, b *RunData) { a.Run.Tool = "genai-perf" }},
		{rule: "V019", name: "vLLM", change: none},

		// V020 (run a)
		{rule: "V020", name: "LoadGen INVALID", fire: true, want: []string{"MLPerf LoadGen declared the result INVALID (result_invalid)", "min_duration_not_met"},
			change: func(a, b *RunData) { a.Run.Flags = []string{"min_duration_not_met", "result_invalid"} }},
		{rule: "V020", name: "valid", change: func(a, b *RunData) { a.Run.Flags = []string{"streaming_inferred"} }},

		// V021 (run a)
		{rule: "V021", name: "warm-up transient", fire: true, want: []string{"a start-up transient: MSER-5 on TTFT drops the first 50 of 700 requests", "p99"},
			change: func(a, b *RunData) {
				withRequests(a, func(i int, r *schemas.Request) {
					if i < 50 {
						r.TTFTS = schemas.Some(0.5)
					}
				})
			}},
		{rule: "V021", name: "never steady", fire: true, want: []string{"never reached a steady state", "still falling at the middle of the run"},
			change: func(a, b *RunData) {
				withRequests(a, func(i int, r *schemas.Request) { r.TTFTS = schemas.Some(0.05 + 0.001*float64(i)) })
			}},
		{rule: "V021", name: "steady", change: none},
		{rule: "V021", name: "too few requests", skip: true, change: func(a, b *RunData) { a.Requests = SummariseRequests(goodRequests("run-a", 50)) }},

		// V022 (run a)
		{rule: "V022", name: "TTFT and concurrency rise", fire: true, want: []string{"ttft rises through the run", "requests in flight rise too", "over-saturated"},
			change: func(a, b *RunData) {
				withRequests(a, func(i int, r *schemas.Request) {
					ttft := 0.05 + 0.1*r.StartS.V
					r.TTFTS, r.E2ES, r.EndS = schemas.Some(ttft), schemas.Some(ttft+2), schemas.Some(r.StartS.V+ttft+2)
				})
			}},
		{rule: "V022", name: "TTFT drifts at constant concurrency", fire: true, want: []string{"ttft rises", "do not rise", "drift"},
			change: func(a, b *RunData) {
				withRequests(a, func(i int, r *schemas.Request) {
					ttft := 0.05 + 0.01*r.StartS.V
					r.TTFTS, r.E2ES, r.EndS = schemas.Some(ttft), schemas.Some(2.0), schemas.Some(r.StartS.V+2)
				})
			}},
		{rule: "V022", name: "queue time rises", fire: true, want: []string{"client_queue rises"},
			change: func(a, b *RunData) {
				withRequests(a, func(i int, r *schemas.Request) { r.QueueS = schemas.Some(0.001 + 0.02*r.StartS.V) })
			}},
		{rule: "V022", name: "steady", change: none},
		{rule: "V022", name: "no start times", skip: true,
			change: func(a, b *RunData) {
				withRequests(a, func(i int, r *schemas.Request) { r.StartS = schemas.Opt[float64]{} })
			}},
	}
}

// withRequests rebuilds d's request summary from goodRequests changed by f.
func withRequests(d *RunData, f func(i int, r *schemas.Request)) {
	rs := goodRequests(d.Run.ID, nRequests)
	for i := range rs {
		f(i, &rs[i])
	}
	d.Requests = SummariseRequests(rs)
}

func setMethod(d *RunData, id schemas.MetricID, stat, method string) {
	for i := range d.Metrics {
		if d.Metrics[i].MetricID == id && d.Metrics[i].Stat == stat {
			d.Metrics[i].Method = method
		}
	}
}

func shiftInputs(reqs []schemas.Request, by int64) []schemas.Request {
	for i := range reqs {
		if by == 1 && i%50 != 49 {
			// shift one request in fifty: a small change of the distribution
			reqs[i].InputTokens.V++
			continue
		}
		if by != 1 {
			reqs[i].InputTokens.V += by
		}
	}
	return reqs
}

// coalesce makes every chunk carry k tokens.
func coalesce(reqs []schemas.Request, k int) []schemas.Request {
	for i := range reqs {
		n := int(reqs[i].OutputTokens.V) / k
		reqs[i].ChunkGapsS = reqs[i].ChunkGapsS[:n-1]
	}
	return reqs
}

// unstream makes every response arrive in one piece: TTFT = E2E, or one
// chunk (with TTFT still before E2E, as a buffering proxy would show).
func unstream(reqs []schemas.Request, oneChunkOnly bool) []schemas.Request {
	for i := range reqs {
		reqs[i].ChunkGapsS = []float64{}
		if !oneChunkOnly {
			reqs[i].TTFTS = reqs[i].E2ES
		}
	}
	return reqs
}

func TestRules(t *testing.T) {
	covered := map[string][2]bool{}
	for _, tc := range rulesCases() {
		rule, ok := FindRule(tc.rule)
		if !ok {
			t.Fatalf("unknown rule %s", tc.rule)
		}
		t.Run(rule.ID+"/"+tc.name, func(t *testing.T) {
			a, b := pair()
			tc.change(a, b)
			var runs []*RunData
			compare := false
			switch rule.Scope {
			case ScopePair:
				runs, compare = []*RunData{a, b}, true
			case ScopeGroup:
				runs = []*RunData{a, b}
			default:
				runs = []*RunData{a}
			}
			rep, fs := findingsOf(t, rule.ID, compare, "", runs...)
			skippedAll := len(rep.Checks) > 0
			for _, ch := range rep.Checks {
				if ch.Status != StatusSkip {
					skippedAll = false
				}
			}
			if skippedAll != tc.skip {
				t.Fatalf("skipped = %v, want %v: %+v", skippedAll, tc.skip, rep.Checks)
			}
			if got := len(fs) > 0; got != tc.fire {
				t.Fatalf("fired = %v, want %v: %+v", got, tc.fire, fs)
			}
			var text strings.Builder
			for _, f := range fs {
				if f.Unverified != tc.unverified {
					t.Errorf("unverified = %v, want %v: %s", f.Unverified, tc.unverified, f.Message)
				}
				if f.Severity != rule.Severity || f.Subject == "" || len(f.Runs) == 0 || f.Message == "" {
					t.Errorf("incomplete finding %+v", f)
				}
				text.WriteString(f.Message + " | " + strings.Join(f.Values, " | ") + "\n")
			}
			for _, w := range tc.want {
				if !strings.Contains(text.String(), w) {
					t.Errorf("findings lack %q:\n%s", w, text.String())
				}
			}
		})
		c := covered[rule.ID]
		if tc.fire {
			c[0] = true
		} else {
			c[1] = true
		}
		covered[rule.ID] = c
	}
	for _, r := range Catalogue() {
		if c := covered[r.ID]; !c[0] || !c[1] {
			t.Errorf("%s: needs a case that fires and one that does not (have %v)", r.ID, c)
		}
	}
}

// TestCleanPair: the clean runs pass every rule, compared and alone.
func TestCleanPair(t *testing.T) {
	a, b := pair()
	rep, err := Validate([]*RunData{a, b}, Options{Compare: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != Comparable || !rep.Pass || len(rep.Findings) != 0 {
		t.Fatalf("verdict %s pass %v findings %+v", rep.Verdict, rep.Pass, rep.Findings)
	}
	rep, err = Validate([]*RunData{a}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != Valid || !rep.Pass || len(rep.Findings) != 0 || rep.Bundles[0].Verdict != Valid {
		t.Fatalf("verdict %s pass %v findings %+v", rep.Verdict, rep.Pass, rep.Findings)
	}
}

// TestLaunchArgs: launch arguments compare by flag, whatever the order and
// spelling, and the kinds that change performance are named.
func TestLaunchArgs(t *testing.T) {
	for _, c := range []struct {
		a, b   []string
		differ bool
		kinds  string
		sideA  string
	}{
		{[]string{"--max-num-seqs", "256", "--enable-prefix-caching"}, []string{"--enable-prefix-caching", "--max-num-seqs=256"}, false, "", ""},
		{[]string{"--max_num_seqs", "256", "-tp", "2"}, []string{"--max-num-seqs 256", "--tensor-parallel-size", "2"}, false, "", ""},
		{[]string{"--max-num-seqs", "256", "--enable-prefix-caching"}, []string{"--max-num-seqs", "128"}, true,
			"prefix caching, scheduling limits", "--max-num-seqs 256 --enable-prefix-caching"},
		{[]string{"--no-enable-prefix-caching"}, []string{"--enable-prefix-caching"}, true, "prefix caching", "--no-enable-prefix-caching"},
		{[]string{"--speculative-config", `{"method": "eagle", "num_speculative_tokens": 3}`}, []string{}, true, "speculative decoding",
			`--speculative-config {"method": "eagle", "num_speculative_tokens": 3}`},
		{[]string{"--tensor-parallel-size", "4", "--quantization", "fp8", "--max-model-len", "8192"}, []string{"-tp", "8", "--max-model-len", "8192"}, true,
			"parallelism, quantization", "--tensor-parallel-size 4 --quantization fp8"},
		{[]string{"--gpu-memory-utilization", "0.9"}, []string{"--gpu-memory-utilization", "0.95"}, true, "", "--gpu-memory-utilization 0.9"},
		{[]string{"--seed", "-1"}, []string{"--seed", "-1"}, false, "", ""},
	} {
		d, differ := diffLaunchArgs(c.a, c.b)
		if differ != c.differ || strings.Join(d.order, ", ") != c.kinds || strings.Join(d.a, " ") != c.sideA {
			t.Errorf("%q vs %q: differ %v, kinds %q, a %q", c.a, c.b, differ, d.order, d.a)
		}
		if !c.differ && canonicalLaunchArgs(c.a) != canonicalLaunchArgs(c.b) {
			t.Errorf("%q vs %q: canonical %q, %q", c.a, c.b, canonicalLaunchArgs(c.a), canonicalLaunchArgs(c.b))
		}
	}
}
