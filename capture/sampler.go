package capture

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/verdict-llm/verdict/schemas"
)

// ErrNVMLUnavailable is wrapped by the error of OpenNVML when NVML cannot
// be used: a build without cgo, no libnvidia-ml, no driver or no GPU.
var ErrNVMLUnavailable = errors.New("NVML unavailable")

// A Sampler reads accelerator telemetry: one sample per device per call.
// Readings a device does not support are left unknown (null), never
// filled in.
type Sampler interface {
	// Source names the telemetry source, e.g. "nvml" or "dcgm".
	Source() string
	// Devices describes the devices, for the inventory.
	Devices() Devices
	// Sample reads every device once.
	Sample(ctx context.Context) ([]schemas.Sample, error)
	// Close releases the source.
	Close() error
}

// Devices is what a sampler knows about the system's accelerators.
type Devices struct {
	// GPUModel is the device name; different models are joined with " + "
	// in device order.
	GPUModel string
	GPUCount int
	Driver   string
	CUDA     string // CUDA driver version, e.g. "12.4"; "" when unknown
}

// modelOf joins the distinct device names in order.
func modelOf(names []string) string {
	var seen []string
	for _, n := range names {
		if n != "" && !slices.Contains(seen, n) {
			seen = append(seen, n)
		}
	}
	return strings.Join(seen, " + ")
}

// samplerLoop runs a Sampler on a ticker and on demand.
type samplerLoop struct {
	s        Sampler
	interval time.Duration
	emit     func([]schemas.Sample)
	mark     chan chan struct{}

	mu     sync.Mutex
	errs   int
	first  error
	rounds int
}

func newSamplerLoop(s Sampler, interval time.Duration, emit func([]schemas.Sample)) *samplerLoop {
	if interval <= 0 {
		interval = time.Second
	}
	return &samplerLoop{s: s, interval: interval, emit: emit, mark: make(chan chan struct{})}
}

// run samples until ctx ends.
func (l *samplerLoop) run(ctx context.Context) {
	t := time.NewTicker(l.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l.take(ctx)
		case ack := <-l.mark:
			l.take(ctx)
			close(ack)
		}
	}
}

// now takes a sample immediately (at window edges, where the energy
// counter must be read) and waits for it; it returns at once when the
// loop has stopped.
func (l *samplerLoop) now(ctx context.Context) {
	ack := make(chan struct{})
	select {
	case l.mark <- ack:
		<-ack
	case <-ctx.Done():
	}
}

func (l *samplerLoop) take(ctx context.Context) {
	ss, err := l.s.Sample(ctx)
	l.mu.Lock()
	l.rounds++
	if err != nil {
		l.errs++
		if l.first == nil {
			l.first = err
		}
	}
	l.mu.Unlock()
	if len(ss) > 0 {
		l.emit(ss)
	}
}

// warnings reports failed sampling rounds.
func (l *samplerLoop) warnings() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.errs == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s sampling failed in %d of %d rounds; first error: %v", l.s.Source(), l.errs, l.rounds, l.first)}
}
