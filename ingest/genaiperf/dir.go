package genaiperf

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/schemas"
)

// An artifacts directory is artifacts/<model>-<service>-<stimulus>/ with
// profile_export.json (raw), profile_export_genai_perf.json and .csv
// (processed; <stem>_genai_perf.* with --profile-export-file) and
// inputs.json (llm_inputs.json before 0.0.6). A directory whose
// subdirectories are such sets (the artifact root of a sweep) is read set
// by set. Files are recognized by content, so renamed exports are found.

// artifactSet is the files of one GenAI-Perf profile.
type artifactSet struct {
	dir               string
	summary, csv, raw string
	inputs            string
	others            []string
}

func fileInput(path string) (*ingest.Input, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &ingest.Error{File: path, Err: err}
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return nil, &ingest.Error{File: path, Err: err}
	}
	if n == 0 {
		return nil, &ingest.Error{File: path, Err: fmt.Errorf("empty file")}
	}
	return ingest.NewInput(path, n, hex.EncodeToString(h.Sum(nil)), func(off int64) (io.ReadCloser, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}), nil
}

func fileHead(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b := make([]byte, ingest.HeadSize)
	n, _ := io.ReadFull(f, b)
	return b[:n]
}

// scanSet classifies the regular files of dir; ok is false when none is
// GenAI-Perf's.
func scanSet(dir string) (artifactSet, bool) {
	s := artifactSet{dir: dir}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return s, false
	}
	for _, de := range entries {
		if !de.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, de.Name())
		name := de.Name()
		switch {
		case name == "inputs.json" || name == "llm_inputs.json":
			s.inputs = p
			continue
		}
		kind, _ := kindOf(p, fileHead(p))
		switch {
		case kind == kindSummary && (s.summary == "" || name == "profile_export_genai_perf.json"):
			s.summary = p
		case kind == kindCSV && (s.csv == "" || name == "profile_export_genai_perf.csv"):
			s.csv = p
		case kind == kindRaw && (s.raw == "" || name == "profile_export.json"):
			s.raw = p
		default:
			s.others = append(s.others, p)
		}
	}
	return s, s.summary != "" || s.csv != "" || s.raw != ""
}

// sets finds the artifact sets in dir: dir itself, or its subdirectories.
func sets(dir string) []artifactSet { return ingest.ArtifactSets(dir, scanSet) }

// DetectDir recognizes a GenAI-Perf artifacts directory (or a directory of
// them) by the content of its files.
func (Format) DetectDir(dir string) int {
	if len(sets(dir)) > 0 {
		return 90
	}
	return 0
}

// ReadDir reads an artifacts directory: per set, the processed export
// (JSON, else CSV) gives the run and its reported statistics, the raw
// export its requests and recomputed statistics, and inputs.json the
// request settings when no configuration was recorded.
func (Format) ReadDir(ctx context.Context, dir string, sink ingest.Sink) error {
	ss := sets(dir)
	if len(ss) == 0 {
		return &ingest.Error{File: dir, Err: fmt.Errorf("no GenAI-Perf exports in the directory")}
	}
	v, err := ingest.ReadSets(ctx, ss, func(s artifactSet) (string, error) { return readSet(ctx, s, sink) })
	if err != nil {
		return err
	}
	sink.Describe(kindDir, "genai-perf", v)
	return nil
}

func readSet(ctx context.Context, s artifactSet, sink ingest.Sink) (string, error) {
	var main *runState
	var sum *summary
	switch {
	case s.summary != "":
		in, err := fileInput(s.summary)
		if err != nil {
			return "", err
		}
		if sum, err = readSummary(in, sink); err != nil {
			return "", err
		}
		main = sum.main
		if s.csv != "" {
			sink.Warn(fmt.Sprintf("%s not read: it repeats %s with rounded values", s.csv, filepath.Base(s.summary)))
		}
	case s.csv != "":
		in, err := fileInput(s.csv)
		if err != nil {
			return "", err
		}
		if main, err = readCSV(in, sink); err != nil {
			return "", err
		}
	}
	if main != nil {
		main.run.Format = kindDir
		main.label("artifact_dir", filepath.Base(s.dir))
		usedInputs := !main.streamSet && s.inputs != ""
		if usedInputs {
			main.inputsFile(s.inputs, sink)
		}
		// The run keeps every file it was read from.
		var files []string
		for _, p := range []string{firstNonEmpty(s.summary, s.csv), s.raw} {
			if p != "" {
				files = append(files, p)
			}
		}
		if usedInputs {
			files = append(files, s.inputs)
		}
		if len(files) > 1 {
			main.run.SourceFiles = files
		}
	}
	version := ""
	if s.raw != "" {
		in, err := fileInput(s.raw)
		if err != nil {
			return "", err
		}
		r := &rawReader{ctx: ctx, in: in, sink: sink}
		if err := r.read(main); err != nil {
			return "", err
		}
		if err := r.emitRuns(); err != nil {
			return "", err
		}
		version = r.version()
		if main != nil && len(r.exps) > 1 {
			sink.Warn(fmt.Sprintf("%s: %d experiments; only the first is the processed export's run", s.raw, len(r.exps)))
		}
	}
	if main == nil {
		return version, nil
	}
	if sum != nil {
		if err := sum.emitRuns(sink); err != nil {
			return "", err
		}
	} else if err := main.emitRun(sink); err != nil {
		return "", err
	}
	for _, o := range s.others {
		sink.Warn(fmt.Sprintf("%s not read: not a GenAI-Perf export", o))
	}
	return main.run.ToolVersion, nil
}

// inputsFile reads streaming and max_tokens from inputs.json when the
// processed export carried no configuration (CSV-only directories).
func (rs *runState) inputsFile(path string, sink ingest.Sink) {
	f, err := os.Open(path)
	if err != nil {
		sink.Warn(fmt.Sprintf("%s: %v", path, err))
		return
	}
	defer f.Close()
	root, err := jtree.Parse(path, f)
	if err != nil {
		sink.Warn(fmt.Sprintf("%s not used: %v", path, err))
		return
	}
	data := root.Get("data")
	if data == nil || len(data.Items()) == 0 {
		return
	}
	first := data.Items()[0]
	body := first
	if p := first.Get("payload"); p != nil && len(p.Items()) > 0 {
		body = p.Items()[0]
	}
	st := body.Get("stream")
	if st != nil && len(st.Items()) == 1 {
		st = st.Items()[0]
	}
	b, ok := st.Bool()
	if !ok && body.IsObject() && (body.Has("messages") || body.Has("prompt")) {
		b, ok = false, true // OpenAI bodies carry "stream" only when streaming
	}
	if ok {
		if rs.run.Streaming.OK && rs.run.Streaming.V != b {
			sink.Warn(fmt.Sprintf("%s: stream=%v, but the export's rows say streaming=%v", path, b, rs.run.Streaming.V))
		}
		rs.run.Streaming = schemas.Some(b)
		rs.streamSet = true
	}
	if m, ok := body.Get("model").Str(); ok && rs.run.Model == "" {
		rs.run.Model = m
	}
	for _, k := range []string{"max_tokens", "max_completion_tokens"} {
		v := body.Get(k)
		if v != nil && len(v.Items()) == 1 {
			v = v.Items()[0]
		}
		if t, ok := v.Scalar(); ok && t != "" {
			rs.label("max_tokens", t)
		}
	}
}
