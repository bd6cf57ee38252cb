//go:build !(linux && cgo)

package capture

import "fmt"

// OpenNVML reports that NVML is unavailable: go-nvml needs cgo on Linux,
// and this binary was built without it.
func OpenNVML() (Sampler, error) {
	return nil, fmt.Errorf("%w: this verdict was built without cgo (go-nvml needs it on Linux)", ErrNVMLUnavailable)
}
