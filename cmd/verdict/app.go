package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"syscall"

	"github.com/urfave/cli/v3"
)

// Exit codes.
const (
	exitOK    = 0
	exitGate  = 1 // validation or a CI gate failed
	exitInput = 2 // usage or input error
)

// interrupted is the cause of a context a signal cancelled.
type interrupted struct{ sig os.Signal }

func (e *interrupted) Error() string { return "interrupted by " + e.sig.String() }

// exitCode is the shell's convention, 128 + the signal's number: 130 for
// SIGINT (Ctrl-C), 143 for SIGTERM.
func (e *interrupted) exitCode() int {
	if n, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 128 + 2
}

// errGate marks an error that means "the gate failed" (exit 1) rather than
// "bad usage or input" (exit 2).
var errGate = errors.New("gate failed")

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

func verdictVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func newApp(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:    "verdict",
		Usage:   "turn LLM inference benchmark results into one comparable record",
		Version: verdictVersion(),
		Description: `verdict reads the outputs of vllm bench, GenAI-Perf, AIPerf, MLPerf LoadGen,
GuideLLM, LLMPerf, Locust, inference-perf, genai-bench, MLPerf Endpoints and
llm-d Benchmark Reports, maps every metric to an explicit definition
(what is timed from when to when, unit, population, window) and stores
runs, requests and metrics in a bundle of Parquet files. It then tells you
whether two runs may be compared at all.

How it is built: ingest reads each tool's files into the bundle's tables
(package schemas: the metric registry, Arrow tables, bundles, datasets); the
application layer (package analysis) opens bundles and datasets, selects the
observations, pairs runs, validates, computes statistics and costs, and hands
each command one finished model; render formats that model as text, CSV,
JSON, Markdown, JUnit, HTML, a workbook or plots, and never reads a bundle.
Each command below maps its flags to options and makes that one call.

Exit status: 0 ok, 1 a validation or gate failed, 2 a usage or input error,
130 interrupted by Ctrl-C (143 by SIGTERM).

Examples:
   verdict ingest --sut h100.yaml --label platform=h100 -o h100.bundle results/*.json
   verdict show h100.bundle
   verdict validate --compare h100.bundle l40s.bundle
   verdict compare h100.bundle l40s.bundle
   verdict capacity --slo 'ttft:p99<=2s,tpot:p99<=50ms' h100.bundle l40s.bundle
   verdict export --dataset history.dataset h100.bundle
   verdict trend --gate --since v0.11.0 --by label:engine_version history.dataset
   verdict report --quote h100-quote.yaml --quote l40s-quote.yaml --xlsx report.xlsx h100.bundle l40s.bundle
   verdict schema --format markdown`,
		Writer:                stdout,
		ErrWriter:             stderr,
		EnableShellCompletion: true,
		Suggest:               true,
		HideHelpCommand:       true,
		ExitErrHandler:        func(context.Context, *cli.Command, error) {},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 0 {
				return usage("unknown command %q (see verdict --help)", cmd.Args().First())
			}
			return cli.ShowRootCommandHelp(cmd)
		},
		Commands: []*cli.Command{
			ingestCommand(),
			showCommand(),
			schemaCommand(),
			statsCommand(),
			compareCommand(),
			exportCommand(),
			sqlCommand(),
			costCommand(),
			validateCommand(),
			rulesCommand(),
			reportCommand(),
			capacityCommand(),
			trendCommand(),
			captureCommand(), fakeserverCommand(),
		},
	}
}

// usageErrorsExit2 installs OnUsageError on every command; urfave/cli looks
// it up on the failing command only.
func usageErrorsExit2(c *cli.Command) {
	c.OnUsageError = func(_ context.Context, _ *cli.Command, err error, _ bool) error {
		return cli.Exit(err, exitInput)
	}
	for _, sub := range c.Commands {
		usageErrorsExit2(sub)
	}
}

func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errGate):
		return exitGate
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		if ec.ExitCode() == exitGate {
			return exitGate
		}
		return exitInput
	}
	return exitInput
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	usageErrorsExit2(app)
	err := app.Run(ctx, args)
	if err != nil {
		msg := err.Error()
		var ec cli.ExitCoder
		if errors.As(err, &ec) && msg == "" {
			return exitCode(err)
		}
		fmt.Fprintln(stderr, "verdict:", msg)
	}
	var sig *interrupted
	if err != nil && errors.As(context.Cause(ctx), &sig) {
		return sig.exitCode()
	}
	return exitCode(err)
}

// usage returns a usage error (exit 2) for a command.
func usage(format string, args ...any) error {
	return cli.Exit(fmt.Sprintf(format, args...), exitInput)
}

// isTerminal reports whether w is a terminal (for progress bars).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
