package fakeserver

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestPlan(t *testing.T) {
	c := Config{TTFT: 100 * time.Millisecond, TTFTSpread: 50 * time.Millisecond, TokenDelay: 10 * time.Millisecond, TokensPerChunk: 3, ReasoningTokens: 4, Seed: 9}
	p := c.Plan("req-1", 10, true)
	if p.OutputTokens != 10 || p.ReasoningTokens != 4 {
		t.Fatalf("%+v", p)
	}
	// Reasoning 4 tokens -> chunks of 3 and 1; answer 6 -> 3 and 3; a
	// chunk is written when its first token is due.
	var toks []int
	var reasoning []bool
	for _, ch := range p.Chunks {
		toks = append(toks, ch.Tokens)
		reasoning = append(reasoning, ch.Reasoning)
	}
	if !slices.Equal(toks, []int{3, 1, 3, 3}) || !reasoning[1] || reasoning[2] {
		t.Errorf("chunks %+v", p.Chunks)
	}
	if p.Chunks[0].At != p.TTFT || p.Chunks[2].At != p.TTFT+4*c.TokenDelay || p.Chunks[3].At != p.TTFT+7*c.TokenDelay {
		t.Errorf("times %+v", p.Chunks)
	}
	if p.TTFT < c.TTFT || p.TTFT >= c.TTFT+c.TTFTSpread {
		t.Errorf("TTFT %v outside [%v, %v)", p.TTFT, c.TTFT, c.TTFT+c.TTFTSpread)
	}
	if q := c.Plan("req-1", 10, true); q.TTFT != p.TTFT {
		t.Error("plans must be reproducible")
	}
	if q := c.Plan("req-1", 10, false); q.ReasoningTokens != 0 || len(q.Chunks) != 4 {
		t.Errorf("completions have no reasoning: %+v", q)
	}
	if q := (Config{}).Plan("x", 0, false); q.OutputTokens != 16 || len(q.Chunks) != 16 {
		t.Errorf("default plan %+v", q)
	}
}

func TestFaultShares(t *testing.T) {
	c := Config{ErrorRate: 0.1, ResetRate: 0.2, StallRate: 0.05, MalformedRate: 0.15, IgnoreStreamRate: 0.1, Seed: 1}
	n := map[Fault]int{}
	const total = 20000
	for i := range total {
		n[c.Plan("r-"+strconv.Itoa(i), 4, false).Fault]++
	}
	for f, want := range map[Fault]float64{FaultError: 0.1, FaultReset: 0.2, FaultStall: 0.05, FaultMalformed: 0.15, FaultIgnoreStream: 0.1, FaultNone: 0.4} {
		if got := float64(n[f]) / total; math.Abs(got-want) > 0.015 {
			t.Errorf("fault %q: share %v, want %v", f, got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []Config{{ErrorRate: 1.5}, {ErrorRate: 0.6, ResetRate: 0.6}, {TTFT: -1}, {ErrorStatus: 200}, {ErrorRate: math.NaN()}} {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if (Config{ErrorRate: 0.5, ResetRate: 0.5, ErrorStatus: 429}).Validate() != nil {
		t.Error("a valid config was refused")
	}
}

func post(t *testing.T, url, body string, hdr map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestServer(t *testing.T) {
	s := New(Config{TokenDelay: time.Millisecond, ReasoningTokens: 2, APIKey: "k"})
	ts := httptest.NewServer(s)
	defer ts.Close()
	auth := map[string]string{"Authorization": "Bearer k", "X-Request-Id": "a-1"}

	// A chat stream: reasoning first, then answer, usage, [DONE].
	resp := post(t, ts.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"one two three"}]}],"max_completion_tokens":4,"stream":true,"stream_options":{"include_usage":true}}`, auth)
	if resp.StatusCode != 200 || resp.Header.Get("X-Request-Id") != "a-1" || resp.Header.Get("X-Verdict-Fakeserver") != "1" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			events = append(events, d)
		}
	}
	if len(events) != 6 || events[5] != "[DONE]" || !strings.Contains(events[0], `"reasoning_content":" r"`) || !strings.Contains(events[2], `"content":" t"`) ||
		!strings.Contains(events[3], `"finish_reason":"length"`) || !strings.Contains(events[4], `"prompt_tokens":3,`) || !strings.Contains(events[4], `"reasoning_tokens":2`) {
		t.Errorf("events %q", events)
	}
	for _, e := range events[:5] {
		if !json.Valid([]byte(e)) {
			t.Errorf("invalid JSON %s", e)
		}
	}
	tr, ok := s.Trace("a-1")
	if !ok || tr.PromptTokens != 3 || len(tr.SentS) != 4 || len(tr.PlannedS) != 4 || tr.API != "chat" || !tr.Stream {
		t.Errorf("trace %+v", tr)
	}
	for i := range tr.SentS {
		if tr.SentS[i] < tr.PlannedS[i] {
			t.Errorf("chunk %d written at %v before its plan %v", i, tr.SentS[i], tr.PlannedS[i])
		}
	}

	// Non-streaming completions.
	resp = post(t, ts.URL+"/v1/completions", `{"model":"m","prompt":"a b","max_tokens":3}`, map[string]string{"Authorization": "Bearer k"})
	var body struct {
		Choices []struct{ Text string }
		Usage   struct{ PromptTokens, CompletionTokens int } `json:"usage"`
	}
	json.NewDecoder(resp.Body).Decode(&body)
	if body.Choices[0].Text != " t t t" {
		t.Errorf("body %+v", body)
	}

	// Errors: no key, bad JSON, missing prompt, wrong method, unknown path.
	for _, c := range []struct {
		method, path, body string
		hdr                map[string]string
		status             int
	}{
		{"POST", "/v1/completions", `{"prompt":"x"}`, nil, 401},
		{"POST", "/v1/completions", `{`, auth, 400},
		{"POST", "/v1/completions", `{"model":"m"}`, auth, 400},
		{"POST", "/v1/chat/completions", `{"model":"m"}`, auth, 400},
		{"GET", "/v1/completions", ``, auth, 405},
		{"GET", "/v2/x", ``, auth, 404},
	} {
		req, _ := http.NewRequest(c.method, ts.URL+c.path, strings.NewReader(c.body))
		for k, v := range c.hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || strings.Contains(string(b), "Bearer") {
			t.Errorf("%s %s: %d %s", c.method, c.path, resp.StatusCode, b)
		}
	}

	// Traces over HTTP, filtered by prefix.
	r, _ := http.Get(ts.URL + "/fakeserver/traces?prefix=a-")
	var traces []Trace
	json.NewDecoder(r.Body).Decode(&traces)
	r.Body.Close()
	if len(traces) != 1 || traces[0].ID != "a-1" {
		t.Errorf("traces %+v", traces)
	}
	if len(s.Traces("")) < 3 {
		t.Error("requests without an ID must get one and a trace")
	}
}

func TestMaxTraces(t *testing.T) {
	s := New(Config{MaxTraces: 2})
	ts := httptest.NewServer(s)
	defer ts.Close()
	for i := range 4 {
		post(t, ts.URL+"/v1/completions", `{"prompt":"x","max_tokens":1}`, map[string]string{"X-Request-Id": "r" + strconv.Itoa(i)})
	}
	if tr := s.Traces(""); len(tr) != 2 || tr[0].ID != "r2" {
		t.Errorf("traces %+v", tr)
	}
}
