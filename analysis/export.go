package analysis

import (
	"context"
	"fmt"
	"slices"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/validate"
)

// An ExportRun is one run as the interchange writers (render/br,
// render/benchfmt) format it: the run, its metric rows and its own
// validation verdict.
type ExportRun struct {
	Run        schemas.Run
	Metrics    []schemas.Metric
	Validation *schemas.BRValidation
}

// ExportRuns opens the bundles (or datasets) in dirs, in order, and
// assembles every run with its metric rows and its validation verdict:
// each run validated on its own (GroupBy "run") under the default policy,
// with the findings that name it.
func ExportRuns(ctx context.Context, dirs []string) ([]ExportRun, error) {
	data, err := readRuns(ctx, dirs)
	if err != nil {
		return nil, err
	}
	rep, err := validate.Validate(data, validate.Options{GroupBy: "run"})
	if err != nil {
		return nil, err
	}
	out := make([]ExportRun, 0, len(data))
	for _, d := range data {
		v := &schemas.BRValidation{Schema: rep.Schema}
		for _, rr := range rep.Runs {
			if rr.Name == d.Name() {
				v.Verdict = string(rr.Verdict)
			}
		}
		for _, f := range rep.Findings {
			if slices.Contains(f.Runs, d.Name()) {
				v.Findings = append(v.Findings, schemas.BRFinding{Rule: f.Rule, Severity: string(f.Severity), Message: f.Message})
			}
		}
		out = append(out, ExportRun{Run: d.Run, Metrics: d.Metrics, Validation: v})
	}
	return out, nil
}

// A DatasetExport is what exporting one bundle into a dataset did.
type DatasetExport struct {
	Bundle string
	schemas.ExportResult
}

// ExportDataset exports each bundle into the dataset directory, in order
// (schemas.Export: atomic per run, locked against concurrent exports), and
// with compact set writes a compacted copy of the dataset there afterwards
// (schemas.Compact). An error names the bundle it happened in.
func ExportDataset(ctx context.Context, dirs []string, dataset string, replace bool, compact string) ([]DatasetExport, *schemas.CompactIndex, error) {
	var out []DatasetExport
	for _, dir := range dirs {
		b, err := Open(dir)
		if err != nil {
			return out, nil, err
		}
		res, err := schemas.Export(ctx, b, dataset, schemas.ExportOptions{Replace: replace})
		if err != nil {
			return out, nil, fmt.Errorf("%s: %w", dir, err)
		}
		out = append(out, DatasetExport{Bundle: dir, ExportResult: res})
	}
	if compact == "" {
		return out, nil, nil
	}
	idx, err := schemas.Compact(ctx, dataset, compact, schemas.CompactOptions{Replace: replace})
	if err != nil {
		return out, nil, err
	}
	return out, &idx, nil
}

// CheckDataset finds (and with repair, repairs) what interrupted exports
// left in a dataset (schemas.CheckDataset).
func CheckDataset(ctx context.Context, dataset string, repair bool) ([]schemas.DatasetProblem, error) {
	return schemas.CheckDataset(ctx, dataset, repair)
}
