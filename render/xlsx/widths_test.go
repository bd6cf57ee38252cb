package xlsx_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/verdict-llm/verdict/render/xlsx"
)

// TestNoHashesInPDF: LibreOffice's PDF export of the workbook at the
// widths it was written with shows no ### (a number wider than its
// column) and every word of every heading.
func TestNoHashesInPDF(t *testing.T) {
	soffice, pdftotext := lookPath("soffice", "libreoffice"), lookPath("pdftotext")
	if soffice == "" || pdftotext == "" {
		if os.Getenv("VERDICT_REQUIRE_CLIENTS") != "" {
			t.Fatal("LibreOffice or pdftotext is not installed, and VERDICT_REQUIRE_CLIENTS says they must be")
		}
		t.Skip("LibreOffice or pdftotext is not installed (apt-get install libreoffice-calc poppler-utils); .ci/run installs them")
	}
	rep, dir := captureReport(t)
	path := writeBook(t, rep, dir, xlsx.Options{})
	out := filepath.Join(dir, "pdf")
	run(t, 3*time.Minute, soffice, "--headless", "--norestore", "-env:UserInstallation=file://"+loProfile(t, dir),
		"--convert-to", "pdf", "--outdir", out, path)
	txt := filepath.Join(dir, "report.txt")
	run(t, time.Minute, pdftotext, filepath.Join(out, "report.pdf"), txt)
	data, err := os.ReadFile(txt)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if n := strings.Count(text, "###"); n > 0 {
		i := strings.Index(text, "###")
		t.Errorf("the PDF shows ### %d times, first in %q", n, text[max(0, i-200):min(len(text), i+50)])
	}
	words := map[string]bool{}
	for _, w := range strings.Fields(text) {
		words[w] = true
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, sheet := range []string{xlsx.SheetSummary, xlsx.SheetMetrics, xlsx.SheetCosts} {
		rows, _ := f.GetRows(sheet)
		hdr := 1 // the Summary's and Metrics' header row (0-based)
		if sheet == xlsx.SheetCosts {
			hdr = 3
		}
		for _, h := range rows[hdr] {
			for _, w := range strings.Fields(h) {
				if !words[w] {
					t.Errorf("%s: heading %q: the PDF lacks %q (clipped?)", sheet, h, w)
				}
			}
		}
	}
}

// run runs a client with a time limit.
func run(t *testing.T, limit time.Duration, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	done := make(chan struct{})
	var msg []byte
	var err error
	go func() { msg, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s did not finish in %v: %s", name, limit, msg)
	}
	if err != nil {
		t.Fatalf("%s: %v: %s", name, err, msg)
	}
}
