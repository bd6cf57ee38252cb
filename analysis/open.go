package analysis

import (
	"context"
	"fmt"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/validate"
)

// Open opens the bundle or dataset in dir. It is the one place verdict's
// commands open one for reading.
func Open(dir string) (*schemas.Bundle, error) { return schemas.OpenBundle(dir) }

// Validate opens the bundles (or datasets) in dirs, in order, and
// validates their runs with opts. A bundle that cannot be read, or holds no
// runs, is an error.
func Validate(ctx context.Context, dirs []string, opts validate.Options) (*validate.Report, error) {
	runs, err := readRuns(ctx, dirs)
	if err != nil {
		return nil, err
	}
	return validate.Validate(runs, opts)
}

// readRuns opens the bundles in dirs, in order, and reads their runs as
// the validation rules see them.
func readRuns(ctx context.Context, dirs []string) ([]*validate.RunData, error) {
	var runs []*validate.RunData
	for _, dir := range dirs {
		b, err := Open(dir)
		if err != nil {
			return nil, err
		}
		rs, err := validate.ReadBundle(ctx, b, dir)
		if err != nil {
			return nil, err
		}
		if len(rs) == 0 {
			return nil, fmt.Errorf("%s: the bundle holds no runs", dir)
		}
		runs = append(runs, rs...)
	}
	return runs, nil
}
