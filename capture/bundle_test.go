package capture

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/capture/fakeserver"
	"github.com/verdict-llm/verdict/schemas"
)

func TestWriteBundle(t *testing.T) {
	const key = "sk-verdict-secret-4242"
	cfg := quick
	cfg.APIKey, cfg.ErrorRate, cfg.ResetRate = key, 0.2, 0.1
	_, url := startServer(t, cfg)
	ds := synthetic(t, 20, "10", "6")
	dest := filepath.Join(t.TempDir(), "cap.bundle")
	var fsmp fakeSampler
	res, err := WriteBundle(t.Context(), dest, Options{Endpoint: url + "/v1/completions?api-key=" + key, Model: "m", APIKey: key, Dataset: ds,
		Scenario: schemas.ScenarioServer, Rate: 400, NumPrompts: 20, Warmup: 2, Sampler: &fsmp, SampleInterval: 10 * time.Millisecond, Version: "v-test"},
		schemas.BundleOptions{VerdictVersion: "v-test"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := schemas.OpenBundle(dest)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	runs, _ := b.Runs(ctx)
	if len(runs) != 1 || runs[0].ID != res.Run.ID || runs[0].Tool != Tool || runs[0].SUT.DatasetSHA256 != ds.SHA256 || runs[0].Endpoint != url+"/v1/completions" {
		t.Fatalf("runs %+v", runs)
	}
	var n, warm int64
	b.Requests(ctx, func(r *schemas.Request) error {
		n++
		if r.Phase == schemas.PhaseWarmup {
			warm++
		}
		return nil
	})
	ms, _ := b.Metrics(ctx)
	smp, _ := b.Samples(ctx)
	if n != 22 || warm != 2 || len(ms) != len(res.Metrics) || int64(len(smp)) != res.Samples || len(smp) == 0 {
		t.Errorf("%d requests (%d warm-up), %d metrics, %d samples", n, warm, len(ms), len(smp))
	}
	src := b.Manifest.Sources[0]
	rq := src.Counts[schemas.TableRequests]
	if src.Tool != Tool || src.ToolVersion != "v-test" || rq.Read != 22 || rq.Ingested+rq.Rejected != rq.Read || src.SHA256 != ds.SHA256 {
		t.Errorf("manifest source %+v", src)
	}
	// The key reached the server (requests succeeded) and is nowhere in
	// the bundle: not in the endpoint, not in an error.
	if res.Accounting.OK == 0 {
		t.Fatal("no request succeeded with the key")
	}
	filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, _ := os.ReadFile(p)
		if bytes.Contains(data, []byte(key)) {
			t.Errorf("%s holds the API key", p)
		}
		return nil
	})
}

func TestWriteBundleInterrupted(t *testing.T) {
	cfg := quick
	cfg.OutputTokens, cfg.TokenDelay = 50, 5*time.Millisecond
	_, url := startServer(t, cfg)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	dest := filepath.Join(t.TempDir(), "cut.bundle")
	res, err := WriteBundle(ctx, dest, Options{Endpoint: url + "/v1/completions", Model: "m", Dataset: synthetic(t, 5, "5", "50"),
		Scenario: schemas.ScenarioConcurrency, MaxConcurrency: 3, NumPrompts: 100}, schemas.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := schemas.OpenBundle(dest)
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := b.Runs(context.Background())
	if !res.Incomplete || len(runs) != 1 || !contains(runs[0].Flags, "incomplete") {
		t.Errorf("runs %+v", runs)
	}
	rq := b.Manifest.Sources[0].Counts[schemas.TableRequests]
	if rq.Read != 100 || rq.Rejected == 0 || rq.Ingested+rq.Rejected != 100 || len(rq.Reasons) == 0 {
		t.Errorf("requests counts %+v", rq)
	}
}

func TestCalibrationText(t *testing.T) {
	reqs := []schemas.Request{
		{RunID: "r", Index: 0, Status: schemas.StatusOK, TTFTS: schemas.Some(0.0105), ChunkGapsS: []float64{0.0101, 0.0099}},
		{RunID: "r", Index: 1, Status: schemas.StatusOK, TTFTS: schemas.Some(0.0212), ChunkGapsS: []float64{0.0100}},
		{RunID: "r", Index: 2, Status: schemas.StatusError, Error: "x"},
		{RunID: "r", Index: 3, Status: schemas.StatusOK, TTFTS: schemas.Some(0.01), ChunkGapsS: []float64{}},
	}
	traces := []fakeserver.Trace{
		{ID: "r-0", PlannedS: []float64{0.010, 0.020, 0.030}, SentS: []float64{0.0101, 0.0201, 0.0301}},
		{ID: "r-1", PlannedS: []float64{0.020, 0.030}, SentS: []float64{0.0202, 0.0302}},
		{ID: "r-3", PlannedS: []float64{0.010, 0.020}, SentS: []float64{0.0101, 0.0201}}, // chunk count differs
	}
	cal := Calibrate(reqs, traces)
	if cal.Matched != 2 || cal.Unmatched != 1 || cal.TTFTvsSent.N != 2 || cal.ITLvsSent.N != 3 {
		t.Errorf("%+v", cal)
	}
	var buf bytes.Buffer
	cal.WriteText(&buf)
	golden(t, "calibration.txt", buf.Bytes())
}
