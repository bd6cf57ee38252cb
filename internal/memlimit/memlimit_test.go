package memlimit

import (
	"math"
	"runtime/debug"
	"testing"
)

func current() int64 { return debug.SetMemoryLimit(-1) }

func TestHold(t *testing.T) {
	defer debug.SetMemoryLimit(current())
	defer func() { mu.Lock(); managed, base, held = false, 0, 0; mu.Unlock() }()

	// Unmanaged: the process's limit is left alone.
	debug.SetMemoryLimit(math.MaxInt64)
	r := Hold(1 << 20)
	if got := current(); got != math.MaxInt64 {
		t.Fatalf("unmanaged Hold changed the limit to %d", got)
	}
	r()

	const mib = 1 << 20
	Manage(100 * mib)
	if got := current(); got != 100*mib {
		t.Fatalf("Manage: limit %d", got)
	}
	a := Hold(30 * mib)
	b := Hold(20 * mib)
	if got := current(); got != 150*mib {
		t.Fatalf("two holds: limit %d MiB, want 150", got/mib)
	}
	a()
	a() // a second release does nothing
	if got := current(); got != 120*mib {
		t.Fatalf("after one release (twice): limit %d MiB, want 120", got/mib)
	}
	Hold(0)()
	Hold(-5)()
	b()
	if got, ok := Limit(); got != 100*mib || !ok || current() != 100*mib {
		t.Fatalf("all released: Limit %d, %v, runtime %d", got, ok, current())
	}
}
