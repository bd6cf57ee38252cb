package capture

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadJSONL(t *testing.T) {
	in := "{\"prompt\": \"hello world\"}\n\n{\"prompt\": \"a b c\", \"output_tokens\": 12}\r\n{\"prompt\": \"x\", \"output_len\": 3, \"extra\": 1}\n{\"prompt\": \"y\", \"max_tokens\": 5}\n"
	ds, err := ReadJSONL(strings.NewReader(in), "p.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []Prompt{{"hello world", 0}, {"a b c", 12}, {"x", 3}, {"y", 5}}
	if len(ds.Prompts) != len(want) {
		t.Fatalf("prompts %+v", ds.Prompts)
	}
	for i, p := range want {
		if ds.Prompts[i] != p {
			t.Errorf("prompt %d: %+v, want %+v", i, ds.Prompts[i], p)
		}
	}
	sum := sha256.Sum256([]byte(in))
	if ds.SHA256 != hex.EncodeToString(sum[:]) || ds.Format != "jsonl" {
		t.Errorf("sha %s format %s", ds.SHA256, ds.Format)
	}

	bad := []struct{ in, want string }{
		{`{"prompt": "ok"}` + "\n" + `{"prompt": 3}`, "p.jsonl:2: json: cannot unmarshal number"},
		{`{"text": "no prompt"}`, `p.jsonl:1: no "prompt" string`},
		{`{"prompt": "x", "output_tokens": 0}`, "p.jsonl:1: output length must be positive"},
		{`{"prompt": "x"` + "\n", "p.jsonl:1:"},
		{"\n\n", "dataset has no prompts"},
	}
	for _, b := range bad {
		_, err := ReadJSONL(strings.NewReader(b.in), "p.jsonl")
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%q: error %v, want %q", b.in, err, b.want)
		}
	}
	var de *DatasetError
	if _, err := ReadJSONL(strings.NewReader("{}"), "p.jsonl"); !errors.As(err, &de) || de.Line != 1 {
		t.Errorf("error %v is not a positioned DatasetError", err)
	}
}

func TestReadShareGPT(t *testing.T) {
	in := `[
 {"id": "a", "conversations": [{"from": "human", "value": "What is Go?"}, {"from": "gpt", "value": "A language."}]},
 {"id": "b", "conversations": [{"from": "human", "value": "alone"}]},
 {"id": "c", "conversations": [{"from": "human", "value": "Hi"}, {"from": "gpt", "value": "Hello"}, {"from": "human", "value": "more"}]}
]
`
	ds, err := ReadShareGPT(strings.NewReader(in), "sg.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Prompts) != 2 || ds.Prompts[0].Text != "What is Go?" || ds.Prompts[1].Text != "Hi" || ds.Skipped != 1 {
		t.Errorf("%+v", ds)
	}
	sum := sha256.Sum256([]byte(in))
	if ds.SHA256 != hex.EncodeToString(sum[:]) {
		t.Error("the hash must cover every byte of the file")
	}
	for _, b := range []struct{ in, want string }{
		{`{"conversations": []}`, "sg.json:1:2: a ShareGPT file is a JSON array"},
		{"[\n {\"conversations\": [{\"from\": 1}]}\n]", "sg.json:2:"},
		{"[\n {\"conversations\": [}\n]", "sg.json:2:"},
		{`[]`, "dataset has no prompts"},
		{`[] []`, "data after the array"},
	} {
		_, err := ReadShareGPT(strings.NewReader(b.in), "sg.json")
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%q: error %v, want %q", b.in, err, b.want)
		}
	}
}

func TestLoadDataset(t *testing.T) {
	dir := t.TempDir()
	j := filepath.Join(dir, "a.jsonl")
	s := filepath.Join(dir, "b.json")
	os.WriteFile(j, []byte(`{"prompt": "p"}`+"\n"), 0o644)
	os.WriteFile(s, []byte("\n  [{\"conversations\": [{\"value\": \"q\"}, {\"value\": \"r\"}]}]"), 0o644)
	if ds, err := LoadDataset(j); err != nil || ds.Format != "jsonl" || ds.label() != "a.jsonl" {
		t.Errorf("%+v %v", ds, err)
	}
	if ds, err := LoadDataset(s); err != nil || ds.Format != "sharegpt" || ds.Prompts[0].Text != "q" {
		t.Errorf("%+v %v", ds, err)
	}
	if _, err := LoadDataset(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing file read")
	}
}

func TestSynthetic(t *testing.T) {
	gen := func(seed uint64) *Dataset {
		in, _ := ParseLengths("50-150")
		out, _ := ParseLengths("normal:100,10")
		ds, err := Synthetic{N: 2000, Input: in, Output: out, Seed: seed}.Generate()
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	a, b, c := gen(1), gen(1), gen(2)
	if a.SHA256 != b.SHA256 || a.SHA256 == c.SHA256 {
		t.Error("the same settings must give the same dataset, another seed another")
	}
	var inSum, outSum, outSq float64
	for _, p := range a.Prompts {
		n := len(strings.Fields(p.Text))
		if n < 50 || n > 150 {
			t.Fatalf("prompt of %d words", n)
		}
		inSum += float64(n)
		outSum += float64(p.OutputTokens)
		outSq += float64(p.OutputTokens * p.OutputTokens)
	}
	n := float64(len(a.Prompts))
	mean := outSum / n
	sd := math.Sqrt(outSq/n - mean*mean)
	if math.Abs(inSum/n-100) > 3 || math.Abs(mean-100) > 1.5 || math.Abs(sd-10) > 1 {
		t.Errorf("input mean %v, output mean %v sd %v", inSum/n, mean, sd)
	}
	if !strings.Contains(a.Name, "input=50-150 output=normal:100,10") {
		t.Errorf("name %q", a.Name)
	}
}

func TestParseLengths(t *testing.T) {
	for in, want := range map[string]string{"128": "128", " 64-256 ": "64-256", "normal:512,64": "normal:512,64", "5-5": "5-5"} {
		l, err := ParseLengths(in)
		if err != nil || l.String() != want {
			t.Errorf("ParseLengths(%q) = %v, %v", in, l, err)
		}
	}
	for _, in := range []string{"", "0", "-3", "5-2", "a-b", "normal:0,1", "normal:5", "normal:5,-1", "normal:inf,1", "1.5"} {
		if _, err := ParseLengths(in); err == nil {
			t.Errorf("ParseLengths(%q) accepted", in)
		}
	}
}

// FuzzDatasets checks that the readers never panic, that every prompt they
// accept has a positive or absent output length, and that LoadDataset's
// sniffing agrees with the readers.
func FuzzDatasets(f *testing.F) {
	f.Add([]byte(`{"prompt": "a", "output_tokens": 3}` + "\n"))
	f.Add([]byte(`[{"conversations": [{"value": "a"}, {"value": "b"}]}]`))
	f.Add([]byte("[\n{\"conversations\": 3}]"))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, read := range []func() (*Dataset, error){
			func() (*Dataset, error) { return ReadJSONL(bytes.NewReader(in), "f") },
			func() (*Dataset, error) { return ReadShareGPT(bytes.NewReader(in), "f") },
		} {
			ds, err := read()
			if err != nil {
				continue
			}
			if len(ds.Prompts) == 0 || len(ds.SHA256) != 64 {
				t.Fatalf("accepted dataset %+v", ds)
			}
			for _, p := range ds.Prompts {
				if p.OutputTokens < 0 {
					t.Fatalf("negative output length %+v", p)
				}
			}
		}
	})
}
