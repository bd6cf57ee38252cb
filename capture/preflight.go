package capture

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// A PreflightError says that the preflight request showed the endpoint
// dead or wrong: no HTTP response at all (connection refused, unknown
// host, TLS, timeout) or a client error status (400-499 but 408 and 429)
// such as 404 for a wrong path, 401 for a missing key or 400 for an
// unknown model. Cause is the request's error, with every secret removed.
type PreflightError struct {
	Endpoint string // redacted (RedactURL)
	Cause    string
}

func (e *PreflightError) Error() string {
	return fmt.Sprintf("preflight request to %s failed: %s", e.Endpoint, e.Cause)
}

// A Preflight is the outcome of a preflight request that did not show the
// endpoint dead or wrong.
type Preflight struct {
	// Took is the request's end-to-end time.
	Took time.Duration
	// Problem is set when the request failed in a way a single request
	// may fail on a working server (HTTP 5xx, 408, 429, a broken or
	// malformed stream): the capture goes on, and the caller should warn.
	Problem string
}

// RunPreflight sends one request, the dataset's first prompt with the
// options' settings, before a capture, as `vllm bench serve` does with
// its initial test prompt, so that a dead or wrong endpoint fails at
// once with its real cause (a *PreflightError) instead of producing a
// bundle of failed requests. The request is recorded nowhere; it carries
// X-Request-Id "verdict-preflight-N", which no capture run uses. An
// interrupted preflight returns ctx's error.
func RunPreflight(ctx context.Context, opts Options) (*Preflight, error) {
	api, err := opts.validate()
	if err != nil {
		return nil, err
	}
	tr := opts.Transport
	if tr == nil {
		t := NewTransport(1)
		defer t.CloseIdleConnections()
		tr = t
	}
	cl := newClient(&opts, api, tr, fmt.Sprintf("verdict-preflight-%d", time.Now().UnixNano()))
	o := &outcome{phase: "preflight"}
	cl.do(ctx, o, opts.Dataset.Prompts[0], opts.MaxTokens)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := &Preflight{Took: o.done.Sub(o.sent)}
	switch {
	case o.ok:
		return p, nil
	case o.status == 0 || fatalStatus(o.status):
		return nil, &PreflightError{Endpoint: RedactURL(opts.Endpoint), Cause: o.err}
	}
	p.Problem = o.err
	return p, nil
}

// fatalStatus reports whether an HTTP status shows the endpoint wrong
// rather than one request unlucky.
func fatalStatus(code int) bool {
	return code >= 400 && code < 500 && code != http.StatusRequestTimeout && code != http.StatusTooManyRequests
}
