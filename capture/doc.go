// Package capture measures OpenAI-compatible inference endpoints itself:
// a load generator that writes verdict's records directly, with every
// chunk's arrival time and GPU samples on the same run and window.
//
// The pipeline position is: Options (endpoint, dataset, scenario) -> Run ->
// Sink (rows as they are produced) -> Result (the run row, computed
// metrics, accounting); WriteBundle wires Run to a schemas.BundleWriter.
// The reference server in capture/fakeserver serves a known token schedule,
// and Calibrate compares a capture with it: the difference is capture's
// own measurement error.
//
// # Scenarios
//
// server: open-loop arrivals at Options.Rate, gamma-distributed gaps with
// shape Burstiness (1: Poisson), optionally ramped up linearly; the first
// request goes at offset 0 and the schedule is drawn from a PCG seeded
// with Options.Seed (see Schedule). offline: every request released at
// once. With MaxConcurrency, requests beyond the cap wait, in arrival
// order, and the wait is their client_queue time. single-stream and
// fixed concurrency are closed loops: each stream sends its next request
// when its last one ends (client_queue is then about zero). A capture is
// bounded by NumPrompts or by Duration (no dispatch after it; requests in
// flight finish). Warm-up requests go first, with the scenario's
// concurrency, and are rows with phase "warmup", outside every statistic
// and outside the window.
//
// # Timing, as vLLM times it
//
// Every instant is read from the monotonic clock (time.Now's monotonic
// reading; durations with Sub). Wall-clock values are the wall clock read
// once at the start plus monotonic time, so a clock step mid-capture moves
// nothing. For each request, following vLLM's request functions
// (docs/formats/vllm.md section 3.1, the 2025-01-21+ definitions; see
// docs/formats/capture.md):
//
//   - sent: just before the HTTP request is handed to the transport, after
//     any wait for a concurrency slot; like vLLM's st it includes taking a
//     pooled connection (or dialing one).
//   - each SSE data event is stamped with the time of the read that
//     completed it (see EventReader); events that arrived in one read share
//     a stamp.
//   - a chunk is an event whose choices array is non-empty, even when its
//     text is empty (a role-only delta) or reasoning only; usage-only
//     events and [DONE] are not chunks.
//   - TTFT (ttft) = first chunk - sent; TTFT answer (ttft_answer) = first
//     chunk with non-empty text, delta.content or message.content - sent
//     (delta.reasoning_content and delta.reasoning are reasoning);
//     chunk gaps (itl_chunk) = consecutive chunk stamps; E2E (e2e) = last
//     chunk - sent; with stream=false E2E ends when the body has been read
//     and there is no TTFT.
//   - token counts come from the server's usage (capture sends
//     stream_options.include_usage): prompt_tokens, completion_tokens and
//     completion_tokens_details.reasoning_tokens. Chunk counts are kept
//     beside them: a request's chunk count is len(chunk gaps)+1, and the
//     run's label output_chunks is their sum.
//   - StartS and EndS are Unix seconds (the run's time origin is the Unix
//     epoch): EndS = StartS + E2E for a successful request, the time the
//     response ended otherwise.
//
// Statistics follow vLLM's calculate_metrics: numpy-linear percentiles,
// population standard deviation, TPOT per request as (E2E - TTFT) /
// (output_tokens - 1) over successful requests with more than one output
// token, ITL pooled over the chunk gaps of successful requests, and rates
// over the dispatch window: from the first measured dispatch to the last
// measured completion (success or not), which the run row records as
// WindowStart and WindowEnd.
//
// # Faults lose nothing
//
// A request is successful when the server answered 200 and the stream held
// at least one chunk and no error. Everything else is a row with status
// "error" and a message: "HTTP 503: ..." (the server's error message),
// "stream broken after N chunks: ..." (a reset or truncated stream),
// "stalled: no data for D" (nothing received for Options.StallTimeout),
// "timed out", "malformed SSE event after N chunks: ...", "error event
// after N chunks: ..." (an error object inside the stream), "server ignored
// stream=true" (a JSON body answering a streaming request; its E2E and
// tokens are kept). A request in flight when the capture was interrupted
// is neither: its row has status "cancelled" and the error "cancelled: the
// capture was interrupted (...)", and it counts in no statistic and not as
// failed. What arrived before a failure (TTFT, chunk gaps) stays in the
// row.
//
// Every scheduled request is accounted for: Sent + NotSent = Scheduled
// (see Accounting). A request that was sent is a row. A request that was
// never sent (the capture was interrupted before its arrival time or while
// it waited for a slot) is not a row, because it has no timing: it is
// counted by reason in Accounting.NotSentReasons and, in a bundle, as a
// rejected row of the requests table in the manifest (Read = scheduled,
// Ingested = sent, Rejected = not sent). The run's num_prompts is the
// measured requests scheduled, so completed + failed + cancelled + not
// sent = num_prompts. Cancelling ctx (Ctrl-C) stops dispatch, abandons requests
// in flight, and still yields a Result (and a bundle) marked incomplete
// with the run flag "incomplete".
//
// # Secrets
//
// The API key is sent as a bearer token and stored nowhere: not in the
// run, the inventory or the manifest, and every error message has it
// replaced by [REDACTED] (servers have been known to echo credentials).
// Endpoints are recorded without user information or query string
// (RedactURL).
//
// # GPU samples
//
// A Sampler reads one sample per device (keyed by UUID): NVML on this
// machine (OpenNVML; go-nvml, cgo on Linux only; elsewhere OpenNVML
// reports ErrNVMLUnavailable) or a dcgm-exporter endpoint (DCGMSampler,
// ParseDCGM). Samples are taken every SampleInterval and at both edges of
// the window, so the energy counter brackets it. Readings a device does not
// support stay unknown; a capture without a usable sampler proceeds with no
// samples, a warning and the run flag "gpu_samples_unavailable", never with
// invented values. The sampler's device name and count, driver and CUDA
// driver version go into the inventory, with the dataset, its SHA-256, the
// endpoint and the warm-up count; the user's inventory supplies the rest.
package capture
