package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// outcome is what happened to one scheduled request.
type outcome struct {
	index   int64
	phase   string
	arrival time.Time // ready to send under the schedule
	sent    time.Time // just before the HTTP request was written; zero if never sent
	done    time.Time // the response ended (stream closed, body read or error)

	first, firstAnswer, last time.Time // choice-bearing chunks
	gaps                     []float64
	chunks                   int
	reasoningChunks          int

	promptTokens, outputTokens, reasoningTokens int64 // -1: not reported
	status                                      int   // HTTP status; 0 when no response came
	streamed                                    bool
	ok                                          bool
	err                                         string
	notSent                                     string // why it was never sent
	missingDone                                 bool
	fake                                        bool
}

// Sentinel causes of a request's cancellation.
var (
	errStalled  = errors.New("stalled")
	errTimedOut = errors.New("timed out")
	errDrained  = errors.New("no end of stream after [DONE]")
)

// cancelledPrefix starts the error of a request abandoned because the
// capture was interrupted; such rows have status "cancelled".
const cancelledPrefix = "cancelled:"

// drainTimeout is how long a stream may stay open after [DONE].
const drainTimeout = time.Second

// client sends requests to one endpoint.
type client struct {
	hc           *http.Client
	url          string
	api          API
	model        string
	auth         string   // the Authorization header value; never logged
	secrets      []string // the API key, URL credentials and query values, header values
	stream       bool
	includeUsage bool
	stall        time.Duration
	timeout      time.Duration
	extra        map[string]any
	headers      map[string]string
	runID        string
	readers      sync.Pool // *EventReader
}

// redact removes the API key, the URL's credentials and query values and
// the header values from text that may be shown or stored.
func (c *client) redact(s string) string { return Redact(s, c.secrets) }

// do sends one request and fills o. ctx is the run's context: when it is
// cancelled the request is abandoned and recorded as cancelled.
func (c *client) do(ctx context.Context, o *outcome, p Prompt, maxTokens int) {
	o.promptTokens, o.outputTokens, o.reasoningTokens = -1, -1, -1
	if p.OutputTokens > 0 {
		maxTokens = p.OutputTokens
	}
	body, err := requestBody(c.api, c.model, p.Text, maxTokens, c.stream, c.includeUsage, c.extra)
	if err != nil {
		o.err = "building the request: " + c.redact(err.Error())
		o.sent = time.Now()
		o.done = o.sent
		return
	}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if c.timeout > 0 {
		var stop context.CancelFunc
		rctx, stop = context.WithTimeoutCause(rctx, c.timeout, errTimedOut)
		defer stop()
	}
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		o.err = "building the request: " + c.redact(err.Error())
		o.sent = time.Now()
		o.done = o.sent
		return
	}
	req.Header.Set("Content-Type", "application/json")
	if c.stream {
		req.Header.Set("Accept", "text/event-stream")
	}
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	req.Header.Set("X-Request-Id", fmt.Sprintf("%s-%d", c.runID, o.index))
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	var stall *time.Timer
	if c.stall > 0 {
		stall = time.AfterFunc(c.stall, func() { cancel(errStalled) })
		defer stall.Stop()
	}
	o.sent = time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		o.done = time.Now()
		o.err = c.failure(ctx, rctx, "sending", err, 0)
		return
	}
	defer resp.Body.Close()
	o.fake = resp.Header.Get("X-Verdict-Fakeserver") != ""
	o.status = resp.StatusCode
	if stall != nil {
		stall.Reset(c.stall)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		o.done = time.Now()
		o.err = c.redact(fmt.Sprintf("HTTP %d: %s", resp.StatusCode, errorMessage(b)))
		return
	}
	kind := contentKind(resp.Header.Get("Content-Type"))
	if !c.stream || kind == "json" {
		c.whole(ctx, rctx, o, resp.Body)
		if c.stream && o.err == "" {
			o.ok = false
			o.err = "server ignored stream=true: it answered with one application/json body"
		}
		return
	}
	c.readStream(ctx, rctx, o, resp.Body, stall, cancel)
}

// contentKind classifies a Content-Type as "sse", "json" or "".
func contentKind(ct string) string {
	mt, _, _ := mime.ParseMediaType(ct)
	switch {
	case mt == "text/event-stream":
		return "sse"
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return "json"
	}
	return ""
}

// failure describes a transport error, preferring the cause of a
// cancellation (stall, timeout, interrupted run).
func (c *client) failure(run, rctx context.Context, what string, err error, chunks int) string {
	where := what
	if chunks > 0 {
		where = fmt.Sprintf("%s after %d chunks", what, chunks)
	}
	switch cause := context.Cause(rctx); {
	case errors.Is(cause, errStalled):
		return fmt.Sprintf("stalled: no data for %s (%s)", c.stall, where)
	case errors.Is(cause, errTimedOut):
		return fmt.Sprintf("timed out: request took longer than %s (%s)", c.timeout, where)
	case run.Err() != nil:
		return fmt.Sprintf("%s the capture was interrupted (%s)", cancelledPrefix, where)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	var ne net.Error
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		msg = "connection closed: " + msg
	} else if errors.As(err, &ne) && ne.Timeout() {
		msg = "network timeout: " + msg
	}
	return c.redact(where + ": " + msg)
}

// whole reads a non-streamed response.
func (c *client) whole(run, rctx context.Context, o *outcome, body io.Reader) {
	b, err := io.ReadAll(io.LimitReader(body, 256<<20))
	o.done = time.Now()
	if err != nil {
		o.err = c.failure(run, rctx, "reading the response", err, 0)
		return
	}
	var ci chunkInfo
	if err := decodeChunk(bytes.TrimSpace(b), &ci); err != nil {
		o.err = c.redact("malformed JSON response: " + err.Error())
		return
	}
	o.last = o.done
	c.account(o, &ci, o.done)
	if ci.hasError {
		o.err = c.redact("error in response: " + ci.errMsg)
		return
	}
	if ci.choices == 0 {
		o.err = "response without choices"
		return
	}
	o.ok = true
}

// account records a chunk's content and usage (for a whole response too).
func (c *client) account(o *outcome, ci *chunkInfo, at time.Time) {
	if ci.answer && o.firstAnswer.IsZero() && o.streamed {
		o.firstAnswer = at
	}
	if ci.reasoning {
		o.reasoningChunks++
	}
	if ci.prompt >= 0 {
		o.promptTokens = ci.prompt
	}
	if ci.completion >= 0 {
		o.outputTokens = ci.completion
	}
	if ci.reasoningTokens >= 0 {
		o.reasoningTokens = ci.reasoningTokens
	}
}

// readStream reads an SSE response. Timing follows vLLM's request
// functions: every data event with a non-empty choices array is a chunk;
// the first is the TTFT event, the gaps between consecutive ones are the
// ITL list, and the last one ends E2E. Usage-only events and [DONE] are not
// chunks.
func (c *client) readStream(run, rctx context.Context, o *outcome, body io.Reader, stall *time.Timer, cancel context.CancelCauseFunc) {
	o.streamed = true
	er, _ := c.readers.Get().(*EventReader)
	if er == nil {
		er = NewEventReader(body)
	} else {
		er.Reset(body)
	}
	defer func() {
		er.Reset(nil)
		c.readers.Put(er)
	}()
	if stall != nil {
		er.OnRead = func() { stall.Reset(c.stall) }
	}
	sawDone := false
	var doneAt time.Time
	var ci chunkInfo
	for {
		data, at, err := er.Next()
		if err != nil {
			o.done = time.Now()
			switch {
			case sawDone:
				// Whatever happens after [DONE] costs nothing; a server
				// that kept the stream open ended it at [DONE].
				if errors.Is(context.Cause(rctx), errDrained) {
					o.done = doneAt
				}
			case errors.Is(err, io.EOF):
				o.missingDone = true
			case errors.Is(err, ErrEventTooLarge):
				o.err = fmt.Sprintf("malformed SSE after %d chunks: %v", o.chunks, err)
			default:
				o.err = c.failure(run, rctx, "stream broken", err, o.chunks)
			}
			break
		}
		if sawDone {
			continue // drain to the end of the stream so the connection is reused
		}
		d := bytes.TrimSpace(data)
		if len(d) == 0 {
			continue
		}
		if string(d) == "[DONE]" {
			// Read on to the end of the stream so that the connection is
			// reused, but give a server that keeps it open only a moment.
			sawDone, doneAt = true, at
			er.OnRead = nil
			if stall != nil {
				stall.Stop()
			}
			drain := time.AfterFunc(drainTimeout, func() { cancel(errDrained) })
			defer drain.Stop()
			continue
		}
		if err := decodeChunk(d, &ci); err != nil {
			o.done = at
			o.err = c.redact(fmt.Sprintf("malformed SSE event after %d chunks: %v", o.chunks, err))
			return
		}
		if ci.hasError {
			o.done = at
			o.err = c.redact(fmt.Sprintf("error event after %d chunks: %s", o.chunks, ci.errMsg))
			return
		}
		if ci.choices > 0 {
			if o.chunks == 0 {
				o.first = at
			} else {
				o.gaps = append(o.gaps, at.Sub(o.last).Seconds())
			}
			o.last = at
			o.chunks++
		}
		c.account(o, &ci, at)
	}
	if o.err != "" {
		return
	}
	if o.chunks == 0 {
		o.err = "stream ended without a chunk carrying choices"
		return
	}
	o.ok = true
}
