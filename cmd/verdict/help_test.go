package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/verdict-llm/verdict/capture/fakeserver"
	"github.com/verdict-llm/verdict/internal/gen"
)

// TestHelpExamples runs every example of `verdict --help` and of each
// command's --help, and every verdict command of README.md's shell blocks,
// the way benchstat's doc test runs the examples of its package comment.
// Each runs in a fresh copy of a sandbox holding the demo data under the
// names the examples use (bundles ingested from testdata/demo, the demo
// quotes, small billing files) and must exit 0. A pipe into jq is run when
// jq is installed. Examples that need a real endpoint or GPU host (their
// flags are still parsed and checked) or another program are skipped with
// the reason, which go test -v lists.
func TestHelpExamples(t *testing.T) {
	groups := append(helpExamples(newApp(io.Discard, io.Discard), nil), readmeExamples(t)...)
	found := 0
	for _, g := range groups {
		found += len(g.lines)
	}
	if found < 50 {
		t.Errorf("only %d examples found; the example parser may have missed some", found)
	}
	seen := map[string]string{}
	template := buildSandbox(t)
	for _, g := range groups {
		t.Run(g.source, func(t *testing.T) {
			sess := &session{t: t, template: template, subst: map[string]string{}}
			defer sess.stop()
			for i, line := range g.lines {
				t.Run(fmt.Sprintf("%02d", i+1), func(t *testing.T) {
					t.Log(line)
					if first, dup := seen[line]; dup {
						t.Skipf("the same command as %s", first)
					}
					seen[line] = g.source
					sess.run(t, line)
				})
			}
		})
	}
}

// skipWhen lists what makes an example unrunnable here; those with short
// set are skipped only with -short.
var skipWhen = []struct {
	re     *regexp.Regexp
	short  bool
	reason string
}{
	{regexp.MustCompile(`https?://(gpu-1|host|10\.0\.1\.20)[:/]`), false, "needs a real inference endpoint (and the GPU host's dcgm-exporter)"},
	{regexp.MustCompile(`^verdict capture --endpoint http://127\.0\.0\.1:8000\b`), true, "-short: capturing from the reference server takes about 20 s"},
}

// An exampleGroup is the examples of one help text or one README block, run
// in order: a background server started by one serves the next.
type exampleGroup struct {
	source string
	lines  []string
}

// helpExamples collects the Examples section of every command's
// description, the root's first.
func helpExamples(cmd *cli.Command, path []string) []exampleGroup {
	path = append(path, cmd.Name)
	name := strings.Join(path, " ") + " --help"
	_, ex, found := strings.Cut(cmd.Description, "\nExamples:\n")
	g := exampleGroup{source: name}
	if found {
		g.lines = joinContinued(strings.Split(ex, "\n"))
	}
	out := []exampleGroup{g}
	for _, sub := range cmd.Commands {
		out = append(out, helpExamples(sub, path)...)
	}
	return out
}

// readmeExamples collects the verdict commands of README.md's sh blocks,
// one group per block.
func readmeExamples(t *testing.T) []exampleGroup {
	f, err := os.Open("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []exampleGroup
	var block []string
	start, in := 0, false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case !in && line == "```sh":
			in, start, block = true, n, nil
		case in && line == "```":
			in = false
			var cmds []string
			for _, l := range joinContinued(block) {
				if isVerdict(l) {
					cmds = append(cmds, l)
				}
			}
			if len(cmds) > 0 {
				out = append(out, exampleGroup{source: fmt.Sprintf("README.md:%d", start), lines: cmds})
			}
		case in:
			block = append(block, line)
		}
	}
	return out
}

// joinContinued trims lines, joins those ending in a backslash with the
// next, and drops empty ones.
func joinContinued(lines []string) []string {
	var out []string
	cur := ""
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasSuffix(l, `\`) {
			cur += strings.TrimSuffix(l, `\`)
			continue
		}
		if l = strings.TrimSpace(cur + l); l != "" {
			out = append(out, strings.Join(strings.Fields(l), " "))
		}
		cur = ""
	}
	return out
}

// isVerdict reports whether a shell line runs verdict (after any VAR=value
// assignments).
func isVerdict(line string) bool {
	for _, w := range strings.Fields(line) {
		if !strings.Contains(w, "=") || strings.HasPrefix(w, "-") {
			return w == "verdict"
		}
	}
	return false
}

// A pipeline is one parsed example line.
type pipeline struct {
	env        []string   // VAR=value before the command
	stages     [][]string // commands joined by |
	redirect   string     // > or >> target of the last stage
	background bool       // ends in &
}

var envAssign = regexp.MustCompile(`^[A-Z_]+=`)

// parseShell splits a line the way a POSIX shell would for these examples:
// quotes, backslash escapes, $VAR and ${VAR}, globs in unquoted words, |,
// >, >>, a trailing & and # comments.
func parseShell(line string, getenv func(string) string) (pipeline, error) {
	var p pipeline
	var stage []string
	var word strings.Builder
	inWord, glob, redirectNext := false, false, false
	flush := func() {
		if !inWord {
			return
		}
		w := word.String()
		word.Reset()
		inWord = false
		words := []string{w}
		if glob {
			if m, _ := filepath.Glob(w); len(m) > 0 {
				words = m
			}
		}
		glob = false
		switch {
		case redirectNext:
			p.redirect, redirectNext = w, false
		case len(stage) == 0 && len(p.stages) == 0 && envAssign.MatchString(w):
			p.env = append(p.env, w)
		default:
			stage = append(stage, words...)
		}
	}
	expand := func(s string, i int) (string, int) {
		if i+1 < len(s) && s[i+1] == '{' {
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return "$", i + 1
			}
			return getenv(s[i+2 : i+end]), i + end + 1
		}
		j := i + 1
		for j < len(s) && (s[j] == '_' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9') {
			j++
		}
		if j == i+1 {
			return "$", j
		}
		return getenv(s[i+1 : j]), j
	}
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
			i++
		case c == '#' && !inWord:
			i = len(line)
		case c == '|':
			flush()
			p.stages, stage = append(p.stages, stage), nil
			i++
		case c == '>':
			flush()
			redirectNext = true
			if i+1 < len(line) && line[i+1] == '>' {
				i++
			}
			i++
		case c == '&':
			flush()
			p.background = true
			i++
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return p, fmt.Errorf("unterminated ' in %q", line)
			}
			word.WriteString(line[i+1 : i+1+end])
			inWord, i = true, i+end+2
		case c == '"':
			inWord = true
			for i++; i < len(line) && line[i] != '"'; {
				switch {
				case line[i] == '\\' && i+1 < len(line) && strings.IndexByte(`"\$`, line[i+1]) >= 0:
					word.WriteByte(line[i+1])
					i += 2
				case line[i] == '$':
					var v string
					v, i = expand(line, i)
					word.WriteString(v)
				default:
					word.WriteByte(line[i])
					i++
				}
			}
			if i >= len(line) {
				return p, fmt.Errorf("unterminated \" in %q", line)
			}
			i++
		case c == '\\' && i+1 < len(line):
			word.WriteByte(line[i+1])
			inWord, i = true, i+2
		case c == '$':
			var v string
			v, i = expand(line, i)
			word.WriteString(v)
			inWord = true
		default:
			glob = glob || c == '*' || c == '?'
			word.WriteByte(c)
			inWord = true
			i++
		}
	}
	flush()
	if len(stage) > 0 {
		p.stages = append(p.stages, stage)
	}
	if redirectNext || len(p.stages) == 0 {
		return p, fmt.Errorf("incomplete command %q", line)
	}
	return p, nil
}

// A session runs the examples of one group.
type session struct {
	t        *testing.T
	template string
	subst    map[string]string // addresses of servers started in the background
	stops    []func()
}

func (s *session) stop() {
	for _, f := range s.stops {
		f()
	}
}

// run runs one example line in a fresh copy of the sandbox.
func (s *session) run(t *testing.T, line string) {
	for _, sk := range skipWhen {
		if sk.short && testing.Short() && sk.re.MatchString(line) {
			t.Skip(sk.reason)
		}
		if !sk.short && sk.re.MatchString(line) {
			p, err := parseShell(line, os.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkFlags(p.stages[0]); err != nil {
				t.Fatalf("flags: %v", err)
			}
			t.Skip(sk.reason + "; its flags were checked, it was not run")
		}
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(s.template)); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("GITHUB_STEP_SUMMARY", "step-summary.md")
	p, err := parseShell(line, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if p.stages[0][0] != "verdict" {
		t.Skipf("runs %s, not verdict (interop/ checks verdict's output with DuckDB)", p.stages[0][0])
	}
	for _, st := range p.stages[1:] {
		if st[0] != "jq" {
			t.Skipf("pipes into %s", st[0])
		}
	}
	for _, e := range p.env {
		k, v, _ := strings.Cut(e, "=")
		t.Setenv(k, v)
	}
	args := p.stages[0]
	for i, a := range args {
		for from, to := range s.subst {
			args[i] = strings.ReplaceAll(args[i], from, to)
		}
		// An output the sandbox already holds is the example's to create.
		if (a == "-o" || a == "--output") && i+1 < len(args) {
			os.RemoveAll(args[i+1])
		}
	}
	if len(args) > 1 && args[1] == "fakeserver" {
		s.serve(t, args, p.background)
		return
	}
	code, stdout, stderr := s.verdict(args)
	if code != 0 {
		t.Fatalf("exit %d, want 0\nstderr: %s", code, stderr)
	}
	for _, st := range p.stages[1:] {
		stdout = pipeTo(t, st, stdout)
	}
	if p.redirect != "" {
		f, err := os.OpenFile(p.redirect, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(stdout)
		f.Close()
	}
}

// checkFlags parses a verdict command line as verdict would, required
// flags included, without running the command's action.
func checkFlags(args []string) error {
	app := newApp(io.Discard, io.Discard)
	usageErrorsExit2(app)
	var find func(c *cli.Command)
	find = func(c *cli.Command) {
		c.Action = func(context.Context, *cli.Command) error { return nil }
		for _, sub := range c.Commands {
			find(sub)
		}
	}
	find(app)
	return app.Run(context.Background(), args)
}

// verdict runs the command in-process.
func (s *session) verdict(args []string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// pipeTo runs a pipeline stage (jq) over input, when the program is
// installed, and fails the test when it fails.
func pipeTo(t *testing.T, stage []string, input string) string {
	if _, err := exec.LookPath(stage[0]); err != nil {
		t.Logf("%s is not installed: its stage was not run", stage[0])
		return input
	}
	cmd := exec.Command(stage[0], stage[1:]...)
	cmd.Stdin = strings.NewReader(input)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %v: %s", stage, err, errb.String())
	}
	return out.String()
}

// serve runs a fakeserver example on a free port: in the background, it
// keeps serving the group's later examples (which reach it at its real
// address); otherwise it is stopped once it listens, as a user would stop
// it.
func (s *session) serve(t *testing.T, args []string, background bool) {
	orig := ""
	for i, a := range args {
		if a == "--listen" && i+1 < len(args) {
			host, _, _ := strings.Cut(args[i+1], ":")
			if host == "" {
				host = "127.0.0.1"
			}
			orig = host + strings.TrimPrefix(args[i+1], host)
			args[i+1] = host + ":0"
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	var errb syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, out, &errb) }()
	re := regexp.MustCompile(`listening on http://(\S+)`)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			if background && orig != "" {
				s.subst[orig] = m[1]
			}
			break
		}
		select {
		case code := <-done:
			cancel()
			t.Fatalf("fakeserver exited %d before listening: %s", code, errb.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatal("fakeserver did not listen within 10 s")
		}
	}
	stop := func() {
		cancel()
		if code := <-done; code != 0 {
			s.t.Errorf("fakeserver %v exited %d: %s", args, code, errb.String())
		}
	}
	if background {
		s.stops = append(s.stops, stop)
		return
	}
	stop()
}

// buildSandbox writes, into a temporary directory, every file the examples
// name: the demo results and inventories under their example names,
// bundles ingested from them (with inventories, labelled platform=a and
// platform=b), the demo quotes, billing files, a validation policy, a
// dataset exported from the demo bundles and a bundle captured from the
// reference server.
func buildSandbox(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	demoDir, err := filepath.Abs(demo)
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	files := map[string][]byte{
		"results/h100-vllm.json": read(filepath.Join(demoDir, "platform-a.json")),
		"vllm-10qps.json":        read(filepath.Join(demoDir, "platform-a.json")),
		"vllm-inf.json":          read(filepath.Join(demoDir, "platform-b.json")),
		"results.txt":            read(filepath.Join(demoDir, "platform-a.json")),
		"h100.yaml":              read(filepath.Join(demoDir, "sut-a.yaml")),
		"sut.yaml":               read(filepath.Join(demoDir, "sut-a.yaml")),
		"focus.csv":              read("testdata/focus-hourly.csv"),
		"focus-2026-11.csv":      read("testdata/focus-hourly.csv"),
		"focus-2025-06.csv":      read("testdata/focus-hourly.csv"),
		"cur-2026-11.csv":        read("../../costing/testdata/aws_cur_legacy_small.csv"),
		"ci-policy.yaml":         []byte("thresholds: {max_failed_fraction: 0.01}\nallow_incomplete: false\n"),
	}
	for _, q := range []string{"quote-a.yaml:a", "h100-quote.yaml:a", "q.yaml:a", "a.yaml:a", "quote-b.yaml:b", "l40s-quote.yaml:b", "b.yaml:b"} {
		name, p, _ := strings.Cut(q, ":")
		files[name] = read(filepath.Join(demoDir, "quote-"+p+".yaml"))
	}
	// The capacity demo's sweep, under the paths the README uses.
	capacity, _ := filepath.Glob("../../testdata/capacity/*/*.json")
	yamls, _ := filepath.Glob("../../testdata/capacity/*.yaml")
	for _, f := range append(capacity, yamls...) {
		files[strings.TrimPrefix(f, "../../")] = read(f)
	}
	// One bundle of both platforms, told apart by a --metadata key as
	// `vllm bench serve --metadata platform=a` writes it.
	for _, p := range []string{"a", "b"} {
		files["meta/platform-"+p+".json"] = bytes.Replace(read(filepath.Join(demoDir, "platform-"+p+".json")), []byte("{"), []byte(`{"platform": "`+p+`", `), 1)
	}
	for name, b := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cli := func(args ...string) {
		t.Helper()
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Fatalf("sandbox: verdict %v: exit %d: %s", args, code, errs)
		}
	}
	at := func(name string) string { return filepath.Join(dir, name) }
	for p, names := range map[string][]string{
		"a": {"a.bundle", "old.bundle", "h100.bundle", "runs.bundle", "out/platform-a.bundle"},
		"b": {"b.bundle", "new.bundle", "l40s.bundle", "mi300x.bundle", "out/platform-b.bundle"},
	} {
		for _, name := range names {
			cli("ingest", "--sut", filepath.Join(demoDir, "sut-"+p+".yaml"), "--label", "platform="+p, "-o", at(name), filepath.Join(demoDir, "platform-"+p+".json"))
		}
	}
	cli("ingest", "--sut", filepath.Join(demoDir, "sut-a.yaml"), "-o", at("all.bundle"), at("meta/platform-a.json"), at("meta/platform-b.json"))
	for _, p := range []string{"h100", "l40s"} {
		sweep, _ := filepath.Glob(at("testdata/capacity/" + p + "/*.json"))
		cli(append([]string{"ingest", "--sut", at("testdata/capacity/sut-" + p + ".yaml"), "-o", at(p + "-sweep.bundle")}, sweep...)...)
	}
	cli("export", "--dataset", at("history"), at("a.bundle"), at("b.bundle"))
	// A nightly history for verdict trend: 12 runs, no change.
	if err := gen.History(context.Background(), at("history.dataset"), dir, gen.HistoryRuns("nightly", 0, slices.Repeat([]float64{1}, 12), 0.01, 1), 0); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(fakeserver.New(fakeserver.Config{TTFT: time.Millisecond, TokenDelay: time.Millisecond, OutputTokens: 8}))
	defer srv.Close()
	cli("capture", "--endpoint", srv.URL+"/v1/completions", "--model", "fake", "--synthetic", "16/8",
		"--scenario", "concurrency", "--max-concurrency", "4", "--num-prompts", "20", "--sut", filepath.Join(demoDir, "sut-a.yaml"), "-o", at("capture.bundle"))
	return dir
}

func TestParseShell(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"r1.json", "r2.json"} {
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	t.Chdir(dir)
	env := func(k string) string { return map[string]string{"OUT": "sum.md"}[k] }
	for _, c := range []struct {
		line string
		want pipeline
		err  bool
	}{
		{line: `verdict show a.bundle   # a comment`, want: pipeline{stages: [][]string{{"verdict", "show", "a.bundle"}}}},
		{line: `verdict ingest -o x.bundle r*.json`, want: pipeline{stages: [][]string{{"verdict", "ingest", "-o", "x.bundle", "r1.json", "r2.json"}}}},
		{line: `verdict ingest 'r*.json' nomatch*.json`, want: pipeline{stages: [][]string{{"verdict", "ingest", "r*.json", "nomatch*.json"}}}},
		{line: `verdict rules --format json | jq '.[] | select(.severity == "error") | .id'`,
			want: pipeline{stages: [][]string{{"verdict", "rules", "--format", "json"}, {"jq", `.[] | select(.severity == "error") | .id`}}}},
		{line: `verdict show --format markdown a.bundle >> "$OUT"`, want: pipeline{stages: [][]string{{"verdict", "show", "--format", "markdown", "a.bundle"}}, redirect: "sum.md"}},
		{line: `verdict schema > ${OUT}`, want: pipeline{stages: [][]string{{"verdict", "schema"}}, redirect: "sum.md"}},
		{line: `KEY=... verdict capture --header "A: \"b\"" x\ y &`,
			want: pipeline{env: []string{"KEY=..."}, stages: [][]string{{"verdict", "capture", "--header", `A: "b"`, "x y"}}, background: true}},
		{line: `verdict show 'a.bundle`, err: true},
		{line: `verdict show >`, err: true},
	} {
		got, err := parseShell(c.line, env)
		if (err != nil) != c.err {
			t.Errorf("%s: error %v", c.line, err)
			continue
		}
		if !c.err && !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %#v\nwant %#v", c.line, got, c.want)
		}
	}
}
