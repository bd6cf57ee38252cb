package main

import (
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/costing"
	"github.com/verdict-llm/verdict/validate"
)

// yamlKeys lists the dotted YAML key paths of a struct type, as the
// README's key tables write them: list elements as name[], and the
// fields of a costing.Billing under "billing." wherever it appears.
func yamlKeys(t reflect.Type, prefix string) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		if t.Kind() == reflect.Slice {
			prefix += "[]"
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t.PkgPath() == "" || t == reflect.TypeOf(costing.Decimal{}) {
		return nil
	}
	if t == reflect.TypeOf(costing.Billing{}) {
		prefix = "billing"
	}
	var keys []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		keys = append(keys, path)
		keys = append(keys, yamlKeys(f.Type, path)...)
	}
	return keys
}

// readmeSection returns the README's text from the heading to the next
// heading of any level.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("README.md has no %q section", heading)
	}
	s = s[i+len(heading)+2:]
	if j := strings.Index(s, "\n#"); j >= 0 {
		s = s[:j]
	}
	return s
}

// TestReadmeDocumentsConfigKeys: every key the quote and policy readers
// accept has a row in the README's key tables (issue 16: the keys were
// shown only by the demo files), and no row names a key they refuse.
func TestReadmeDocumentsConfigKeys(t *testing.T) {
	for _, c := range []struct {
		heading string
		typ     reflect.Type
	}{
		{"### Quote file keys (`--quote`)", reflect.TypeOf(costing.Quote{})},
		{"### Policy file keys (`--policy`)", reflect.TypeOf(validate.Policy{})},
	} {
		sec := readmeSection(t, c.heading)
		rows := map[string]bool{}
		for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_.\\[\\]]+)` \\|").FindAllStringSubmatch(sec, -1) {
			rows[m[1]] = true
		}
		want := map[string]bool{}
		for _, k := range yamlKeys(c.typ, "") {
			want[k] = true
			if !rows[k] {
				t.Errorf("%s: key %s is not documented", c.heading, k)
			}
		}
		for k := range rows {
			if !want[k] {
				t.Errorf("%s: row %s names no key the reader accepts", c.heading, k)
			}
		}
	}
}

// TestReadmePolicyDefaults: the defaults column of the policy table is
// DefaultPolicy's.
func TestReadmePolicyDefaults(t *testing.T) {
	sec := readmeSection(t, "### Policy file keys (`--policy`)")
	th := reflect.ValueOf(validate.DefaultPolicy.Thresholds)
	for i := range th.NumField() {
		name, _, _ := strings.Cut(th.Type().Field(i).Tag.Get("yaml"), ",")
		m := regexp.MustCompile("(?m)^\\| `thresholds\\." + regexp.QuoteMeta(name) + "` \\| ([^|]+) \\|").FindStringSubmatch(sec)
		if m == nil {
			t.Errorf("no row for thresholds.%s", name)
			continue
		}
		got, err := strconv.ParseFloat(strings.TrimSpace(m[1]), 64)
		if want := th.Field(i).Convert(reflect.TypeOf(0.0)).Float(); err != nil || got != want {
			t.Errorf("thresholds.%s: README default %q, DefaultPolicy %v", name, m[1], want)
		}
	}
	m := regexp.MustCompile("(?m)^\\| `required_inventory` \\| ([^|]+) \\|").FindStringSubmatch(sec)
	if m == nil || strings.TrimSpace(m[1]) != strings.Join(validate.DefaultPolicy.RequiredInventory, ", ") {
		t.Errorf("required_inventory default: README %v, DefaultPolicy %v", m, validate.DefaultPolicy.RequiredInventory)
	}
}
