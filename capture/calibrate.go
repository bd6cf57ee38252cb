package capture

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/verdict-llm/verdict/capture/fakeserver"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// ErrorStats summarise measurement errors (measured - true) in seconds:
// the mean of the signed errors and quantiles of their absolute values.
type ErrorStats struct {
	N                    int
	Mean                 float64
	P50, P90, P99, Max   float64 // of |error|
	MinSigned, MaxSigned float64
}

func errorStats(errs []float64) ErrorStats {
	if len(errs) == 0 {
		return ErrorStats{}
	}
	abs := make([]float64, len(errs))
	for i, e := range errs {
		abs[i] = math.Abs(e)
	}
	slices.Sort(abs)
	return ErrorStats{N: len(errs), Mean: stats.Mean(errs),
		P50: stats.Quantile(abs, 0.5, stats.Linear), P90: stats.Quantile(abs, 0.9, stats.Linear),
		P99: stats.Quantile(abs, 0.99, stats.Linear), Max: abs[len(abs)-1],
		MinSigned: slices.Min(errs), MaxSigned: slices.Max(errs)}
}

// A Calibration compares a capture's measurements with the reference
// server's record of the same requests. Against the server's actual write
// times (Sent) the error is the cost of the loopback and of the client
// itself: that is capture's overhead. Against the planned schedule (Plan)
// it also holds the server's own timer lateness.
type Calibration struct {
	// Matched counts successful streamed requests compared chunk by chunk;
	// Unmatched those without a trace or with a different chunk count.
	Matched, Unmatched int
	// TTFT errors: measured TTFT - (first write - request received).
	TTFTvsSent, TTFTvsPlan ErrorStats
	// ITL errors: each measured chunk gap - the server's gap.
	ITLvsSent, ITLvsPlan ErrorStats
}

// TraceID is the X-Request-Id capture sends for a request, which the
// reference server keys its traces by.
func TraceID(runID string, index int64) string { return runID + "-" + strconv.FormatInt(index, 10) }

// Calibrate matches requests with traces by request ID and compares every
// successful streamed request's TTFT and chunk gaps with the server's.
func Calibrate(reqs []schemas.Request, traces []fakeserver.Trace) Calibration {
	byID := make(map[string]*fakeserver.Trace, len(traces))
	for i := range traces {
		byID[traces[i].ID] = &traces[i]
	}
	var c Calibration
	var ttftS, ttftP, itlS, itlP []float64
	for i := range reqs {
		r := &reqs[i]
		if r.Status != schemas.StatusOK || !r.TTFTS.OK {
			continue
		}
		t := byID[TraceID(r.RunID, r.Index)]
		if t == nil || len(t.SentS) != len(r.ChunkGapsS)+1 || len(t.PlannedS) != len(t.SentS) {
			c.Unmatched++
			continue
		}
		c.Matched++
		ttftS = append(ttftS, r.TTFTS.V-t.SentS[0])
		ttftP = append(ttftP, r.TTFTS.V-t.PlannedS[0])
		for k, g := range r.ChunkGapsS {
			itlS = append(itlS, g-(t.SentS[k+1]-t.SentS[k]))
			itlP = append(itlP, g-(t.PlannedS[k+1]-t.PlannedS[k]))
		}
	}
	c.TTFTvsSent, c.TTFTvsPlan = errorStats(ttftS), errorStats(ttftP)
	c.ITLvsSent, c.ITLvsPlan = errorStats(itlS), errorStats(itlP)
	return c
}

// FetchTraces reads the reference server's traces of one capture run from
// GET /fakeserver/traces on the endpoint's host.
func FetchTraces(ctx context.Context, endpoint, runID string, client *http.Client) ([]fakeserver.Trace, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("endpoint %s does not parse", RedactURL(endpoint))
	}
	u.Path, u.RawQuery, u.User = "/fakeserver/traces", url.Values{"prefix": {runID + "-"}}.Encode(), nil
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching traces: %w", unwrapURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching traces: HTTP %d", resp.StatusCode)
	}
	var ts []fakeserver.Trace
	if err := json.NewDecoder(resp.Body).Decode(&ts); err != nil {
		return nil, fmt.Errorf("fetching traces: %w", err)
	}
	return ts, nil
}

// WriteText prints the calibration as a small table in milliseconds.
func (c Calibration) WriteText(w io.Writer) error {
	ms := func(x float64) string { return strconv.FormatFloat(x*1e3, 'f', 3, 64) }
	_, err := fmt.Fprintf(w, "calibration against the reference server: %d requests compared (%d unmatched)\n", c.Matched, c.Unmatched)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%-28s %9s %9s %9s %9s %9s %9s\n", "error (measured - true), ms", "n", "mean", "p50|e|", "p90|e|", "p99|e|", "max|e|")
	for _, row := range []struct {
		name string
		s    ErrorStats
	}{
		{"TTFT vs server send", c.TTFTvsSent}, {"TTFT vs planned", c.TTFTvsPlan},
		{"ITL vs server send", c.ITLvsSent}, {"ITL vs planned", c.ITLvsPlan},
	} {
		if _, err := fmt.Fprintf(w, "%-28s %9d %9s %9s %9s %9s %9s\n", row.name, row.s.N, ms(row.s.Mean), ms(row.s.P50), ms(row.s.P90), ms(row.s.P99), ms(row.s.Max)); err != nil {
			return err
		}
	}
	return nil
}
