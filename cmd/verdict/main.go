// Command verdict turns LLM inference benchmark results from different
// tools into one comparable record and says whether runs may be compared.
//
// Run `verdict --help` for the commands; README.md has a walk-through.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // --timezone and inventories' time_zone work without the system's zoneinfo

	"github.com/verdict-llm/verdict/internal/memlimit"
)

// softMemoryLimit caps the Go heap softly. verdict's live data are
// bounded by design (per-request data stream and spill to disk); the limit
// keeps garbage from growing the process past that. Data held on purpose
// (a run's observations while they are resampled) raise it by their size
// for as long as they are held (internal/memlimit). GOMEMLIMIT replaces
// it, and then nothing adjusts the limit.
const softMemoryLimit = 192 << 20

func main() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		memlimit.Manage(softMemoryLimit)
	}
	// SIGTERM is what Docker, Kubernetes and CI runners send: it stops a
	// command as Ctrl-C does (temporary files removed, capture writes its
	// bundle marked incomplete).
	// The context's cause names the signal, for the exit status (130 on
	// Ctrl-C, 143 on SIGTERM). Later signals are ignored while the command
	// finishes cleanly.
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() { cancel(&interrupted{sig: <-sigs}) }()
	code := run(ctx, os.Args, os.Stdout, os.Stderr)
	cancel(nil)
	os.Exit(code)
}
