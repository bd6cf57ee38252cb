package analysis

import (
	"context"

	"github.com/verdict-llm/verdict/schemas"
)

// ShowSchema is the "schema" value of `verdict show --format json`.
const ShowSchema = "verdict.show/v1"

// ShowData is the content of `verdict show`: a bundle's runs with their
// inventory, their metrics, and the definition of every metric present.
type ShowData struct {
	Bundle      string
	Manifest    schemas.Manifest
	Runs        []schemas.Run
	Metrics     []schemas.Metric
	Definitions map[schemas.MetricID]schemas.MetricDef
}

// LoadShow reads what `verdict show` reports from the bundle in dir.
func LoadShow(ctx context.Context, dir string) (*ShowData, error) {
	b, err := Open(dir)
	if err != nil {
		return nil, err
	}
	runs, err := b.Runs(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := b.Metrics(ctx)
	if err != nil {
		return nil, err
	}
	d := &ShowData{Bundle: dir, Manifest: b.Manifest, Runs: runs, Metrics: ms, Definitions: map[schemas.MetricID]schemas.MetricDef{}}
	for _, m := range ms {
		if _, ok := d.Definitions[m.MetricID]; !ok {
			if def, ok := schemas.Lookup(m.MetricID); ok {
				d.Definitions[m.MetricID] = def
			}
		}
	}
	return d, nil
}
