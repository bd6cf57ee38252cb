// Command verdict turns LLM inference benchmark results from different
// tools into one comparable record and says whether runs may be compared.
//
// Run `verdict --help` for the commands; README.md has a walk-through.
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args, os.Stdout, os.Stderr))
}
