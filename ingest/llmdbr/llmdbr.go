// Package llmdbr reads the llm-d Benchmark Report (BR), the cross-tool
// result document of llm-d-benchmark, in its three versions: 0.1 (scenario
// + metrics), 0.2 and 0.2.1 (run + scenario + results), as YAML or JSON.
// The layout is in docs/formats/llmd-br.md sections 1-2, what each field
// holds in section 3.
//
// A report is one load stage: it becomes one run. BR is a container, not a
// set of definitions: its schema names a field time_to_first_token or
// inter_token_latency, and what the number measures is whatever the tool
// that produced the report measured. So metrics are mapped by producer
// (scenario.load.name in 0.1, scenario.load.standardized.tool in 0.2): an
// inference-perf report's inter_token_latency is itl_token_chunk_stamped and
// its NTPOT tpot_incl_ttft_zero_filled, a vLLM report's ITL is itl_chunk.
// For a producer whose definitions verdict has not checked, the schema's own
// descriptions decide and the run is flagged br_definitions_from_schema_text.
// A report verdict wrote (render/br) carries the definition of every field
// in a "verdict" stack component, and those are used as written.
//
// Values are scaled by each Statistics object's units (ms and s are both
// legal for a latency, and any other unit is a rejected row). The stack
// becomes the run's inventory (accelerators, their count and parallelism,
// the engine and its arguments), the load its workload and arrival
// settings, and the producing tool its provenance labels. BR 0.1's
// metrics.time.duration, which inference-perf fills with the span of the
// send times, is stored as send_span, not as the throughput window.
package llmdbr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/internal/jsonscan"
)

// Format is the llm-d Benchmark Report ingest format.
type Format struct{}

func (Format) Name() string { return "llmd-br" }

func (Format) Description() string {
	return "llm-d Benchmark Report v0.1, v0.2, v0.2.1 (YAML or JSON; one load stage per report)"
}

// Versions BR defines; llm-d-benchmark's core.py dispatches on exactly
// these strings.
var versions = []string{"0.1", "0.2", "0.2.1"}

var (
	yamlVersion = regexp.MustCompile(`(?m)^version:\s*['"]?(0\.1|0\.2|0\.2\.1)['"]?\s*(#.*)?$`)
	jsonVersion = regexp.MustCompile(`"version"\s*:\s*"(0\.1|0\.2|0\.2\.1)"`)
	yamlTop     = regexp.MustCompile(`(?m)^(metrics|results|run|scenario):`)
)

// Detect recognizes a BR by its version and its top-level sections.
func (Format) Detect(name string, head []byte) int {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) == 0 {
		return 0
	}
	if t[0] == '{' {
		if schemaFile(head) {
			return 60 // refused by Read with a reason
		}
		v2 := bytes.Contains(head, []byte(`"request_performance"`)) && bytes.Contains(head, []byte(`"run"`))
		v1 := bytes.Contains(head, []byte(`"scenario"`)) && bytes.Contains(head, []byte(`"time_to_first_token"`)) && bytes.Contains(head, []byte(`"metrics"`))
		if (v1 || v2) && jsonVersion.Match(head) {
			return 90
		}
		return 0
	}
	tops := map[string]bool{}
	for _, m := range yamlTop.FindAllSubmatch(head, -1) {
		tops[string(m[1])] = true
	}
	v1 := tops["metrics"] && tops["scenario"] && bytes.Contains(head, []byte("time_to_first_token:"))
	v2 := tops["results"] && tops["run"] && bytes.Contains(head, []byte("request_performance:"))
	switch {
	case (v1 || v2) && yamlVersion.Match(head):
		return 90
	case v1 || v2:
		return 40 // version beyond the head, or misspelt: Read says which
	}
	return 0
}

// schemaFile recognizes llm-d-benchmark's JSON Schema of BR, which sits
// beside the reports and is refused with that reason.
func schemaFile(head []byte) bool {
	return bytes.Contains(head, []byte(`"$defs"`)) && bytes.Contains(head, []byte(`"properties"`)) &&
		bytes.Contains(head, []byte(`"time_to_first_token"`)) && bytes.Contains(head, []byte(`"Statistics"`))
}

// Read reads one report.
func (Format) Read(ctx context.Context, in *ingest.Input, sink ingest.Sink) error {
	data, err := readAll(in)
	if err != nil {
		return err
	}
	if schemaFile(data) {
		return &ingest.Error{File: in.Path, Err: errors.New("this is the JSON Schema of the Benchmark Report, not a report: give a report written against it")}
	}
	var root *jtree.Node
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '{' {
		root, err = jtree.Parse(in.Path, bytes.NewReader(data))
	} else {
		root, err = jtree.ParseYAML(in.Path, bytes.NewReader(data))
	}
	if err != nil {
		return err
	}
	if !root.IsObject() {
		return jtree.ErrorAt(in.Path, root, "", "", "expected a Benchmark Report mapping, found %s", root.Describe())
	}
	version, err := reportVersion(in.Path, root, sink)
	if err != nil {
		return err
	}
	r := newReport(in, sink, root, version)
	if version == "0.1" {
		err = r.readV01()
	} else {
		err = r.readV02()
	}
	if err != nil {
		return err
	}
	sink.Describe("llmd-br", "llmd-br", version)
	return r.emitRun()
}

// maxReport bounds the size of one report read into memory; a report is a
// few kilobytes of aggregates.
const maxReport = 256 << 20

func readAll(in *ingest.Input) ([]byte, error) {
	rc, err := in.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxReport+1))
	if err != nil {
		return nil, &ingest.Error{File: in.Path, Err: err}
	}
	if len(data) > maxReport {
		return nil, &ingest.Error{File: in.Path, Err: fmt.Errorf("larger than %d MiB: not a Benchmark Report", maxReport>>20)}
	}
	return data, nil
}

// reportVersion reads the top-level version. BR's version is a string; an
// unquoted YAML number with the same text (version: 0.2) is read with a
// warning, since llm-d-benchmark itself would refuse it.
func reportVersion(path string, root *jtree.Node, sink ingest.Sink) (string, error) {
	v := root.Get("version")
	if v == nil {
		return "", &ingest.Error{File: path, Field: "version", Err: errors.New("no version: a Benchmark Report names its schema version ('0.1', '0.2' or '0.2.1')")}
	}
	s, ok := v.Str()
	if !ok && v.Kind == jsonscan.Number && slices.Contains(versions, v.Text) {
		sink.Warn(fmt.Sprintf("%s:%d: version %s is a number, not the string '%s' BR requires; read as '%s'", path, v.Pos.Line, v.Text, v.Text, v.Text))
		s, ok = v.Text, true
	}
	if !ok || !slices.Contains(versions, s) {
		return "", jtree.ErrorAt(path, v, "", "version", "%s is not a Benchmark Report version (known: %s)", v.Describe(), strings.Join(versions, ", "))
	}
	return s, nil
}

// partialName is the file name inference-perf's own BR writer uses.
var partialName = regexp.MustCompile(`inference-perf\.partial\.stage_(\d+)\.ya?ml$`)

func stageFromName(path string) (string, bool) {
	m := partialName.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return "", false
	}
	return m[1], true
}
