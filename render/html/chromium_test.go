package html_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/render/html"
	"github.com/verdict-llm/verdict/render/plot"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/validate"
)

// chromiumPath finds Chromium, or skips the test (fails it under
// VERDICT_REQUIRE_CLIENTS=1).
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("VERDICT_REQUIRE_CLIENTS") != "" {
		t.Fatal("Chromium is not installed, and VERDICT_REQUIRE_CLIENTS says it must be")
	}
	t.Skip("Chromium is not installed (apt-get install chromium); .ci/run installs it")
	return ""
}

// A browser is a headless Chromium tab with the network off: every
// request goes to a proxy that is not there (127.0.0.1:9, loopback
// included), the tab emulates being offline, and every request that is
// not the page itself or a data: URL, every failed load, every console
// or browser-log message (a CSP violation is one) and every uncaught
// exception is recorded as a problem.
type browser struct {
	ctx      context.Context
	page     string
	mu       sync.Mutex
	problems []string
}

func newBrowser(t *testing.T, width, height int) *browser {
	t.Helper()
	exe := chromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")), chromedp.WindowSize(width, height),
		chromedp.ProxyServer("127.0.0.1:9"), chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true))
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	b := &browser{}
	bctx, bcancel := chromedp.NewContext(actx, chromedp.WithListener(b.listen))
	t.Cleanup(bcancel)
	b.ctx = bctx
	offline := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		if _, err := cdp.Call(ctx, tg, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
			MatchedNetworkConditions: []*network.Conditions{{Offline: true, DownloadThroughput: -1, UploadThroughput: -1}}}); err != nil {
			return chromedp.Void{}, err
		}
		_, err := cdp.Call(ctx, tg, network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: true, DownloadThroughput: -1, UploadThroughput: -1})
		return chromedp.Void{}, err
	}
	if err := chromedp.Do(bctx, offline, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return b
}

func (b *browser) problem(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, fmt.Sprintf(format, args...))
}

// listen runs in the tab's message loop: it must return fast.
func (b *browser) listen(ev any) {
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		if u := ev.Request.URL; u != b.page && !strings.HasPrefix(u, "data:") {
			b.problem("request to %s", u)
		}
	case *network.EventLoadingFailed:
		b.problem("loading failed (%s): %s %s", ev.Type, ev.ErrorText, ev.BlockedReason)
	case *log.EventEntryAdded:
		b.problem("browser log (%s, %s): %s %s", ev.Entry.Level, ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
	case *runtime.EventConsoleAPICalled:
		b.problem("console.%s", ev.Type)
	case *runtime.EventExceptionThrown:
		b.problem("exception: %s", ev.ExceptionDetails.Text)
	}
}

// load opens a file and waits for it to have loaded (the page's script,
// at the end of the body, runs before the load event).
func (b *browser) load(t *testing.T, path string) {
	t.Helper()
	b.mu.Lock()
	b.page = "file://" + path
	b.mu.Unlock()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(b.page)); err != nil {
		t.Fatalf("load %s: %v (problems so far: %v)", path, err, b.Problems())
	}
	for i := 0; eval[string](t, b, `document.readyState`) != "complete"; i++ {
		if i == 100 {
			t.Fatalf("load %s: the page did not finish loading (problems so far: %v)", path, b.Problems())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A selfCheck is what the test asks the browser about the loaded page:
// how many figures it has, how many rendered with a non-empty box, and
// how many images are broken. (The page itself carries no such hook.)
type selfCheck struct {
	Figures  int `json:"figures"`
	Rendered int `json:"rendered"`
	Broken   int `json:"broken"`
}

func (b *browser) selfCheck(t *testing.T) selfCheck {
	t.Helper()
	return eval[selfCheck](t, b, `(function () {
  var figs = document.querySelectorAll("figure svg"), ok = 0, broken = 0;
  figs.forEach(function (f) { var r = f.getBBox(); if (r.width > 0 && r.height > 0) { ok++; } });
  Array.from(document.images).forEach(function (i) { if (!i.complete || i.naturalWidth === 0) { broken++; } });
  return { figures: figs.length, rendered: ok, broken: broken };
})()`)
}

func (b *browser) Problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}

func eval[T any](t *testing.T, b *browser, js string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

func (b *browser) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// screenshot writes the whole page, or with first the first screen only,
// as dir/name.png; with -update the first-screen shots also go to
// testdata/screenshots (gitignored) for people to look at.
func (b *browser) screenshot(t *testing.T, dir, name string, first bool) {
	t.Helper()
	shot := chromedp.FullScreenshot(100)
	if first {
		shot = chromedp.CaptureScreenshot()
	}
	b.shoot(t, dir, name, shot, first)
}

// elementShot writes a screenshot of the element sel, as screenshot does.
func (b *browser) elementShot(t *testing.T, dir, name, sel string) {
	t.Helper()
	b.shoot(t, dir, name, chromedp.Screenshot(chromedp.CSS(sel)), true)
}

func (b *browser) shoot(t *testing.T, dir, name string, shot chromedp.Action[[]byte], keep bool) {
	t.Helper()
	if keep && *testkit.Update {
		defer func() {
			if err := os.MkdirAll("testdata/screenshots", 0o755); err != nil {
				t.Fatal(err)
			}
			if data, err := os.ReadFile(filepath.Join(dir, name+".png")); err == nil {
				if err := os.WriteFile(filepath.Join("testdata/screenshots", t.Name()+"-"+name+".png"), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}()
	}
	png, err := chromedp.Run(b.ctx, shot)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s (%d bytes)", path, len(png))
}

// visible counts a table's shown body rows.
func visible(t *testing.T, b *browser, table string) int {
	return eval[int](t, b, `Array.from(document.querySelectorAll("#`+table+` tbody tr")).filter(function (r) { return !r.hidden && r.offsetParent !== null; }).length`)
}

// TestChromiumInteractive drives the report in headless Chromium with the
// network off, as a reader would: it clicks a header and checks the rows
// are in numeric order of their values (not of the display text), types
// into a filter box, switches the statistic, and takes screenshots. No
// request may leave the page, and nothing may be logged (a CSP violation
// or a failed load is logged).
func TestChromiumInteractive(t *testing.T) {
	dir := t.TempDir()
	_, path := report(t, dir)
	b := newBrowser(t, 1400, 1000)
	b.load(t, path)
	b.screenshot(t, dir, "first-screen", true)
	b.screenshot(t, dir, "loaded", false)

	// Sort the differences by change: ascending numbers, then reversed.
	const diff = "table-differences-1"
	values := func() []float64 {
		raw := eval[[]*float64](t, b, `Array.from(document.querySelectorAll("#`+diff+` tbody tr")).map(function (r) { var v = r.cells[4].getAttribute("data-v"); return v === null ? null : parseFloat(v); })`)
		out := make([]float64, len(raw))
		for i, v := range raw {
			out[i] = math.NaN()
			if v != nil {
				out[i] = *v
			}
		}
		return out
	}
	before := values()
	if len(before) < 4 {
		t.Fatalf("%d rows in the differences table", len(before))
	}
	b.do(t, "click the change header", chromedp.Click(chromedp.CSS("#"+diff+" th:nth-child(5) button")))
	after := values()
	if fmt.Sprint(after) == fmt.Sprint(before) {
		t.Errorf("clicking the header left the rows in order %v", before)
	}
	ordered := func(vs []float64, dir float64) bool {
		for i := 1; i < len(vs); i++ {
			if !math.IsNaN(vs[i]) && (math.IsNaN(vs[i-1]) || dir*(vs[i]-vs[i-1]) < 0) {
				return false
			}
		}
		return true
	}
	if !ordered(after, 1) {
		t.Errorf("after one click the changes are not ascending: %v", after)
	}
	if s := eval[string](t, b, `document.querySelector("#`+diff+` th:nth-child(5)").getAttribute("aria-sort")`); s != "ascending" {
		t.Errorf("aria-sort = %q, want ascending", s)
	}
	b.do(t, "click the change header again", chromedp.Click(chromedp.CSS("#"+diff+" th:nth-child(5) button")))
	if desc := values(); !ordered(desc, -1) {
		t.Errorf("after two clicks the changes are not descending: %v", desc)
	}

	// Switch the differences to p99: only p99 rows show.
	all := visible(t, b, diff)
	b.do(t, "choose p99", chromedp.Click(chromedp.CSS("#"+diff+` input.stat[value="p99"]`)))
	b.do(t, "scroll to the differences", chromedp.ScrollIntoView(chromedp.CSS("#"+diff)))
	p99 := visible(t, b, diff)
	stats := eval[[]string](t, b, `Array.from(document.querySelectorAll("#`+diff+` tbody tr")).filter(function (r) { return !r.hidden; }).map(function (r) { return r.cells[1].textContent; })`)
	if p99 == 0 || p99 >= all {
		t.Errorf("p99 shows %d of %d rows", p99, all)
	}
	for _, s := range stats {
		if s != "p99" {
			t.Errorf("with p99 chosen a %q row shows", s)
		}
	}
	b.screenshot(t, dir, "p99", true)
	b.do(t, "choose all", chromedp.Click(chromedp.CSS("#"+diff+` input.stat[value="all"]`)))
	if n := visible(t, b, diff); n != all {
		t.Errorf("back to all: %d rows, want %d", n, all)
	}

	// Open the first run's metrics (folded) and filter them by "itl".
	const metrics = "table-metrics-1"
	b.do(t, "unfold the metrics", chromedp.Click(chromedp.CSS("#metrics-1 > summary")))
	total := visible(t, b, metrics)
	want := eval[int](t, b, `Array.from(document.querySelectorAll("#`+metrics+` tbody tr")).filter(function (r) { return r.textContent.toLowerCase().indexOf("itl") >= 0; }).length`)
	b.do(t, "type a filter", chromedp.SendKeys(chromedp.CSS("#"+metrics+" input.filter"), "itl"))
	got := visible(t, b, metrics)
	b.do(t, "scroll to the metrics", chromedp.ScrollIntoView(chromedp.CSS("#"+metrics)))
	if got != want || got == 0 || got >= total {
		t.Errorf("filter itl: %d of %d rows show, want %d", got, total, want)
	}
	if c := eval[string](t, b, `document.querySelector("#`+metrics+` .count").textContent`); c != fmt.Sprintf("%d of %d rows", want, total) {
		t.Errorf("the count says %q", c)
	}
	b.screenshot(t, dir, "filtered", true)

	if w := eval[int](t, b, `document.documentElement.scrollWidth`); w > 1400 {
		t.Errorf("the page is %d px wide in a 1400 px window", w)
	}
	for _, p := range b.Problems() {
		t.Errorf("with the network off: %s", p)
	}
}

// TestChromiumCatchesProblems: the browser check is not blind. A page
// whose script does not match the CSP hash and that refers to an
// external image must be reported.
func TestChromiumCatchesProblems(t *testing.T) {
	dir := t.TempDir()
	_, path := report(t, dir)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Replace(string(data), `"use strict";`, `"use strict"; var tampered = 1;`, 1)
	page = strings.Replace(page, "<main>", `<main><img src="https://example.invalid/x.png" alt="">`, 1)
	bad := filepath.Join(dir, "tampered.html")
	if err := os.WriteFile(bad, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, 1400, 1000)
	b.mu.Lock()
	b.page = "file://" + bad
	b.mu.Unlock()
	// The script is blocked: the page loads without it.
	b.do(t, "load", chromedp.Navigate(b.page), chromedp.Sleep(500*time.Millisecond))
	// Without the script the series checkboxes, which would do nothing,
	// stay hidden.
	if n := eval[int](t, b, `Array.from(document.querySelectorAll("fieldset.series-toggle")).filter(function (f) { return f.offsetParent !== null; }).length`); n != 0 {
		t.Errorf("%d series checkbox lists show with the script blocked", n)
	}
	ps := strings.Join(b.Problems(), "\n")
	if !strings.Contains(ps, "Content Security Policy") {
		t.Errorf("the blocked script was not reported; problems:\n%s", ps)
	}
	if !strings.Contains(ps, "example.invalid") {
		t.Errorf("the external image was not reported; problems:\n%s", ps)
	}
}

// TestChromiumSeries: under a figure, unchecking a series hides its group
// in every panel (display none, so it has no rendered box: Chromium's
// getBBox still gives the geometry of an element not displayed, its
// getBoundingClientRect is empty) and checking it shows it
// again; a data point's title says its series, x and y with units, and
// the point is what the pointer hovers (it highlights). Network off.
func TestChromiumSeries(t *testing.T) {
	dir := t.TempDir()
	_, path := report(t, dir)
	b := newBrowser(t, 1400, 1000)
	b.load(t, path)

	// state gives, per group of series k in figure fig, whether it is
	// displayed and the area of its rendered box.
	type group struct {
		Display string  `json:"display"`
		Area    float64 `json:"area"`
	}
	state := func(fig string, k int) []group {
		return eval[[]group](t, b, fmt.Sprintf(`Array.from(document.querySelectorAll("#%s g.series[data-series='%d']")).map(function (g) {
  var r = g.getBoundingClientRect(); return { display: getComputedStyle(g).display, area: r.width * r.height }; })`, fig, k))
	}
	for _, tc := range []struct {
		fig    string
		panels int
		// hostile is the hostile label's series (platform b's), whose
		// point number pt has a title that matches title.
		hostile, pt int
		title       *regexp.Regexp
	}{
		{"figure-ecdf-ttft", 1, 1, 3, regexp.MustCompile(`^<script>alert\(1\)</script><img src=x onerror=alert\(2\)> \(n=\d+\): TTFT [0-9.]+ ms, fraction of requests [0-9.]+$`)},
		{"figure-latency-vs-throughput", 2, 2, 0, regexp.MustCompile(`^<script>alert\(1\)</script><img src=x onerror=alert\(2\)> p99: output token throughput [0-9.]+ tokens/s, TTFT [0-9.]+ ms$`)},
	} {
		t.Run(tc.fig, func(t *testing.T) {
			if shown := eval[bool](t, b, `document.querySelector("#`+tc.fig+` fieldset.series-toggle").offsetParent !== null`); !shown {
				t.Fatal("the series checkboxes do not show")
			}
			names := eval[[]string](t, b, `Array.from(document.querySelectorAll("#`+tc.fig+` fieldset.series-toggle label")).map(function (l) { return l.textContent; })`)
			if len(names) <= tc.hostile || !strings.HasPrefix(names[0], "a ") || !strings.HasPrefix(names[tc.hostile], hostileLabel) {
				t.Errorf("series checkboxes %q, want a's first and the hostile label's as number %d", names, tc.hostile)
			}
			before := state(tc.fig, 0)
			if len(before) != tc.panels {
				t.Fatalf("%d groups of series 0, want one per panel (%d)", len(before), tc.panels)
			}
			for _, g := range before {
				if g.Display == "none" || g.Area <= 0 {
					t.Errorf("before unchecking, a group of series 0 is %+v", g)
				}
			}
			box := "#" + tc.fig + ` input.series[value="0"]`
			b.do(t, "scroll to the figure", chromedp.ScrollIntoView(chromedp.CSS("#"+tc.fig)))
			b.do(t, "uncheck series 0", chromedp.Click(chromedp.CSS(box)))
			for _, g := range state(tc.fig, 0) {
				if g.Display != "none" || g.Area != 0 {
					t.Errorf("after unchecking, a group of series 0 is %+v, want hidden with an empty box", g)
				}
			}
			for _, g := range state(tc.fig, tc.hostile) {
				if g.Display == "none" || g.Area <= 0 {
					t.Errorf("after unchecking series 0, a group of series %d is %+v", tc.hostile, g)
				}
			}
			b.elementShot(t, dir, tc.fig+"-series-0-off", "#"+tc.fig)
			b.do(t, "check series 0", chromedp.Click(chromedp.CSS(box)))
			for _, g := range state(tc.fig, 0) {
				if g.Display == "none" || g.Area <= 0 {
					t.Errorf("checked again, a group of series 0 is %+v", g)
				}
			}

			// A point of the hostile label's series: its title, and the
			// pointer over it.
			type point struct {
				Title   string  `json:"title"`
				X       float64 `json:"x"`
				Y       float64 `json:"y"`
				Opacity string  `json:"opacity"`
			}
			circle := fmt.Sprintf(`document.querySelectorAll("#%s g.series[data-series='%d'] circle.pt")[%d]`, tc.fig, tc.hostile, tc.pt)
			pointJS := `(function () {
  var c = ` + circle + `;
  var r = c.getBoundingClientRect();
  return { title: c.querySelector("title").textContent, x: r.left + r.width / 2, y: r.top + r.height / 2, opacity: getComputedStyle(c).fillOpacity };
})()`
			pt := eval[point](t, b, pointJS)
			if !tc.title.MatchString(pt.Title) {
				t.Errorf("a point's title is %q, want it to match %s", pt.Title, tc.title)
			}
			if pt.Opacity != "0" {
				t.Errorf("a point not hovered has fill-opacity %s, want 0", pt.Opacity)
			}
			b.do(t, "hover the point", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, pt.X, pt.Y))
			if hit := eval[bool](t, b, fmt.Sprintf(`document.elementFromPoint(%g, %g) === %s`, pt.X, pt.Y, circle)); !hit {
				t.Error("the point is not what the pointer is over")
			}
			if o := eval[point](t, b, pointJS).Opacity; o == "0" {
				t.Error("the hovered point does not highlight")
			}
		})
	}
	for _, p := range b.Problems() {
		t.Errorf("with the network off: %s", p)
	}
}

// sweepReport writes the report of a 9-run sweep (six h100 runs, three
// l40s runs of testdata/capacity) with its figures into dir.
func sweepReport(t *testing.T, dir string) string {
	t.Helper()
	const capacity = "../../testdata/capacity/"
	var bundles []string
	for _, p := range []struct {
		name  string
		files []string
	}{
		{"h100", []string{"rate04", "rate08", "rate12-1", "rate12-2", "rate16", "rate20"}},
		{"l40s", []string{"rate04", "rate08", "rate12"}},
	} {
		inv, err := schemas.LoadInventory(capacity + "sut-" + p.name + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, f := range p.files {
			files = append(files, capacity+p.name+"/"+f+".json")
		}
		dest := filepath.Join(dir, p.name+".bundle")
		if _, err := ingest.ToBundle(context.Background(), files, dest, ingest.Options{Formats: all.Formats(), SUT: inv}); err != nil {
			t.Fatal(err)
		}
		bundles = append(bundles, dest)
	}
	v, err := analysis.Validate(context.Background(), bundles, validate.Options{Compare: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.LoadReport(context.Background(), bundles, analysis.ReportOptions{Resamples: 200, Validation: analysis.ValidationOf(v)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 9 {
		t.Fatalf("%d runs, want 9", len(rep.Runs))
	}
	figs, skipped, err := plot.Report(rep, plot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	css, err := plot.FontFaceCSS()
	if err != nil {
		t.Fatal(err)
	}
	o := html.Options{FontCSS: css, Notes: skipped}
	for _, f := range figs {
		o.Figures = append(o.Figures, html.Figure{Name: f.Name, Title: f.Title, Caption: f.Caption, SVG: f.SVG})
	}
	path := filepath.Join(dir, "sweep.html")
	if err := html.Write(context.Background(), path, rep, o); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestChromiumManyRuns: a 9-run sweep fits a 1400 px window: the page
// does not scroll sideways and no table is wider than its box (tables
// with one column per run turn to one row per run).
func TestChromiumManyRuns(t *testing.T) {
	dir := t.TempDir()
	path := sweepReport(t, dir)
	b := newBrowser(t, 1400, 1000)
	b.load(t, path)
	b.screenshot(t, dir, "sweep-first-screen", true)
	if w := eval[int](t, b, `document.documentElement.scrollWidth`); w > 1400 {
		t.Errorf("the page is %d px wide in a 1400 px window", w)
	}
	// Unfold everything, then measure every table's box.
	b.do(t, "unfold", chromedp.Evaluate[chromedp.Void](`document.querySelectorAll("details").forEach(function (d) { d.open = true; })`))
	wide := eval[[]string](t, b, `Array.from(document.querySelectorAll(".scroll")).filter(function (s) { return s.scrollWidth > s.clientWidth + 1; }).map(function (s) { var h = s.closest(".tbl").previousElementSibling; return (h ? h.textContent : "?") + ": " + s.scrollWidth + " px in " + s.clientWidth; })`)
	for _, w := range wide {
		t.Errorf("table wider than its box: %s", w)
	}
	if w := eval[int](t, b, `document.documentElement.scrollWidth`); w > 1400 {
		t.Errorf("unfolded, the page is %d px wide in a 1400 px window", w)
	}
	b.screenshot(t, dir, "sweep", false)
	b.elementShot(t, dir, "sweep-summary", "#summary")
	b.elementShot(t, dir, "sweep-inventory", "#inventory")
	for _, p := range b.Problems() {
		t.Errorf("with the network off: %s", p)
	}
}
