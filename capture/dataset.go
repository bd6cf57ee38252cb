package capture

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A Prompt is one dataset entry.
type Prompt struct {
	Text string
	// OutputTokens is the expected output length, sent as max_tokens
	// (max_completion_tokens for chat); 0 means Options.MaxTokens.
	OutputTokens int
}

// A Dataset is the prompts of a capture and where they came from.
type Dataset struct {
	// Name is the file path, or a description of a synthetic dataset.
	Name string
	// Format is "jsonl", "sharegpt" or "synthetic".
	Format string
	// SHA256 is the hex SHA-256 of the file's bytes (of the canonical JSONL
	// rendering for a synthetic dataset), recorded in the inventory.
	SHA256  string
	Prompts []Prompt
	// Skipped counts entries a reader passed over (ShareGPT conversations
	// with fewer than two turns), as vLLM does.
	Skipped int
}

// A DatasetError is a problem at one line of a dataset file.
type DatasetError struct {
	File   string
	Line   int
	Column int
	Err    error
}

func (e *DatasetError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("%s:%d:%d: %v", e.File, e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

func (e *DatasetError) Unwrap() error { return e.Err }

// ErrEmptyDataset is wrapped by the error for a dataset without prompts.
var ErrEmptyDataset = errors.New("dataset has no prompts")

// LoadDataset reads a dataset file: ShareGPT JSON when its first
// non-blank byte is '[', JSONL otherwise.
func LoadDataset(path string) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	first := byte(0)
	head, _ := br.Peek(64 << 10) // an error shows again on reading
	if t := bytes.TrimLeft(head, " \t\r\n\ufeff"); len(t) > 0 {
		first = t[0]
	}
	if first == '[' {
		return ReadShareGPT(br, path)
	}
	return ReadJSONL(br, path)
}

// jsonlRecord is one JSONL line. The output length may be given under
// any of the names tools use for it.
type jsonlRecord struct {
	Prompt       *string `json:"prompt"`
	OutputTokens *int    `json:"output_tokens"`
	OutputLen    *int    `json:"output_len"`
	MaxTokens    *int    `json:"max_tokens"`
}

// ReadJSONL reads one JSON object per line with a string "prompt" and
// optionally an expected output length ("output_tokens", "output_len" or
// "max_tokens", a positive integer). Blank lines are skipped; any other
// malformed line is an error naming the line.
func ReadJSONL(r io.Reader, name string) (*Dataset, error) {
	h := sha256.New()
	sc := bufio.NewScanner(io.TeeReader(r, h))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	ds := &Dataset{Name: name, Format: "jsonl"}
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		bad := func(err error) error { return &DatasetError{File: name, Line: line, Err: err} }
		var rec jsonlRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				return nil, &DatasetError{File: name, Line: line, Column: int(se.Offset), Err: errors.New("malformed JSON: " + se.Error())}
			}
			return nil, bad(err)
		}
		if rec.Prompt == nil {
			return nil, bad(errors.New(`no "prompt" string`))
		}
		p := Prompt{Text: *rec.Prompt}
		for _, n := range []*int{rec.OutputTokens, rec.OutputLen, rec.MaxTokens} {
			if n == nil {
				continue
			}
			if *n <= 0 {
				return nil, bad(fmt.Errorf("output length must be positive, got %d", *n))
			}
			p.OutputTokens = *n
			break
		}
		ds.Prompts = append(ds.Prompts, p)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &DatasetError{File: name, Line: line + 1, Err: errors.New("line longer than 64 MiB")}
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(ds.Prompts) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrEmptyDataset)
	}
	ds.SHA256 = hex.EncodeToString(h.Sum(nil))
	return ds, nil
}

// shareGPTRecord is one conversation of a ShareGPT file.
type shareGPTRecord struct {
	Conversations []struct {
		From  string `json:"from"`
		Value string `json:"value"`
	} `json:"conversations"`
}

// ReadShareGPT reads a ShareGPT JSON array. As vLLM's ShareGPT dataset
// does, it skips conversations with fewer than two turns and takes the
// first turn as the prompt. The reply's length is in words, not tokens, so
// it is not used: without a tokenizer verdict does not guess output
// lengths, and max_tokens comes from Options.MaxTokens.
func ReadShareGPT(r io.Reader, name string) (*Dataset, error) {
	h := sha256.New()
	cr := &countReader{r: io.TeeReader(r, h)}
	dec := json.NewDecoder(cr)
	ds := &Dataset{Name: name, Format: "sharegpt"}
	fail := func(err error) error {
		line, col := cr.position(dec.InputOffset())
		return &DatasetError{File: name, Line: line, Column: col, Err: err}
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fail(fmt.Errorf("malformed JSON: %w", err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fail(errors.New("a ShareGPT file is a JSON array of conversations"))
	}
	for dec.More() {
		var rec shareGPTRecord
		if err := dec.Decode(&rec); err != nil {
			return nil, fail(fmt.Errorf("conversation %d: %w", len(ds.Prompts)+ds.Skipped, err))
		}
		if len(rec.Conversations) < 2 {
			ds.Skipped++
			continue
		}
		ds.Prompts = append(ds.Prompts, Prompt{Text: rec.Conversations[0].Value})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fail(fmt.Errorf("malformed JSON: %w", err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail(errors.New("data after the array"))
	}
	if _, err := io.Copy(io.Discard, cr); err != nil { // hash every byte
		return nil, err
	}
	if len(ds.Prompts) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrEmptyDataset)
	}
	ds.SHA256 = hex.EncodeToString(h.Sum(nil))
	return ds, nil
}

// countReader remembers what passed through it to turn a byte offset into
// a line and column for errors. It keeps the offsets of line starts only.
type countReader struct {
	r     io.Reader
	n     int64
	lines []int64 // offsets just after each '\n'
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			c.lines = append(c.lines, c.n+int64(i)+1)
		}
	}
	c.n += int64(n)
	return n, err
}

func (c *countReader) position(off int64) (line, col int) {
	line, start := 1, int64(0)
	for _, l := range c.lines {
		if l > off {
			break
		}
		line++
		start = l
	}
	return line, int(off-start) + 1
}

// A Lengths is a distribution of token counts: Fixed, a uniform integer
// range [Min, Max], or a normal distribution (Mean, SD) rounded and
// clamped to at least 1.
type Lengths struct {
	Kind     string // "fixed", "uniform" or "normal"
	Min, Max int    // fixed uses Min
	Mean, SD float64
}

// ParseLengths reads "N" (fixed), "LO-HI" (uniform, inclusive) or
// "normal:MEAN,SD".
func ParseLengths(s string) (Lengths, error) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "normal:"); ok {
		m, sd, ok := strings.Cut(rest, ",")
		mean, err1 := strconv.ParseFloat(strings.TrimSpace(m), 64)
		dev, err2 := strconv.ParseFloat(strings.TrimSpace(sd), 64)
		if !ok || err1 != nil || err2 != nil || !(mean >= 1) || !(dev >= 0) || math.IsInf(mean, 0) || math.IsInf(dev, 0) {
			return Lengths{}, fmt.Errorf("lengths %q: want normal:MEAN,SD with MEAN >= 1 and SD >= 0", s)
		}
		return Lengths{Kind: "normal", Mean: mean, SD: dev}, nil
	}
	if lo, hi, ok := strings.Cut(s, "-"); ok {
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b, err2 := strconv.Atoi(strings.TrimSpace(hi))
		if err1 != nil || err2 != nil || a < 1 || b < a {
			return Lengths{}, fmt.Errorf("lengths %q: want LO-HI with 1 <= LO <= HI", s)
		}
		return Lengths{Kind: "uniform", Min: a, Max: b}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return Lengths{}, fmt.Errorf("lengths %q: want a positive count, LO-HI or normal:MEAN,SD", s)
	}
	return Lengths{Kind: "fixed", Min: n, Max: n}, nil
}

func (l Lengths) String() string {
	switch l.Kind {
	case "uniform":
		return fmt.Sprintf("%d-%d", l.Min, l.Max)
	case "normal":
		return "normal:" + strconv.FormatFloat(l.Mean, 'g', -1, 64) + "," + strconv.FormatFloat(l.SD, 'g', -1, 64)
	}
	return strconv.Itoa(l.Min)
}

func (l Lengths) draw(rng *rand.Rand) int {
	switch l.Kind {
	case "uniform":
		return l.Min + rng.IntN(l.Max-l.Min+1)
	case "normal":
		return max(1, int(math.Round(l.Mean+l.SD*rng.NormFloat64())))
	}
	return max(l.Min, 1)
}

// Synthetic describes a generated dataset.
type Synthetic struct {
	N      int     // prompts
	Input  Lengths // prompt length in words
	Output Lengths // expected output length in tokens (max_tokens)
	Seed   uint64
}

// vocabulary holds common English words that most tokenizers encode as
// one token each when preceded by a space, so a prompt of N words is
// close to N tokens. The server's usage gives the exact count.
var vocabulary = strings.Fields(`the of and to in is that for it as was with be by on not he this are or his from at which
but have an they you were her she there been one all we their has would when if so no will more can who
said out up about them some could what into than other time only new very after made two first also
over any like these years may most well where then before back way many must through good much should
because each people those year work state just under great long day same three while last might between`)

// Generate builds the dataset. The same Synthetic gives the same prompts
// and the same SHA-256.
func (s Synthetic) Generate() (*Dataset, error) {
	if s.N < 1 {
		return nil, fmt.Errorf("synthetic dataset: %w", ErrEmptyDataset)
	}
	for _, l := range []Lengths{s.Input, s.Output} {
		if l.Kind == "" {
			return nil, errors.New("synthetic dataset: input and output lengths are required")
		}
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x5e17))
	ds := &Dataset{Format: "synthetic",
		Name: fmt.Sprintf("synthetic n=%d input=%s output=%s seed=%d", s.N, s.Input, s.Output, s.Seed)}
	h := sha256.New()
	var b strings.Builder
	for range s.N {
		n := s.Input.draw(rng)
		b.Reset()
		for j := range n {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(vocabulary[rng.IntN(len(vocabulary))])
		}
		p := Prompt{Text: b.String(), OutputTokens: s.Output.draw(rng)}
		ds.Prompts = append(ds.Prompts, p)
		line, _ := json.Marshal(map[string]any{"prompt": p.Text, "output_tokens": p.OutputTokens})
		h.Write(append(line, '\n'))
	}
	ds.SHA256 = hex.EncodeToString(h.Sum(nil))
	return ds, nil
}

// datasetLabel is the inventory's dataset name: the file's base name, or
// the synthetic description.
func (d *Dataset) label() string {
	if d.Format == "synthetic" {
		return d.Name
	}
	return filepath.Base(d.Name)
}
