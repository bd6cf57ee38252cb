package analysis

import (
	"context"
	"slices"

	"github.com/verdict-llm/verdict/schemas"
)

// A RequestRow is one request row of a report's run with the quantities
// derived from it (each by its one function in schemas), for a renderer
// that lists requests (the workbook's Requests sheet).
type RequestRow struct {
	Run *ReportRun
	*schemas.Request
	// TPOT is schemas.Request.TPOT for a successful request; unknown for
	// a failed one.
	TPOT        schemas.Opt[float64]
	Chunks      schemas.Opt[int64]
	MaxChunkGap schemas.Opt[float64]
}

// A RequestSource calls fn for every request row of a report, in report
// order (bundle by bundle, rows in stored order), streaming them so that
// memory does not grow with the number of requests. The row is only
// valid during the call.
type RequestSource interface {
	Requests(ctx context.Context, fn func(*RequestRow) error) error
}

// RequestRows is the RequestSource of the report's own bundles.
func RequestRows(rep *Report) RequestSource { return bundleRows{rep} }

type bundleRows struct{ rep *Report }

func (s bundleRows) Requests(ctx context.Context, fn func(*RequestRow) error) error {
	for _, b := range s.rep.Bundles {
		byID := map[string]*ReportRun{}
		for _, r := range s.rep.Runs {
			if r.Bundle == b.Path {
				byID[r.Run.ID] = r
			}
		}
		bundle, err := Open(b.Path)
		if err != nil {
			return err
		}
		var row RequestRow
		err = bundle.Requests(ctx, func(q *schemas.Request) error {
			r := byID[q.RunID]
			if r == nil {
				return nil
			}
			row = RequestRow{Run: r, Request: q, Chunks: q.Chunks(), MaxChunkGap: q.MaxChunkGap()}
			if q.Status == schemas.StatusOK {
				row.TPOT = q.TPOT()
			}
			return fn(&row)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// RequestCount is the number of request rows in the report's bundles, as
// their manifests count them.
func (rep *Report) RequestCount() int64 {
	var n int64
	for _, b := range rep.Bundles {
		for _, t := range b.Manifest.Tables {
			if t.Name == schemas.TableRequests {
				n += t.Rows
			}
		}
	}
	return n
}

// ProfilingRequests reads the request rows of the profiling phase of the
// bundle at dir into memory, every status included (capture's calibration
// compares them with the reference server's traces). For small bundles:
// the rows are held whole.
func ProfilingRequests(ctx context.Context, dir string) ([]schemas.Request, error) {
	b, err := Open(dir)
	if err != nil {
		return nil, err
	}
	var out []schemas.Request
	err = b.Requests(ctx, func(q *schemas.Request) error {
		if q.Phase == schemas.PhaseProfiling {
			c := *q
			c.ChunkGapsS = slices.Clone(q.ChunkGapsS)
			out = append(out, c)
		}
		return nil
	})
	return out, err
}
