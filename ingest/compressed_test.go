package ingest_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/schemas"
)

func compress(t *testing.T, kind string, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	switch kind {
	case "gzip":
		w := gzip.NewWriter(&b)
		w.Write(data)
		w.Close()
	case "zstd":
		w, _ := zstd.NewWriter(&b)
		w.Write(data)
		w.Close()
	}
	return b.Bytes()
}

// TestCompressedInputs: a .gz or .zst file ingests exactly like the plain
// one (the per-request arrays are read at several offsets, so this also
// covers the temporary spill).
func TestCompressedInputs(t *testing.T) {
	plain, err := os.ReadFile(testdata("serve_detailed.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	counts := map[string]schemas.Counts{}
	for _, kind := range []string{"plain", "gzip", "zstd"} {
		path := filepath.Join(dir, "detailed.json."+kind)
		data := plain
		if kind != "plain" {
			data = compress(t, kind, plain)
		}
		os.WriteFile(path, data, 0o644)
		sum, err := ingest.ToBundle(context.Background(), []string{path}, filepath.Join(dir, kind+".bundle"), ingest.Options{Formats: formats})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		src := sum.Manifest.Sources[0]
		counts[kind] = src.Counts[schemas.TableRequests]
		if want := map[string]string{"plain": "", "gzip": "gzip", "zstd": "zstd"}[kind]; src.Compression != want {
			t.Errorf("%s: compression %q", kind, src.Compression)
		}
		if src.Format != "vllm-serve" || src.Bytes != int64(len(data)) {
			t.Errorf("%s: %+v", kind, src)
		}
	}
	if counts["gzip"].Ingested != counts["plain"].Ingested || counts["zstd"].Ingested != counts["plain"].Ingested || counts["plain"].Ingested != 24 {
		t.Errorf("counts differ: %+v", counts)
	}
}

// TestDecompressionBomb: an input that decompresses past the limit fails
// without being written out in full.
func TestDecompressionBomb(t *testing.T) {
	plain, _ := os.ReadFile(testdata("serve_detailed.json"))
	dir := t.TempDir()
	for _, kind := range []string{"gzip", "zstd"} {
		path := filepath.Join(dir, "bomb."+kind)
		os.WriteFile(path, compress(t, kind, plain), 0o644)
		_, err := ingest.ToBundle(context.Background(), []string{path}, filepath.Join(dir, "b"),
			ingest.Options{Formats: formats, MaxDecompressed: int64(len(plain)) / 2})
		var ie *ingest.Error
		if !errors.Is(err, ingest.ErrTooLarge) || !errors.As(err, &ie) || !strings.Contains(err.Error(), "--max-decompressed") {
			t.Errorf("%s: got %v", kind, err)
		}
		// Exactly at the limit is fine.
		if _, err := ingest.ToBundle(context.Background(), []string{path}, filepath.Join(dir, kind+".ok"),
			ingest.Options{Formats: formats, MaxDecompressed: int64(len(plain))}); err != nil {
			t.Errorf("%s at the limit: %v", kind, err)
		}
	}
	trunc := filepath.Join(dir, "trunc.gz")
	gz := compress(t, "gzip", plain)
	os.WriteFile(trunc, gz[:len(gz)/2], 0o644)
	_, err := ingest.ToBundle(context.Background(), []string{trunc}, filepath.Join(dir, "t"), ingest.Options{Formats: formats})
	if err == nil || !strings.Contains(err.Error(), "trunc.gz") {
		t.Errorf("a truncated gzip file: %v", err)
	}
}
