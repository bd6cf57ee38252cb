package render

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/verdict-llm/verdict/validate"
)

// JUnit XML for CI systems (GitLab, Jenkins, Azure DevOps, the GitHub test
// reporter actions): one <testsuite> per rule that ran, one <testcase> per
// check (the rule applied to one run, group or pair). A check whose
// findings fail the gate has a <failure>; a rule that does not apply to a
// subject gives <skipped>; findings that do not fail the gate (warnings,
// info) are listed in the test case's <system-out>. Times are 0: the
// checks are not timed, and fixed values keep the file reproducible.

// JUnitTestSuites is the document root.
type JUnitTestSuites struct {
	XMLName  xml.Name         `xml:"testsuites"`
	Name     string           `xml:"name,attr"`
	Tests    int              `xml:"tests,attr"`
	Failures int              `xml:"failures,attr"`
	Errors   int              `xml:"errors,attr"`
	Skipped  int              `xml:"skipped,attr"`
	Time     string           `xml:"time,attr"`
	Suites   []JUnitTestSuite `xml:"testsuite"`
}

// JUnitTestSuite is one rule.
type JUnitTestSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []JUnitProperty `xml:"properties>property,omitempty"`
	Cases      []JUnitTestCase `xml:"testcase"`
}

// JUnitProperty is a name and value of a suite.
type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitTestCase is one check.
type JUnitTestCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *JUnitFailure `xml:"failure,omitempty"`
	Skipped   *JUnitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// JUnitFailure carries the findings that fail the gate.
type JUnitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnitSkipped says why a rule did not apply.
type JUnitSkipped struct {
	Message string `xml:"message,attr"`
}

// JUnit converts a report to JUnit test suites.
func JUnit(r *validate.Report) JUnitTestSuites {
	doc := JUnitTestSuites{Name: "verdict validate", Time: "0"}
	byRule := map[string][]validate.Check{}
	for _, ch := range r.Checks {
		byRule[ch.Rule] = append(byRule[ch.Rule], ch)
	}
	for _, ru := range r.Rules {
		s := JUnitTestSuite{Name: ru.ID, Time: "0", Properties: []JUnitProperty{
			{Name: "title", Value: ru.Title}, {Name: "severity", Value: string(ru.Severity)}, {Name: "scope", Value: string(ru.Scope)}}}
		for _, ch := range byRule[ru.ID] {
			tc := JUnitTestCase{Name: ch.Subject, Classname: "verdict.validate." + ru.ID, Time: "0"}
			var failing, other []string
			failType := ""
			for _, f := range r.FindingsOf(ch) {
				line := fmt.Sprintf("[%s, %s] %s", f.Severity, f.Effect, f.Message)
				if f.FailsGate {
					failing = append(failing, line)
					if failType == "" {
						failType = string(f.Effect)
						tc.Failure = &JUnitFailure{Message: f.Message}
					}
				} else {
					other = append(other, line)
				}
			}
			switch {
			case ch.Status == validate.StatusSkip:
				tc.Skipped = &JUnitSkipped{Message: "not applicable: " + ch.Reason}
				s.Skipped++
			case tc.Failure != nil:
				tc.Failure.Type = failType
				if len(failing) > 1 {
					tc.Failure.Message = fmt.Sprintf("%d findings fail the gate; first: %s", len(failing), tc.Failure.Message)
				}
				tc.Failure.Text = strings.Join(failing, "\n")
				s.Failures++
			}
			out := append(other, ch.Notes...)
			if len(out) > 0 {
				tc.SystemOut = strings.Join(out, "\n")
			}
			s.Tests++
			s.Cases = append(s.Cases, tc)
		}
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Skipped += s.Skipped
		doc.Suites = append(doc.Suites, s)
	}
	return doc
}

// WriteJUnit writes a report as JUnit XML.
func WriteJUnit(w io.Writer, r *validate.Report) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(JUnit(r)); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// WriteJUnitFile writes a report as JUnit XML to path atomically: into a
// temporary file beside it, synced, then renamed over path, so that a CI
// job never reads half a file.
func WriteJUnitFile(path string, r *validate.Report) error {
	return writeFileAtomic(path, func(w io.Writer) error { return WriteJUnit(w, r) })
}

func writeFileAtomic(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
