package render

import (
	"bytes"
	"html"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// hostile is text from input files that tries to change a Markdown
// table: a bare carriage return (which ends a row in cmark-gfm and so
// forges one in $GITHUB_STEP_SUMMARY), raw HTML, links, images,
// autolinks, emphasis, code, strikethrough, math, entities and block
// starts.
var hostile = []string{
	"model-a\r| forged | 9999 |",
	"line\nbreak\u2028sep",
	"<script>alert(1)</script><img src=x onerror=alert(1)>",
	"[click](https://evil.example/x) ![pixel](https://evil.example/p.png)",
	"https://evil.example/a and www.evil.example and admin@evil.example",
	"**bold** _em_ `code` ~~gone~~ $x^2$ &lt;b&gt; &#60;",
	`back\slash \| pipe | and \\`,
	"# heading",
	"1. list",
	"- item",
	"> quote",
	"    indented code",
	"---",
	"nul\x00 bell\x07 tab\tend",
}

// gfm renders Markdown with cmark-gfm and GitHub's extensions, or skips
// the test when cmark-gfm is not installed (Debian: cmark-gfm; .ci/run
// installs it), unless VERDICT_REQUIRE_CLIENTS says it must be there.
func gfm(t *testing.T, md string) string {
	t.Helper()
	bin, err := exec.LookPath("cmark-gfm")
	if err != nil {
		if os.Getenv("VERDICT_REQUIRE_CLIENTS") != "" {
			t.Fatal("cmark-gfm is not installed, and VERDICT_REQUIRE_CLIENTS says it must be")
		}
		t.Skip("cmark-gfm not installed (apt-get install cmark-gfm): the GFM rendering check is skipped")
	}
	cmd := exec.Command(bin, "-e", "table", "-e", "autolink", "-e", "strikethrough", "-e", "tagfilter")
	cmd.Stdin = strings.NewReader(md)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("cmark-gfm: %v %s", err, errb.String())
	}
	return out.String()
}

var (
	rowRe  = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRe = regexp.MustCompile(`(?s)<t[dh][^>]*>(.*?)</t[dh]>`)
)

// visible is what a cell's text was meant to read as after rendering.
func visible(s string) string {
	r := strings.NewReplacer("\r", " ", "\n", " ", "\t", " ", "\u2028", " ", "\x00", "\uFFFD", "\x07", "\uFFFD")
	return r.Replace(s)
}

// TestMarkdownGFM renders a table of hostile cells, titles and notes with
// cmark-gfm: the table keeps its rows and columns, no element other than
// the table's and the paragraphs' appears, and every cell reads back as
// its text.
func TestMarkdownGFM(t *testing.T) {
	tb := &Table{Title: "# <b>title</b> [x](y)", Columns: []string{"what", "text", "n"}}
	for _, h := range hostile {
		tb.AddRow(T("row"), T(h), N("1", 1))
	}
	for _, h := range hostile {
		tb.Notes = append(tb.Notes, h)
	}
	var b bytes.Buffer
	if err := Write(&b, Markdown, []*Table{tb}); err != nil {
		t.Fatal(err)
	}
	out := gfm(t, b.String())
	rows := rowRe.FindAllStringSubmatch(out, -1)
	if len(rows) != 1+len(hostile) {
		t.Fatalf("%d table rows rendered, want %d:\n%s\n%s", len(rows), 1+len(hostile), b.String(), out)
	}
	for i, r := range rows[1:] {
		cells := cellRe.FindAllStringSubmatch(r[1], -1)
		if len(cells) != 3 || cells[0][1] != "row" || cells[2][1] != "1" {
			t.Errorf("row %d rendered as %q", i, r[1])
			continue
		}
		got := strings.ReplaceAll(html.UnescapeString(cells[1][1]), "\u200b", "")
		if want := strings.TrimSpace(visible(hostile[i])); strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(want), " ") {
			t.Errorf("cell %d reads %q, want %q", i, got, want)
		}
	}
	// Only the table, paragraphs, line breaks and the title's heading.
	for _, tag := range regexp.MustCompile(`<([a-z0-9]+)`).FindAllStringSubmatch(out, -1) {
		switch tag[1] {
		case "table", "thead", "tbody", "tr", "th", "td", "p", "br", "h3":
		default:
			t.Errorf("element <%s> in the rendered Markdown:\n%s", tag[1], out)
		}
	}
	if strings.Count(out, "<h3>") != 1 || !strings.Contains(out, "<h3># &lt;b&gt;title&lt;/b&gt; [x](y)</h3>") {
		t.Errorf("title: %s", out)
	}
	if MarkdownText("1) x") != `1\) x` || MarkdownText("  - x") != `\- x` {
		t.Errorf("line starts: %q %q", MarkdownText("1) x"), MarkdownText("  - x"))
	}
}
