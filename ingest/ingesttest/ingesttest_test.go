package ingesttest

import (
	"slices"
	"testing"
)

func TestTypeSeeds(t *testing.T) {
	got := TypeSeeds([]byte(`{"a": 1, "b": [true]}`), 0)
	for _, want := range []string{`{"a": null, "b": [true]}`, `{"a": 1, "b": [{}]}`, `{"a": 1, "b": {"a":[1]}}`, `{"a": [1], "b": [true]}`} {
		if !slices.ContainsFunc(got, func(b []byte) bool { return string(b) == want }) {
			t.Errorf("no seed %s", want)
		}
	}
	// three values (1, [true], true), each replaced by every variant but
	// itself
	if n := 3*len(TypeVariants) - 1; len(got) != n {
		t.Errorf("%d seeds, want %d", len(got), n)
	}
	lines := TypeSeeds([]byte(":::MLLOG {\"k\": 1}\n:::MLLOG {\"k\": \"v\"}\n"), 0)
	if !slices.ContainsFunc(lines, func(b []byte) bool { return string(b) == ":::MLLOG {\"k\": 1}\n:::MLLOG {\"k\": []}\n" }) {
		t.Errorf("prefixed lines: %q", lines[:3])
	}
	if n := len(TypeSeeds([]byte(`{"a": [1, 2, 3, 4]}`), 2)); n != 2*len(TypeVariants) {
		t.Errorf("maxValues 2: %d seeds", n)
	}
}
