// Package fakeserver is an OpenAI-compatible completions server whose
// token timing is known exactly: a reference to calibrate load generators
// against, and the server the capture tests run on.
//
// It answers POST /v1/completions and /v1/chat/completions, streaming
// (Server-Sent Events, with stream_options.include_usage) or not, with a
// deterministic schedule: the first chunk is written TTFT (plus a
// per-request offset within TTFTSpread) after the request arrived, then
// one chunk per TokensPerChunk tokens, TokenDelay per token. Chat
// responses can open with reasoning tokens (delta.reasoning_content), which
// never share a chunk with answer tokens. Output length is the request's
// max_tokens (or max_completion_tokens), else Config.OutputTokens; prompt
// tokens are the prompt's whitespace-separated words.
//
// Faults are injected per request, chosen by a hash of the seed and the
// request ID (so a rerun injects the same faults into the same requests):
// an HTTP error status, a connection reset mid-stream, a stall (no more
// bytes), a malformed SSE event, or a JSON body in answer to a streaming
// request.
//
// # Knowing the truth
//
// Every response echoes the request's X-Request-Id header (one is assigned
// when absent) and carries X-Verdict-Fakeserver: 1. For each request the
// server keeps a [Trace]: the planned chunk times and the times at which it
// actually began writing each chunk, both as offsets from the moment the
// handler received the request. The difference between a client's
// measurements and the trace is the client's (and the loopback's) own
// overhead. Traces are served as JSON at GET /fakeserver/traces (optionally
// ?prefix=ID-PREFIX) and in-process by [Server.Traces].
package fakeserver

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A Fault is an injected failure.
type Fault string

// Faults the server can inject.
const (
	FaultNone Fault = ""
	// FaultError answers with Config.ErrorStatus and an OpenAI error body
	// before any output.
	FaultError Fault = "error"
	// FaultReset writes Config.FaultAfter chunks, then resets the TCP
	// connection (RST, no terminating chunk).
	FaultReset Fault = "reset"
	// FaultStall writes Config.FaultAfter chunks, then sends nothing more
	// until the client gives up.
	FaultStall Fault = "stall"
	// FaultMalformed writes Config.FaultAfter chunks, then an event whose
	// data is not JSON, then finishes the stream normally.
	FaultMalformed Fault = "malformed"
	// FaultIgnoreStream answers a streaming request with one JSON body
	// (application/json), after the whole generation time.
	FaultIgnoreStream Fault = "ignore_stream"
)

// Config is the server's schedule and fault mix. The zero value serves 16
// tokens per request, one per chunk, with no delays and no faults.
type Config struct {
	// TTFT is the time from receiving a request to writing its first
	// chunk. TTFTSpread adds a per-request offset in [0, TTFTSpread),
	// chosen by a hash of the seed and request ID, so that requests have
	// different but reproducible first-token times.
	TTFT, TTFTSpread time.Duration
	// TokenDelay is the time per generated token after the first chunk.
	TokenDelay time.Duration
	// TokensPerChunk is the number of tokens per streamed chunk (the last
	// chunk of a segment may hold fewer); 0 means 1.
	TokensPerChunk int
	// OutputTokens is the output length of requests without max_tokens;
	// 0 means 16.
	OutputTokens int
	// ReasoningTokens of each chat response are reasoning
	// (delta.reasoning_content), counted in completion_tokens and in
	// completion_tokens_details.reasoning_tokens. Completions responses
	// have no reasoning.
	ReasoningTokens int

	// Fault rates: the share of requests given each fault. Their sum must
	// not exceed 1.
	ErrorRate, ResetRate, StallRate, MalformedRate, IgnoreStreamRate float64
	// ErrorStatus is the status of FaultError; 0 means 500.
	ErrorStatus int
	// FaultAfter is the number of chunks written before a mid-stream fault.
	FaultAfter int
	// Seed selects the per-request TTFT offsets and faults.
	Seed uint64

	// APIKey, when set, must arrive as "Authorization: Bearer KEY";
	// other requests get 401. The key is never echoed.
	APIKey string
	// MaxTraces bounds the traces kept (the oldest are dropped); 0 means
	// 1<<20.
	MaxTraces int
}

func (c Config) tokensPerChunk() int { return max(c.TokensPerChunk, 1) }

// Validate reports a configuration that cannot be served.
func (c Config) Validate() error {
	for _, r := range []float64{c.ErrorRate, c.ResetRate, c.StallRate, c.MalformedRate, c.IgnoreStreamRate} {
		if !(r >= 0 && r <= 1) {
			return fmt.Errorf("fakeserver: fault rates must be in [0, 1], got %v", r)
		}
	}
	if s := c.ErrorRate + c.ResetRate + c.StallRate + c.MalformedRate + c.IgnoreStreamRate; s > 1+1e-12 {
		return fmt.Errorf("fakeserver: fault rates add up to %v > 1", s)
	}
	if c.TTFT < 0 || c.TTFTSpread < 0 || c.TokenDelay < 0 || c.TokensPerChunk < 0 || c.OutputTokens < 0 || c.ReasoningTokens < 0 || c.FaultAfter < 0 {
		return fmt.Errorf("fakeserver: durations and counts must not be negative")
	}
	if c.ErrorStatus != 0 && (c.ErrorStatus < 400 || c.ErrorStatus > 599) {
		return fmt.Errorf("fakeserver: error status %d is not an HTTP error status", c.ErrorStatus)
	}
	return nil
}

// A Chunk is one planned streamed chunk.
type Chunk struct {
	At        time.Duration // offset from receiving the request
	Tokens    int
	Reasoning bool
}

// A Plan is what the server will do with one request.
type Plan struct {
	Fault  Fault
	TTFT   time.Duration
	Chunks []Chunk
	// OutputTokens and ReasoningTokens are what usage reports.
	OutputTokens, ReasoningTokens int
}

// Plan returns the schedule of the request with the given ID, output
// length (0: Config.OutputTokens) and API ("chat" or "completions").
// It is a pure function of the configuration and its arguments.
func (c Config) Plan(id string, outputTokens int, chat bool) Plan {
	if outputTokens <= 0 {
		outputTokens = c.OutputTokens
		if outputTokens <= 0 {
			outputTokens = 16
		}
	}
	p := Plan{TTFT: c.TTFT, OutputTokens: outputTokens}
	if c.TTFTSpread > 0 {
		p.TTFT += time.Duration(unit(c.Seed, id, 1) * float64(c.TTFTSpread))
	}
	u := unit(c.Seed, id, 2)
	for _, f := range []struct {
		rate  float64
		fault Fault
	}{{c.ErrorRate, FaultError}, {c.ResetRate, FaultReset}, {c.StallRate, FaultStall}, {c.MalformedRate, FaultMalformed}, {c.IgnoreStreamRate, FaultIgnoreStream}} {
		if u < f.rate {
			p.Fault = f.fault
			break
		}
		u -= f.rate
	}
	if chat {
		p.ReasoningTokens = min(c.ReasoningTokens, outputTokens)
	}
	tpc := c.tokensPerChunk()
	p.Chunks = make([]Chunk, 0, (p.ReasoningTokens+tpc-1)/tpc+(outputTokens-p.ReasoningTokens+tpc-1)/tpc)
	done := 0
	segment := func(n int, reasoning bool) {
		for n > 0 {
			k := min(n, tpc)
			p.Chunks = append(p.Chunks, Chunk{At: p.TTFT + time.Duration(done)*c.TokenDelay, Tokens: k, Reasoning: reasoning})
			done += k
			n -= k
		}
	}
	segment(p.ReasoningTokens, true)
	segment(outputTokens-p.ReasoningTokens, false)
	return p
}

// unit maps (seed, id, salt) to [0, 1) by FNV-1a and a splitmix64 finish.
func unit(seed uint64, id string, salt uint64) float64 {
	h := fnv.New64a()
	var b [16]byte
	for i := range 8 {
		b[i] = byte(seed >> (8 * i))
		b[8+i] = byte(salt >> (8 * i))
	}
	h.Write(b[:])
	io.WriteString(h, id)
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

// A Trace is what the server did with one request.
type Trace struct {
	ID     string `json:"id"`
	API    string `json:"api"` // "completions" or "chat"
	Stream bool   `json:"stream"`
	Fault  Fault  `json:"fault,omitempty"`
	// Status is the HTTP status sent.
	Status          int `json:"status"`
	PromptTokens    int `json:"prompt_tokens"`
	OutputTokens    int `json:"output_tokens"`
	ReasoningTokens int `json:"reasoning_tokens"`
	// PlannedS and SentS are the planned and actual times of the chunks
	// with choices, in seconds from receiving the request; SentS is taken
	// just before each write and holds only chunks actually written.
	// For a non-streamed answer they hold the time of the single body.
	PlannedS []float64 `json:"planned_s"`
	SentS    []float64 `json:"sent_s"`
	// Received is when the handler started (wall clock).
	Received time.Time `json:"received"`
}

// A Server serves the fake API. Create it with New.
type Server struct {
	cfg   Config
	model string
	seq   atomic.Int64

	mu     sync.Mutex
	traces map[string]*Trace
	order  []string
}

// New returns a server with the given configuration; it panics on an
// invalid one (check with Config.Validate first).
func New(cfg Config) *Server {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	if cfg.MaxTraces <= 0 {
		cfg.MaxTraces = 1 << 20
	}
	return &Server{cfg: cfg, traces: map[string]*Trace{}}
}

// Config returns the server's configuration.
func (s *Server) Config() Config { return s.cfg }

// Traces returns the traces of requests whose ID starts with prefix, in
// arrival order. The traces are copies.
func (s *Server) Traces(prefix string) []Trace {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Trace
	for _, id := range s.order {
		if t := s.traces[id]; t != nil && strings.HasPrefix(id, prefix) {
			c := *t
			c.PlannedS, c.SentS = slices.Clone(t.PlannedS), slices.Clone(t.SentS)
			out = append(out, c)
		}
	}
	return out
}

// Trace returns the trace of one request.
func (s *Server) Trace(id string) (Trace, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.traces[id]
	if t == nil {
		return Trace{}, false
	}
	c := *t
	c.PlannedS, c.SentS = slices.Clone(t.PlannedS), slices.Clone(t.SentS)
	return c, true
}

func (s *Server) keep(t *Trace) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.traces[t.ID]; !dup {
		s.order = append(s.order, t.ID)
	}
	s.traces[t.ID] = t
	for len(s.order) > s.cfg.MaxTraces {
		delete(s.traces, s.order[0])
		s.order = s.order[1:]
	}
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	switch r.URL.Path {
	case "/v1/completions":
		s.generate(w, r, received, false)
	case "/v1/chat/completions":
		s.generate(w, r, received, true)
	case "/v1/models":
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{map[string]any{"id": "fakeserver", "object": "model", "owned_by": "verdict"}}})
	case "/health":
		w.WriteHeader(http.StatusOK)
	case "/fakeserver/traces":
		writeJSON(w, http.StatusOK, s.Traces(r.URL.Query().Get("prefix")))
	default:
		writeError(w, http.StatusNotFound, "not found: "+r.URL.Path, "invalid_request_error")
	}
}

// request is the part of an OpenAI request body the server reads.
type request struct {
	Model               string          `json:"model"`
	Prompt              json.RawMessage `json:"prompt"`
	Messages            []message       `json:"messages"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// words counts whitespace-separated words in a JSON string, an array of
// strings, or an array of content parts ({"type":"text","text":...}).
func words(raw json.RawMessage) int {
	if len(raw) == 0 {
		return 0
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return len(strings.Fields(s))
	}
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		return 0
	}
	n := 0
	for _, p := range parts {
		var part struct {
			Text *string `json:"text"`
		}
		if json.Unmarshal(p, &part) == nil && part.Text != nil {
			n += len(strings.Fields(*part.Text))
			continue
		}
		n += words(p)
	}
	return n
}

func (s *Server) generate(w http.ResponseWriter, r *http.Request, received time.Time, chat bool) {
	id := r.Header.Get("X-Request-Id")
	if id == "" {
		id = "fs-" + strconv.FormatInt(s.seq.Add(1), 10)
	}
	w.Header().Set("X-Request-Id", id)
	w.Header().Set("X-Verdict-Fakeserver", "1")
	tr := &Trace{ID: id, API: "completions", Received: received}
	if chat {
		tr.API = "chat"
	}
	defer s.keep(tr)

	if r.Method != http.MethodPost {
		tr.Status = http.StatusMethodNotAllowed
		writeError(w, tr.Status, "use POST", "invalid_request_error")
		return
	}
	if s.cfg.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.cfg.APIKey {
		tr.Status = http.StatusUnauthorized
		writeError(w, tr.Status, "invalid or missing API key", "authentication_error")
		return
	}
	var req request
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(&req); err != nil {
		tr.Status = http.StatusBadRequest
		writeError(w, tr.Status, "invalid JSON body: "+err.Error(), "invalid_request_error")
		return
	}
	if chat {
		if len(req.Messages) == 0 {
			tr.Status = http.StatusBadRequest
			writeError(w, tr.Status, "messages is required", "invalid_request_error")
			return
		}
		for _, m := range req.Messages {
			tr.PromptTokens += words(m.Content)
		}
	} else {
		if len(req.Prompt) == 0 {
			tr.Status = http.StatusBadRequest
			writeError(w, tr.Status, "prompt is required", "invalid_request_error")
			return
		}
		tr.PromptTokens = words(req.Prompt)
	}
	maxTok := 0
	switch {
	case req.MaxCompletionTokens != nil:
		maxTok = *req.MaxCompletionTokens
	case req.MaxTokens != nil:
		maxTok = *req.MaxTokens
	}
	plan := s.cfg.Plan(id, maxTok, chat)
	tr.Stream, tr.Fault = req.Stream, plan.Fault
	tr.OutputTokens, tr.ReasoningTokens = plan.OutputTokens, plan.ReasoningTokens
	for _, c := range plan.Chunks {
		tr.PlannedS = append(tr.PlannedS, c.At.Seconds())
	}
	// Publish the plan now: a stalled or reset request's client may look
	// for the trace before the handler returns.
	early := *tr
	early.PlannedS = slices.Clone(tr.PlannedS)
	s.keep(&early)
	if plan.Fault == FaultError {
		tr.Status = s.cfg.ErrorStatus
		if tr.Status == 0 {
			tr.Status = http.StatusInternalServerError
		}
		writeError(w, tr.Status, "fakeserver: injected error", "server_error")
		return
	}
	g := &gen{s: s, w: w, r: r, tr: tr, plan: plan, chat: chat, model: req.Model, received: received,
		usage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage}
	if !req.Stream || plan.Fault == FaultIgnoreStream {
		g.whole()
		return
	}
	g.stream()
}

// gen writes one response.
type gen struct {
	s        *Server
	w        http.ResponseWriter
	r        *http.Request
	tr       *Trace
	plan     Plan
	chat     bool
	usage    bool
	model    string
	received time.Time
	timer    *time.Timer
	buf      []byte
	head     []byte
}

// sleepUntil waits until the offset d from receipt; false when the client
// went away first.
func (g *gen) sleepUntil(d time.Duration) bool {
	wait := time.Until(g.received.Add(d))
	if wait <= 0 {
		return g.r.Context().Err() == nil
	}
	if g.timer == nil {
		g.timer = time.NewTimer(wait)
	} else {
		g.timer.Reset(wait)
	}
	select {
	case <-g.timer.C:
		return true
	case <-g.r.Context().Done():
		g.timer.Stop()
		return false
	}
}

func (g *gen) whole() {
	end := g.plan.TTFT
	if n := len(g.plan.Chunks); n > 0 {
		end = g.plan.Chunks[n-1].At
	}
	g.tr.PlannedS = []float64{end.Seconds()}
	if !g.sleepUntil(end) {
		g.tr.Status = 499
		return
	}
	var reasoning, content strings.Builder
	for _, c := range g.plan.Chunks {
		if c.Reasoning {
			reasoning.WriteString(tokens(c.Tokens, true))
		} else {
			content.WriteString(tokens(c.Tokens, false))
		}
	}
	body := map[string]any{"id": "cmpl-" + g.tr.ID, "created": 0, "model": g.model, "usage": g.usageObj()}
	if g.chat {
		msg := map[string]any{"role": "assistant", "content": content.String()}
		if g.plan.ReasoningTokens > 0 {
			msg["reasoning_content"] = reasoning.String()
		}
		body["object"] = "chat.completion"
		body["choices"] = []any{map[string]any{"index": 0, "message": msg, "finish_reason": "length"}}
	} else {
		body["object"] = "text_completion"
		body["choices"] = []any{map[string]any{"index": 0, "text": content.String(), "finish_reason": "length"}}
	}
	g.tr.Status = http.StatusOK
	g.tr.SentS = []float64{time.Since(g.received).Seconds()}
	writeJSON(g.w, http.StatusOK, body)
}

func (g *gen) usageObj() map[string]any {
	u := map[string]any{"prompt_tokens": g.tr.PromptTokens, "completion_tokens": g.plan.OutputTokens,
		"total_tokens": g.tr.PromptTokens + g.plan.OutputTokens}
	if g.plan.ReasoningTokens > 0 {
		u["completion_tokens_details"] = map[string]any{"reasoning_tokens": g.plan.ReasoningTokens}
	}
	return u
}

func (g *gen) stream() {
	h := g.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	g.w.WriteHeader(http.StatusOK)
	g.tr.Status = http.StatusOK
	rc := http.NewResponseController(g.w)
	if rc.Flush() != nil {
		return
	}
	g.tr.SentS = make([]float64, 0, len(g.plan.Chunks))
	faultAt := -1
	switch g.plan.Fault {
	case FaultReset, FaultStall, FaultMalformed:
		faultAt = min(g.s.cfg.FaultAfter, len(g.plan.Chunks))
	}
	for k := 0; k <= len(g.plan.Chunks); k++ {
		if k == faultAt {
			switch g.plan.Fault {
			case FaultReset:
				g.reset(rc)
				return
			case FaultStall:
				<-g.r.Context().Done()
				return
			case FaultMalformed:
				if _, err := io.WriteString(g.w, "data: {\"choices\": [{\"text\": \"unterminated\n\n"); err != nil || rc.Flush() != nil {
					return
				}
			}
		}
		if k == len(g.plan.Chunks) {
			break
		}
		c := g.plan.Chunks[k]
		if !g.sleepUntil(c.At) {
			return
		}
		g.buf = g.appendChunk(g.buf[:0], k, c)
		t := time.Since(g.received)
		if _, err := g.w.Write(g.buf); err != nil {
			return
		}
		if rc.Flush() != nil {
			return
		}
		g.tr.SentS = append(g.tr.SentS, t.Seconds())
	}
	if g.usage {
		u, _ := json.Marshal(g.usageObj())
		g.buf = append(g.appendHead(g.buf[:0]), `"choices":[],"usage":`...)
		g.buf = append(g.buf, u...)
		g.buf = append(g.buf, "}\n\n"...)
		g.w.Write(g.buf)
	}
	io.WriteString(g.w, "data: [DONE]\n\n")
	rc.Flush()
}

// reset flushes what was written and closes the connection with an RST.
func (g *gen) reset(rc *http.ResponseController) {
	conn, bw, err := rc.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // the server closes the connection
	}
	bw.Flush()
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// appendHead appends the start of an event, up to the choices.
func (g *gen) appendHead(b []byte) []byte {
	if g.head == nil {
		g.head = g.buildHead(nil)
	}
	return append(b, g.head...)
}

func (g *gen) buildHead(b []byte) []byte {
	b = append(b, `data: {"id":`...)
	if g.chat {
		b = appendJSONString(b, "chatcmpl-"+g.tr.ID)
		b = append(b, `,"object":"chat.completion.chunk","created":0,"model":`...)
	} else {
		b = appendJSONString(b, "cmpl-"+g.tr.ID)
		b = append(b, `,"object":"text_completion","created":0,"model":`...)
	}
	b = appendJSONString(b, g.model)
	return append(b, ',')
}

func (g *gen) appendChunk(b []byte, k int, c Chunk) []byte {
	b = g.appendHead(b)
	b = append(b, `"choices":[{"index":0,`...)
	switch {
	case !g.chat:
		b = append(b, `"text":`...)
		b = appendTokens(b, c.Tokens, false)
	case c.Reasoning:
		b = append(b, `"delta":{`...)
		if k == 0 {
			b = append(b, `"role":"assistant",`...)
		}
		b = append(b, `"reasoning_content":`...)
		b = appendTokens(b, c.Tokens, true)
		b = append(b, '}')
	default:
		b = append(b, `"delta":{`...)
		if k == 0 {
			b = append(b, `"role":"assistant",`...)
		}
		b = append(b, `"content":`...)
		b = appendTokens(b, c.Tokens, false)
		b = append(b, '}')
	}
	b = append(b, `,"logprobs":null,"finish_reason":`...)
	if k == len(g.plan.Chunks)-1 {
		b = append(b, `"length"`...)
	} else {
		b = append(b, "null"...)
	}
	return append(b, "}]}\n\n"...)
}

// tokens renders n fake tokens: " r" for reasoning, " t" for answer.
func tokens(n int, reasoning bool) string {
	if reasoning {
		return strings.Repeat(" r", n)
	}
	return strings.Repeat(" t", n)
}

// appendTokens appends n fake tokens as a JSON string.
func appendTokens(b []byte, n int, reasoning bool) []byte {
	t := byte('t')
	if reasoning {
		t = 'r'
	}
	b = append(b, '"')
	for range n {
		b = append(b, ' ', t)
	}
	return append(b, '"')
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, _ := json.Marshal(s)
	return append(b, q...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg, typ string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": status}})
}
