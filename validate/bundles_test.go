package validate

import (
	"context"
	"fmt"

	"github.com/verdict-llm/verdict/schemas"
)

// LoadBundle opens the bundle in dir and reads it (analysis.Validate does
// this outside tests).
func LoadBundle(ctx context.Context, dir string) ([]*RunData, error) {
	b, err := schemas.OpenBundle(dir)
	if err != nil {
		return nil, err
	}
	return ReadBundle(ctx, b, dir)
}

// ValidateBundles validates the runs of the bundles in dirs, in order.
func ValidateBundles(ctx context.Context, dirs []string, opts Options) (*Report, error) {
	var runs []*RunData
	for _, dir := range dirs {
		rs, err := LoadBundle(ctx, dir)
		if err != nil {
			return nil, err
		}
		if len(rs) == 0 {
			return nil, fmt.Errorf("%s: the bundle holds no runs", dir)
		}
		runs = append(runs, rs...)
	}
	return Validate(runs, opts)
}
