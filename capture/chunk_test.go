package capture

import (
	"encoding/json"
	"strings"
	"testing"
)

// The reference decoding: what json.Unmarshal makes of a chunk. The fast
// decoder must agree with it on every input.

// chunk is the part of a streamed chunk, or of a whole non-streamed
// response, that timing and accounting need.
type chunk struct {
	Choices []choice  `json:"choices"`
	Usage   *usage    `json:"usage"`
	Error   *apiError `json:"error"`
}

type choice struct {
	Text  *string `json:"text"`
	Delta *struct {
		Content          *string `json:"content"`
		ReasoningContent *string `json:"reasoning_content"`
		Reasoning        *string `json:"reasoning"`
	} `json:"delta"`
	Message *struct {
		Content          *string `json:"content"`
		ReasoningContent *string `json:"reasoning_content"`
		Reasoning        *string `json:"reasoning"`
	} `json:"message"`
}

// answer reports whether the choice carries answer content, and reasoning
// whether it carries reasoning content.
func (c *choice) content() (answer, reasoning bool) {
	nonEmpty := func(s *string) bool { return s != nil && *s != "" }
	if nonEmpty(c.Text) {
		answer = true
	}
	if d := c.Delta; d != nil {
		answer = answer || nonEmpty(d.Content)
		reasoning = nonEmpty(d.ReasoningContent) || nonEmpty(d.Reasoning)
	}
	if m := c.Message; m != nil {
		answer = answer || nonEmpty(m.Content)
		reasoning = reasoning || nonEmpty(m.ReasoningContent) || nonEmpty(m.Reasoning)
	}
	return answer, reasoning
}

type usage struct {
	PromptTokens            *int64 `json:"prompt_tokens"`
	CompletionTokens        *int64 `json:"completion_tokens"`
	CompletionTokensDetails *struct {
		ReasoningTokens *int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func refInfo(data []byte) (chunkInfo, error) {
	var ch chunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return chunkInfo{}, err
	}
	ci := chunkInfo{choices: len(ch.Choices), prompt: -1, completion: -1, reasoningTokens: -1}
	for i := range ch.Choices {
		a, r := ch.Choices[i].content()
		ci.answer = ci.answer || a
		ci.reasoning = ci.reasoning || r
	}
	if u := ch.Usage; u != nil {
		if u.PromptTokens != nil {
			ci.prompt = *u.PromptTokens
		}
		if u.CompletionTokens != nil {
			ci.completion = *u.CompletionTokens
		}
		if d := u.CompletionTokensDetails; d != nil && d.ReasoningTokens != nil {
			ci.reasoningTokens = *d.ReasoningTokens
		}
	}
	if ch.Error != nil {
		ci.hasError, ci.errMsg = true, ch.Error.Message
	}
	return ci, nil
}

var chunkSeeds = []string{
	`{"id":"cmpl-1","object":"text_completion","created":0,"model":"m","choices":[{"index":0,"text":" t","logprobs":null,"finish_reason":null}]}`,
	`{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
	`{"choices":[{"delta":{"reasoning_content":"hm"}},{"delta":{"content":"x"}}]}`,
	`{"choices":[{"delta":{"reasoning":"hm","content":null}}]}`,
	`{"choices":[{"message":{"role":"assistant","content":"all","reasoning_content":"r"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}`,
	`{"id":"x","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"completion_tokens_details":{"reasoning_tokens":2}}}`,
	`{"error":{"object":"error","message":"boom \u00e9","type":"BadRequestError","code":400}}`,
	`{"error":"overloaded"}`, `{"error":null,"choices":null,"usage":null}`, `null`, ` {"Choices":[{"TEXT":"a"}]} `,
	`{"choices":[{"delta":{"content":"a"},"delta":{"role":"x"}}]}`, `{"choices":[{"delta":{"content":"a"},"delta":null}]}`,
	`{"usage":{"prompt_tokens":1},"usage":{"completion_tokens":2}}`, `{"usage":{"prompt_tokens":1.5}}`, `{"usage":{"prompt_tokens":"1"}}`,
	`{"usage":{"prompt_tokens":99999999999999999999}}`, `{"choices":[5]}`, `{"choices":{}}`, `{"choices":[{"text":3}]}`,
	`{"error":5}`, `{"error":{"message":5}}`, `{"error":"a","error":{"type":"t"}}`, `{"error":{"message":"a"},"error":{"message":null}}`,
	`{"\u0063hoices":[{"text":"x"}]}`, `{"choi\u017Fes":[]}`, `{"choices":[{"text":"x"}],}`, `{"a":[1,2,}`, `{"a":tru}`, `{"a":01}`,
	`{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":\"\t\"}", `[]`, `"s"`, `{} {}`, `{"a":1}x`, ``,
	`{"choices":[null,{"text":""}]}`, `{"choices":[{"text":"a"}],"choices":[]}`, `{"usage":{"completion_tokens_details":{"reasoning_tokens":-3}}}`,
	`{"usage":{"completion_tokens_details":[]}}`, `{"choices":[{"delta":"x"}]}`, `{"error":{"message":"m","code":{"a":[true,false,null]}}}`,
}

func checkChunk(t *testing.T, in []byte) {
	t.Helper()
	want, werr := refInfo(in)
	var got chunkInfo
	gerr := decodeChunk(in, &got)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q: json.Unmarshal error %v, fast decoder error %v", in, werr, gerr)
	}
	if werr == nil && got != want {
		t.Fatalf("%q: json.Unmarshal gives %+v, fast decoder %+v", in, want, got)
	}
}

func TestDecodeChunk(t *testing.T) {
	for _, s := range chunkSeeds {
		checkChunk(t, []byte(s))
	}
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	checkChunk(t, []byte(`{"a":`+deep+`}`))
	ok := strings.Repeat("[", 9999) + strings.Repeat("]", 9999)
	checkChunk(t, []byte(`{"a":`+ok+`}`))
}

// FuzzDecodeChunk holds the fast decoder to json.Unmarshal's results.
func FuzzDecodeChunk(f *testing.F) {
	for _, s := range chunkSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkChunk(t, in)
	})
}

func BenchmarkDecodeChunk(b *testing.B) {
	in := []byte(chunkSeeds[0])
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		var ci chunkInfo
		for b.Loop() {
			if err := decodeChunk(in, &ci); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := refInfo(in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
