package plot

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// forged is a series name that is a marker of some drawing: a drawing's
// nonce is random, so it is never this one's.
const forged = "vdm000000000000000000000000:b0"

// twoLines is a plot of two lines, the first named forged, added through
// tagSeries (tagged) or plainly.
func twoLines(t *testing.T, tagged bool) *plot.Plot {
	t.Helper()
	p := newPlot("two lines", "TTFT (ms)", "fraction of requests")
	for i, name := range []string{forged, `b <&> "c"`} {
		l, err := plotter.NewLine(plotter.XYs{{X: 1, Y: float64(i)}, {X: 2, Y: float64(i) + 0.5}, {X: 3, Y: float64(i) + 2}})
		if err != nil {
			t.Fatal(err)
		}
		l.LineStyle = lineStyle(i)
		if tagged {
			p.Add(tagSeries(name, l))
		} else {
			p.Add(l)
		}
		p.Legend.Add(name, l)
	}
	return p
}

// marksRE matches the marks: a series group's start, its circles, and
// its end after its last circle (every series here ends with points).
var marksRE = regexp.MustCompile(`<g class="series"[^>]*><title>[^<]*</title>\n|<circle class="pt".*?</circle>\n(?:</g>\n)?`)

// TestSeriesMarks: a tagged series' elements are one group with its name
// and colour and a circle per point whose title gives the series, x and
// y with units; a series name that looks like a marker stays text; the
// PNG is the one drawn without tags, and the SVG is too once the marks
// are taken out.
func TestSeriesMarks(t *testing.T) {
	svg, png, err := Draw([][]*plot.Plot{{twoLines(t, true)}}, 5*vg.Inch, 3*vg.Inch, Options{})
	if err != nil {
		t.Fatal(err)
	}
	plainSVG, plainPNG, err := Draw([][]*plot.Plot{{twoLines(t, false)}}, 5*vg.Inch, 3*vg.Inch, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := string(svg)
	for _, want := range []string{
		"<g class=\"series\" data-series=\"0\" data-color=\"#1f77b4\"><title>" + forged + "</title>\n<path ",
		"<g class=\"series\" data-series=\"1\" data-color=\"#ff7f0e\"><title>b &lt;&amp;&gt; &#34;c&#34;</title>\n<path ",
		`<title>` + forged + `: TTFT 1 ms, fraction of requests 0</title>`,
		`<title>b &lt;&amp;&gt; &#34;c&#34;: TTFT 3 ms, fraction of requests 3</title>`,
		// The legend draws the forged name as text.
		">" + forged + "</text>",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if n := strings.Count(s, `<g class="series"`); n != 2 {
		t.Errorf("%d series groups, want 2", n)
	}
	if n := strings.Count(s, `<circle class="pt"`); n != 6 {
		t.Errorf("%d hover points, want 6", n)
	}
	if regexp.MustCompile(`vdm[0-9a-f]{24}:[bep]\d`).FindString(strings.ReplaceAll(s, forged, "")) != "" {
		t.Error("a marker is left in the SVG")
	}
	if !bytes.Equal(png, plainPNG) {
		t.Error("the PNG differs from the one drawn without series tags")
	}
	if got := marksRE.ReplaceAllString(s, ""); got != string(plainSVG) {
		t.Errorf("without its marks the SVG differs from the one drawn without series tags:\n%s", got)
	}
	// The marks nest: the SVG is well-formed XML.
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the SVG is not well-formed: %v", err)
		}
	}
}

// TestSeriesMarksShared: a series name in several panels of one figure is
// one series (one number); a name used once per panel keeps its number.
func TestSeriesMarksShared(t *testing.T) {
	svg, _, err := Draw([][]*plot.Plot{{twoLines(t, true), twoLines(t, true)}}, 8*vg.Inch, 3*vg.Inch, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := regexp.MustCompile(`data-series="(\d)"`).FindAllStringSubmatch(string(svg), -1)
	var ks []string
	for _, m := range got {
		ks = append(ks, m[1])
	}
	if strings.Join(ks, " ") != "0 1 0 1" {
		t.Errorf("series numbers %v, want 0 1 0 1", ks)
	}
}

// TestRewriteMisplaced: markers that cannot become well-nested groups at
// the top of the plotting area are all dropped; text that is a marker of
// another nonce is left alone.
func TestRewriteMisplaced(t *testing.T) {
	m := newMarkCanvas(vgsvg.New(1, 1))
	m.nonce = "n1"
	m.series("a", "#000000")
	m.points = []hoverPoint{{series: 0, text: "a: 1, 2"}}
	text := func(s string) string { return `<text x="0" y="-0" transform="scale(1, -1)">` + s + "</text>\n" }
	doc := func(body string) string {
		return `<?xml version="1.0"?>` + "\n" + `<svg xmlns="http://www.w3.org/2000/svg"><g transform="scale(1, -1)">` + "\n" + body + "</g>\n</svg>\n"
	}
	path := "<path d=\"M0,0L1,1\" />\n"
	for _, tc := range []struct {
		name, body, want string
	}{
		{"well placed", text("vdmn1:b0") + path + text("vdmn1:p0") + text("vdmn1:e0"),
			`<g class="series" data-series="0" data-color="#000000"><title>a</title>` + "\n" + path +
				`<circle class="pt" cx="0" cy="0" r="4" fill="#000000" fill-opacity="0"><title>a: 1, 2</title></circle>` + "\n</g>\n"},
		{"other nonce", text("vdmn2:b0") + path, text("vdmn2:b0") + path},
		{"unknown series", text("vdmn1:b7") + path, text("vdmn1:b7") + path},
		{"inside a group", "<g>" + text("vdmn1:b0") + path + text("vdmn1:e0") + "</g>\n", "<g>" + path + "</g>\n"},
		{"crossing a group", text("vdmn1:b0") + "<g>" + path + text("vdmn1:e0") + "</g>\n", "<g>" + path + "</g>\n"},
		{"no end", text("vdmn1:b0") + path, path},
		{"point outside its series", text("vdmn1:p0") + path, path},
		{"nested begin", text("vdmn1:b0") + text("vdmn1:b0") + path + text("vdmn1:e0"), path},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := m.rewrite([]byte(doc(tc.body)))
			if err != nil {
				t.Fatal(err)
			}
			if want := doc(tc.want); string(got) != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestSplitLabel(t *testing.T) {
	for _, tc := range []struct{ label, name, unit string }{
		{"TTFT (ms)", "TTFT", "ms"},
		{"output token throughput (tokens/s)", "output token throughput", "tokens/s"},
		{"fraction of requests", "fraction of requests", ""},
		{"(s)", "(s)", ""},
	} {
		if n, u := splitLabel(tc.label); n != tc.name || u != tc.unit {
			t.Errorf("splitLabel(%q) = %q, %q; want %q, %q", tc.label, n, u, tc.name, tc.unit)
		}
	}
}

func TestEvenly(t *testing.T) {
	for _, tc := range []struct {
		n, max int
		want   string
	}{
		{3, 5, "[0 1 2]"},
		{10, 4, "[0 3 6 9]"},
		{1000, 3, "[0 500 999]"},
	} {
		if got := fmt.Sprint(evenly(tc.n, tc.max)); got != tc.want {
			t.Errorf("evenly(%d, %d) = %s, want %s", tc.n, tc.max, got, tc.want)
		}
	}
}
