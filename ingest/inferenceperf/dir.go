package inferenceperf

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
)

// A report directory (docs/formats/inference-perf.md section 1): the
// lifecycle summaries, the per-request file, the Prometheus summaries and
// config.yaml, whose settings (arrival process, each stage's rate or
// concurrency, API, model) apply to the stage files. The per-request file
// holds every stage's requests without a stage index, so its rows belong
// to the summary over all stages, whose statistics are then recomputed from
// them and checked.

type reportDir struct {
	config, summary, requests string
	stages, proms, others     []string
}

func scanDir(dir string) (reportDir, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return reportDir{}, false
	}
	var d reportDir
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		kind, _ := kindOf(ingest.FileHead(path))
		switch {
		case kind == kindConfig:
			d.config = path
		case kind == kindRequests:
			d.requests = path
		case kind == kindPrometheus:
			d.proms = append(d.proms, path)
		case kind == kindLifecycle && summaryRe.MatchString(e.Name()) && !adapterRe.MatchString(e.Name()):
			d.summary = path
		case kind == kindLifecycle:
			d.stages = append(d.stages, path)
		default:
			d.others = append(d.others, path)
		}
	}
	sort.Strings(d.stages)
	return d, d.summary != "" || len(d.stages) > 0 || d.requests != ""
}

// DetectDir recognizes a report directory.
func (Format) DetectDir(dir string) int {
	if _, ok := scanDir(dir); ok {
		return 80
	}
	return 0
}

// ReadDir reads a report directory.
func (Format) ReadDir(ctx context.Context, dir string, sink ingest.Sink) error {
	d, ok := scanDir(dir)
	if !ok {
		return &ingest.Error{File: dir, Err: errors.New("no inference-perf lifecycle reports in this directory")}
	}
	cfg, err := readConfig(d.config)
	if err != nil {
		return err
	}
	versions := map[string]bool{}
	for _, path := range d.stages {
		if err := ctx.Err(); err != nil {
			return err
		}
		info := nameInfo(path)
		s, err := readSummaryFile(path, sink, info, ConfigSettings(cfg, info.stage))
		if err != nil {
			return err
		}
		versions[s.version] = true
		if err := s.emit(); err != nil {
			return err
		}
	}
	if err := readAllStages(ctx, d, cfg, sink, versions); err != nil {
		return err
	}
	for _, path := range d.proms {
		in, err := ingest.FileInput(path)
		if err != nil {
			return err
		}
		root, err := jtree.ParseObject(in, sink)
		if err != nil {
			return err
		}
		p := newProm(in, sink, nameInfo(path))
		if err := p.read(root); err != nil {
			return err
		}
		if err := sink.Run(&p.run); err != nil {
			return err
		}
	}
	for _, o := range d.others {
		sink.Warn(o + ": not an inference-perf report file; skipped")
	}
	version := "several (see each run's tool_version)"
	if len(versions) == 1 {
		for v := range versions {
			version = v
		}
	}
	sink.Describe(kindDir, "inference-perf", version)
	return nil
}

// readAllStages reads the summary over all stages and the per-request
// file, whose rows belong to it.
func readAllStages(ctx context.Context, d reportDir, cfg *jtree.Node, sink ingest.Sink, versions map[string]bool) error {
	var s *summary
	if d.summary != "" {
		var err error
		if s, err = readSummaryFile(d.summary, sink, nameInfo(d.summary), ConfigSettings(cfg, -1)); err != nil {
			return err
		}
		versions[s.version] = true
	}
	if d.requests != "" {
		in, err := ingest.FileInput(d.requests)
		if err != nil {
			return err
		}
		if s == nil {
			return readRequestsAlone(ctx, in, sink)
		}
		rr := newRequestReader(ctx, in, sink, s.run.ID)
		defer rr.close()
		if err := rr.read(); err != nil {
			return err
		}
		if err := rr.emitComputed(s.reported); err != nil {
			return err
		}
	}
	if s != nil {
		return s.emit()
	}
	return nil
}

func readSummaryFile(path string, sink ingest.Sink, info fileInfo, cfg Settings) (*summary, error) {
	in, err := ingest.FileInput(path)
	if err != nil {
		return nil, err
	}
	root, err := jtree.ParseObject(in, sink)
	if err != nil {
		return nil, err
	}
	s := newSummary(in, sink, info, cfg)
	return s, s.read(root)
}

// readConfig reads config.yaml (inference-perf's dump of its config, or
// the input config), or returns nil when there is none.
func readConfig(path string) (*jtree.Node, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &ingest.Error{File: path, Err: err}
	}
	if strings.TrimSpace(string(data)) == "" {
		return nil, nil
	}
	return jtree.ParseYAML(path, bytes.NewReader(data))
}
