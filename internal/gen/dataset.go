package gen

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/verdict-llm/verdict/schemas"
)

// RunsOptions size a synthetic history: Runs runs of Requests requests
// each, with vLLM-like values (the distributions of VLLMDetailed).
type RunsOptions struct {
	Runs, Requests int
	// Chunks is the streamed chunks per successful request (gaps =
	// Chunks-1); 0 stores no gaps.
	Chunks int
	Seed   uint64
	// FailEvery makes every FailEvery-th request fail (0: none fail).
	FailEvery int
}

// RunID is the ID of run i.
func RunID(i int) string { return fmt.Sprintf("synthetic-%05d", i) }

// RunBundle writes run i of o as a bundle at dest, straight from the
// values (no tool file is written or parsed), so that a scale test can
// build a large dataset bundle by bundle with bounded memory.
func RunBundle(dest string, i int, o RunsOptions) error {
	w, err := schemas.CreateBundle(dest, schemas.BundleOptions{VerdictVersion: "gen", CreatedAt: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		return err
	}
	failed := 0
	var gaps []float64
	for k := range o.Requests {
		q := schemas.Request{RunID: RunID(i), Index: int64(k), Status: schemas.StatusOK, Phase: schemas.PhaseProfiling,
			StartS: schemas.Some(float64(k) / 500)}
		r := rand.New(rand.NewPCG(o.Seed^uint64(i)<<32^uint64(k), 2))
		q.InputTokens = schemas.Some(int64(100 + r.IntN(400)))
		if o.FailEvery > 0 && k%o.FailEvery == o.FailEvery-1 {
			failed++
			q.Status, q.Error = schemas.StatusError, "Not Found"
		} else {
			ttft := 0.02 + r.ExpFloat64()*0.05
			out := max(o.Chunks, 2)
			e2e := ttft
			gaps = gaps[:0]
			for c := 0; c < out-1; c++ {
				g := 0.008 + math.Abs(r.NormFloat64())*0.002
				e2e += g
				gaps = append(gaps, g)
			}
			q.TTFTS, q.E2ES, q.OutputTokens = schemas.Some(ttft), schemas.Some(e2e), schemas.Some(int64(out))
			q.EndS = schemas.Some(q.StartS.V + e2e)
			if o.Chunks > 0 {
				q.ChunkGapsS = gaps
			}
		}
		if err := w.AddRequest(&q); err != nil {
			w.Abort()
			return err
		}
	}
	w.AddRun(schemas.Run{ID: RunID(i), Tool: "vllm", Format: "synthetic", Scenario: schemas.ScenarioServer, Arrival: schemas.ArrivalPoisson,
		RequestRate: schemas.Some(500.0), Streaming: schemas.Some(true), Model: "synthetic/model",
		NumPrompts: schemas.Some(int64(o.Requests)), Completed: schemas.Some(int64(o.Requests - failed)), Failed: schemas.Some(int64(failed)),
		DurationS: schemas.Some(float64(o.Requests) / 500), WindowKind: schemas.WindowKindDispatch})
	return w.Commit(schemas.Manifest{})
}

// Dataset exports the runs of o into the dataset ds one bundle at a time
// (each written under scratch and removed once exported), so that memory
// stays bounded whatever the size.
func Dataset(ctx context.Context, ds, scratch string, o RunsOptions) error {
	dest := filepath.Join(scratch, "run.bundle")
	for i := range o.Runs {
		if err := RunBundle(dest, i, o); err != nil {
			return err
		}
		b, err := schemas.OpenBundle(dest)
		if err != nil {
			return err
		}
		if _, err := schemas.Export(ctx, b, ds, schemas.ExportOptions{}); err != nil {
			return err
		}
		if err := os.RemoveAll(dest); err != nil {
			return err
		}
	}
	return nil
}
