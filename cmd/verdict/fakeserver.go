package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/verdict-llm/verdict/capture/fakeserver"
)

func fakeserverCommand() *cli.Command {
	return &cli.Command{
		Name:  "fakeserver",
		Usage: "serve a fake OpenAI-compatible API with a known token schedule",
		Description: `Serves /v1/completions and /v1/chat/completions (streaming or not) with a
deterministic schedule: the first chunk --ttft (plus a per-request offset
below --ttft-spread) after the request arrives, then one chunk per
--tokens-per-chunk tokens, --token-delay per token. Output length is the
request's max_tokens, else --output-tokens. Chat answers can open with
--reasoning-tokens of reasoning_content.

Faults are injected into a share of requests chosen by a hash of --seed and
the request ID: HTTP errors (--error-rate, --error-status), connection
resets, stalls and malformed events after --fault-after chunks, and JSON
answers to streaming requests (--ignore-stream-rate).

The server records, per request (X-Request-Id), when it planned and when it
wrote each chunk, at GET /fakeserver/traces; verdict capture reads them and
prints its own measurement error. It runs until interrupted.

Examples:
   verdict fakeserver --listen 127.0.0.1:8000
   verdict fakeserver --listen :8000 --ttft 200ms --ttft-spread 50ms --token-delay 20ms \
       --tokens-per-chunk 2 --reasoning-tokens 32
   verdict fakeserver --listen 127.0.0.1:8000 --error-rate 0.05 --reset-rate 0.02 --stall-rate 0.01`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:8000", Usage: "`ADDR` to listen on"},
			&cli.DurationFlag{Name: "ttft", Value: 50 * time.Millisecond, Usage: "time to the first chunk"},
			&cli.DurationFlag{Name: "ttft-spread", Usage: "add a per-request offset in [0, SPREAD) to the TTFT"},
			&cli.DurationFlag{Name: "token-delay", Value: 10 * time.Millisecond, Usage: "time per token after the first chunk"},
			&cli.IntFlag{Name: "tokens-per-chunk", Value: 1, Usage: "tokens per streamed chunk"},
			&cli.IntFlag{Name: "output-tokens", Value: 16, Usage: "output length of requests without max_tokens"},
			&cli.IntFlag{Name: "reasoning-tokens", Usage: "reasoning tokens opening each chat answer"},
			&cli.Float64Flag{Name: "error-rate", Usage: "share of requests answered with --error-status"},
			&cli.IntFlag{Name: "error-status", Value: 500, Usage: "HTTP status of injected errors"},
			&cli.Float64Flag{Name: "reset-rate", Usage: "share of streams reset after --fault-after chunks"},
			&cli.Float64Flag{Name: "stall-rate", Usage: "share of streams that stop sending after --fault-after chunks"},
			&cli.Float64Flag{Name: "malformed-rate", Usage: "share of streams with an invalid JSON event after --fault-after chunks"},
			&cli.Float64Flag{Name: "ignore-stream-rate", Usage: "share of streaming requests answered with one JSON body"},
			&cli.IntFlag{Name: "fault-after", Value: 1, Usage: "chunks written before a mid-stream fault"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed of the TTFT offsets and fault choices"},
			&cli.StringFlag{Name: "api-key-file", Usage: "require the API key in `FILE` (default: $" + apiKeyEnv + " when set)", TakesFile: true},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() != 0 {
				return usage("fakeserver takes no arguments")
			}
			cfg := fakeserver.Config{TTFT: cmd.Duration("ttft"), TTFTSpread: cmd.Duration("ttft-spread"), TokenDelay: cmd.Duration("token-delay"),
				TokensPerChunk: cmd.Int("tokens-per-chunk"), OutputTokens: cmd.Int("output-tokens"), ReasoningTokens: cmd.Int("reasoning-tokens"),
				ErrorRate: cmd.Float64("error-rate"), ErrorStatus: cmd.Int("error-status"), ResetRate: cmd.Float64("reset-rate"),
				StallRate: cmd.Float64("stall-rate"), MalformedRate: cmd.Float64("malformed-rate"), IgnoreStreamRate: cmd.Float64("ignore-stream-rate"),
				FaultAfter: cmd.Int("fault-after"), Seed: cmd.Uint64("seed")}
			key, err := apiKey(cmd.String("api-key-file"))
			if err != nil {
				return err
			}
			cfg.APIKey = key
			if err := cfg.Validate(); err != nil {
				return usage("%v", strings.TrimPrefix(err.Error(), "fakeserver: "))
			}
			return serveFake(ctx, cmd.String("listen"), cfg, cmd.Root().Writer)
		},
	}
}

// serveFake serves until ctx ends, then shuts down (streams in flight are
// cut after a second).
func serveFake(ctx context.Context, addr string, cfg fakeserver.Config, w io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return usage("--listen: %v", err)
	}
	srv := &http.Server{Handler: fakeserver.New(cfg), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(w, "fakeserver listening on http://%s (POST /v1/completions, /v1/chat/completions; GET /fakeserver/traces)\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	srv.Close()
	return nil
}
