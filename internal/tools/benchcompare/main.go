// Command benchcompare runs verdict and its competitors on the same
// generated inputs, in the same rounds, and prints the figures as a
// Markdown table (the README's performance table is its output):
//
//	make bench-compare                 # 1,000,000 records, 3 rounds
//	make bench-compare BENCH_N=100000  # a quick run
//
// Each round runs every job once, verdict first and then its competitor
// (DuckDB through interop/cmd/duckpct, openpyxl's write-only mode), so
// that both see the same machine load; the table gives the minimum and
// median over the rounds, the peak resident memory of each process
// (getrusage) and the ratio of the medians. The load average is read
// before and after, since the development machine is shared.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/internal/gen"
)

// config is the command line.
type config struct {
	n, rounds                  int
	dir, verdict, duck, xlsxT  string
	python, only               string
	openpyxlRows, aiperfChunks int
}

func main() {
	var c config
	flag.IntVar(&c.n, "n", 1_000_000, "requests (records) per generated input")
	flag.IntVar(&c.rounds, "rounds", 3, "rounds")
	flag.StringVar(&c.dir, "dir", filepath.Join(os.TempDir(), "verdict-bench-compare"), "directory for inputs and outputs (inputs are kept)")
	flag.StringVar(&c.verdict, "verdict", "bin/verdict", "verdict binary")
	flag.StringVar(&c.duck, "duckdb", "bin/duckpct", "interop/cmd/duckpct binary (empty: skip DuckDB)")
	flag.StringVar(&c.xlsxT, "xlsx-test", "bin/xlsx.test", "test binary of render/xlsx (go test -c), for the Requests sheet")
	flag.StringVar(&c.python, "python", "", "python with openpyxl (default: /usr/bin/python3 or python3, whichever imports openpyxl)")
	flag.IntVar(&c.aiperfChunks, "aiperf-chunks", 8, "chunks per AIPerf record")
	flag.StringVar(&c.only, "only", "", "comma-separated job keys to run (aiperf,aiperf-p99,vllm,vllm-p99,stats,report,sheet; default all)")
	flag.Parse()
	if err := run(c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchcompare:", err)
		os.Exit(1)
	}
}

// A cmdSpec is one process of a job.
type cmdSpec struct {
	argv []string
	env  []string // added to the environment
}

// A job is one row of the table: verdict's commands, timed together per
// round, and its competitor's (none for verdict-only rows).
type job struct {
	key, name, input string
	verdict          []cmdSpec
	rivalName        string
	rival            []cmdSpec
	v, r             samples
}

// samples are one side's figures over the rounds.
type samples struct {
	wall []float64 // seconds per round
	rss  []int64   // peak resident bytes per round (max over the round's processes)
}

func run(c config, w io.Writer) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	if c.python == "" {
		c.python = findOpenpyxl()
	}
	in, err := inputs(c)
	if err != nil {
		return err
	}
	jobs := plan(c, in)
	// stats and report read the bundles, which -only may leave unwritten
	for src, b := range map[string]string{in.aiperf: filepath.Join(c.dir, "aiperf.bundle"), in.vllm: filepath.Join(c.dir, "vllm.bundle")} {
		if _, err := os.Stat(b); err != nil {
			var s samples
			if err := s.measure([]cmdSpec{{argv: []string{c.verdict, "ingest", "-o", b, src}}}); err != nil {
				return err
			}
		}
	}
	load0 := loadavg()
	start := time.Now().UTC()
	for round := range c.rounds {
		for _, j := range jobs {
			fmt.Fprintf(os.Stderr, "round %d/%d: %s\n", round+1, c.rounds, j.key)
			if err := j.v.measure(j.verdict); err != nil {
				return fmt.Errorf("%s (verdict): %w", j.key, err)
			}
			if len(j.rival) > 0 {
				if err := j.r.measure(j.rival); err != nil {
					return fmt.Errorf("%s (%s): %w", j.key, j.rivalName, err)
				}
			}
		}
	}
	print(w, c, jobs, start, load0, loadavg())
	return nil
}

// measure runs the commands one after the other and records their summed
// wall time and the largest peak RSS among them.
func (s *samples) measure(cmds []cmdSpec) error {
	var wall float64
	var rss int64
	for _, cs := range cmds {
		cmd := exec.Command(cs.argv[0], cs.argv[1:]...)
		cmd.Env = append(os.Environ(), cs.env...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %w: %s", strings.Join(cs.argv, " "), err, lastLines(stderr.String()))
		}
		wall += time.Since(t0).Seconds()
		rss = max(rss, peakRSS(cmd.ProcessState))
	}
	s.wall = append(s.wall, wall)
	s.rss = append(s.rss, rss)
	return nil
}

func lastLines(s string) string {
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return strings.TrimSpace(s)
}

// files are the generated inputs.
type files struct {
	aiperf, vllm string
}

// inputs writes the generated inputs, unless a previous run left them.
func inputs(c config) (files, error) {
	f := files{
		aiperf: filepath.Join(c.dir, fmt.Sprintf("aiperf-%d.jsonl", c.n)),
		vllm:   filepath.Join(c.dir, fmt.Sprintf("vllm-%d.json", c.n)),
	}
	write := func(path string, fn func(io.Writer) error) error {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		fmt.Fprintf(os.Stderr, "generating %s\n", path)
		tmp := path + ".tmp"
		out, err := os.Create(tmp)
		if err != nil {
			return err
		}
		if err := fn(out); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
		return os.Rename(tmp, path)
	}
	err := write(f.aiperf, func(w io.Writer) error {
		return gen.AIPerfRecords(w, gen.AIPerfOptions{Records: c.n, Chunks: c.aiperfChunks, Seed: 1})
	})
	if err == nil {
		err = write(f.vllm, func(w io.Writer) error {
			return gen.VLLMDetailed(w, gen.VLLMOptions{Requests: c.n, Chunks: 16, Seed: 1, FailEvery: 100})
		})
	}
	return f, err
}

// The DuckDB side. AIPerf's COPY keeps the columns verdict stores from a
// record (its request table's fields); vLLM's unnests the per-request
// arrays verdict reads.
const (
	duckAIPerfCopy = `COPY (SELECT metadata.session_num AS session_num, metadata.x_request_id AS x_request_id,
 metadata.request_start_ns AS request_start_ns, metadata.request_end_ns AS request_end_ns,
 metadata.was_cancelled AS was_cancelled, metrics.time_to_first_token.value AS ttft_ms,
 metrics.time_to_first_output_token.value AS ttfo_ms, metrics.request_latency.value AS request_latency_ms,
 metrics.inter_token_latency.value AS itl_ms, metrics.inter_chunk_latency.value AS inter_chunk_latency_ms,
 metrics.output_sequence_length.value AS osl, metrics.output_token_count.value AS output_tokens,
 metrics.input_sequence_length.value AS isl, error.code AS error_code, error.type AS error_type
 FROM read_json('%s', format = 'newline_delimited')) TO '%s' (FORMAT parquet)`
	duckAIPerfP99 = `SELECT quantile_cont(metrics.time_to_first_token.value, 0.99)
 FROM read_json('%s', format = 'newline_delimited') WHERE NOT metadata.was_cancelled`
	duckVLLMCopy = `COPY (SELECT unnest(input_lens) AS input_len, unnest(output_lens) AS output_len,
 unnest(ttfts) AS ttft, unnest(itls) AS itls, unnest(start_times) AS start_time, unnest(errors) AS error
 FROM read_json('%s', maximum_object_size = 2000000000)) TO '%s' (FORMAT parquet)`
	duckVLLMP99 = `SELECT quantile_cont(t, 0.99) FROM (SELECT unnest(ttfts) AS t, unnest(errors) AS e
 FROM read_json('%s', maximum_object_size = 2000000000)) WHERE e = ''`
)

// plan lists the jobs in the order of the table.
func plan(c config, in files) []*job {
	out := func(name string) string { return filepath.Join(c.dir, name) }
	v := func(args ...string) cmdSpec { return cmdSpec{argv: append([]string{c.verdict}, args...)} }
	duck := func(q string, args ...any) []cmdSpec {
		if c.duck == "" {
			return nil
		}
		return []cmdSpec{{argv: []string{c.duck, fmt.Sprintf(q, args...)}}}
	}
	aB, vB := out("aiperf.bundle"), out("vllm.bundle")
	p99 := []string{"stats", "--ci", "0", "--metric", "ttft", "--percentiles", "99"}
	n := thousands(c.n)
	aIn := fmt.Sprintf("AIPerf JSONL, %s records x %d chunks (%s)", n, c.aiperfChunks, size(in.aiperf))
	vIn := fmt.Sprintf("vLLM `--save-detailed`, %s requests x 16 chunks (%s)", n, size(in.vllm))
	jobs := []*job{
		{key: "aiperf", name: "ingest", input: aIn, verdict: []cmdSpec{v("ingest", "--force", "-o", aB, in.aiperf)},
			rivalName: "DuckDB COPY of the same 15 columns to Parquet", rival: duck(duckAIPerfCopy, in.aiperf, out("aiperf-duck.parquet"))},
		{key: "aiperf-p99", name: "p99 TTFT straight from the file (ingest + stats)", input: "same file",
			verdict:   []cmdSpec{v("ingest", "--force", "-o", aB, in.aiperf), v(append(p99, aB)...)},
			rivalName: "DuckDB `read_json` + `quantile_cont`", rival: duck(duckAIPerfP99, in.aiperf)},
		{key: "vllm", name: "ingest", input: vIn, verdict: []cmdSpec{v("ingest", "--force", "-o", vB, in.vllm)},
			rivalName: "DuckDB COPY of the per-request arrays to Parquet", rival: duck(duckVLLMCopy, in.vllm, out("vllm-duck.parquet"))},
		{key: "vllm-p99", name: "p99 TTFT straight from the file (ingest + stats)", input: "same file",
			verdict:   []cmdSpec{v("ingest", "--force", "-o", vB, in.vllm), v(append(p99, vB)...)},
			rivalName: "DuckDB `read_json` + `unnest` + `quantile_cont`", rival: duck(duckVLLMP99, in.vllm)},
		{key: "stats", name: "`stats` (default: 95% BCa intervals, 10,000 resamples)", input: "the AIPerf bundle", verdict: []cmdSpec{v("stats", aB)}},
		{key: "stats", name: "`stats` (default: 95% BCa intervals, 10,000 resamples)", input: "the vLLM bundle", verdict: []cmdSpec{v("stats", vB)}},
		{key: "report", name: "`report --xlsx --html --plots`", input: "the AIPerf bundle", verdict: []cmdSpec{v("report", "--force",
			"--xlsx", out("report.xlsx"), "--html", out("report.html"), "--plots", out("plots"), aB)}},
	}
	if c.xlsxT != "" {
		j := &job{key: "sheet", name: "the Requests sheet of a workbook", input: fmt.Sprintf("%s rows x 18 columns", n),
			verdict: []cmdSpec{{argv: []string{c.xlsxT, "-test.run", "^$", "-test.bench", "^BenchmarkRequestsSheet$",
				"-test.benchtime", "1x", "-requests-rows", fmt.Sprint(c.n)},
				// the CLI's soft memory limit (cmd/verdict), which a test binary lacks
				env: []string{"GOMEMLIMIT=192MiB"}}}}
		if c.python != "" {
			script, _ := filepath.Abs("render/xlsx/testdata/openpyxl_requests.py")
			j.rivalName = "openpyxl write-only (" + openpyxlVersion(c.python) + ")"
			j.rival = []cmdSpec{{argv: []string{c.python, script, fmt.Sprint(c.n), out("openpyxl.xlsx")}}}
		} else {
			fmt.Fprintln(os.Stderr, "benchcompare: no python with openpyxl (apt-get install python3-openpyxl); the Requests sheet runs without it")
		}
		jobs = append(jobs, j)
	}
	if c.only != "" {
		keep := strings.Split(c.only, ",")
		jobs = slices.DeleteFunc(jobs, func(j *job) bool { return !slices.Contains(keep, j.key) })
	}
	return jobs
}

// findOpenpyxl returns a python that imports openpyxl, or "".
func findOpenpyxl() string {
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(p, "-c", "import openpyxl").Run() == nil {
			return p
		}
	}
	return ""
}

func openpyxlVersion(python string) string {
	b, err := exec.Command(python, "-c", "import openpyxl; print(openpyxl.__version__)").Output()
	if err != nil {
		return "openpyxl"
	}
	return "openpyxl " + strings.TrimSpace(string(b))
}

func duckVersion(duck string) string {
	if duck == "" {
		return ""
	}
	b, err := exec.Command(duck, "SELECT version()").Output()
	if err != nil {
		return "DuckDB"
	}
	return "DuckDB " + strings.TrimSpace(string(b))
}

// print writes the table and the machine it ran on.
func print(w io.Writer, c config, jobs []*job, start time.Time, load0, load1 string) {
	fmt.Fprintf(w, "Measured by `make bench-compare` (%s) on %s, %d cores, %s, %s; %s; load average before %s, after %s.\n",
		fmt.Sprintf("BENCH_N=%d, %d rounds", c.n, c.rounds), cpuModel(), runtime.NumCPU(), start.Format("2006-01-02 15:04 UTC"),
		runtime.Version(), duckVersion(c.duck), load0, load1)
	fmt.Fprintln(w, "Times are the minimum / median of the rounds, memory the largest peak RSS:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| job | input | verdict | competitor | competitor's figures | verdict's time / competitor's (medians) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, j := range jobs {
		rival, rf, ratio := "", "", ""
		if len(j.r.wall) > 0 {
			rival, rf = j.rivalName, j.r.String()
			ratio = fmt.Sprintf("%.2fx", median(j.v.wall)/median(j.r.wall))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", j.name, j.input, j.v.String(), rival, rf, ratio)
	}
}

func (s samples) String() string {
	return fmt.Sprintf("%.2f / %.2f s, %s", slices.Min(s.wall), median(s.wall), mib(slices.Max(s.rss)))
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func mib(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

func size(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "?"
	}
	return fmt.Sprintf("%.0f MB", float64(fi.Size())/1e6)
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
