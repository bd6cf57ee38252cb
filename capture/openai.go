package capture

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// An API is the OpenAI-compatible endpoint kind.
type API string

// APIs capture speaks.
const (
	APICompletions API = "completions"      // POST /v1/completions, prompt -> choices[].text
	APIChat        API = "chat_completions" // POST /v1/chat/completions, messages -> choices[].delta
)

// APIFromURL returns the API of an endpoint URL from its path.
func APIFromURL(endpoint string) (API, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", fmt.Errorf("endpoint: %w", err)
	}
	switch p := strings.TrimRight(u.Path, "/"); {
	case strings.HasSuffix(p, "/chat/completions"):
		return APIChat, nil
	case strings.HasSuffix(p, "/completions"):
		return APICompletions, nil
	}
	return "", fmt.Errorf("endpoint %s: the path must end in /v1/completions or /v1/chat/completions", RedactURL(endpoint))
}

// RedactURL returns the URL without user information, query or fragment,
// which is how endpoints are recorded: credentials sometimes travel there.
func RedactURL(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "(unparseable URL)"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

// apiError is an OpenAI error object.
type apiError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
}

// UnmarshalJSON accepts an error given as a string as well as an object.
func (e *apiError) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		e.Message = s
		return nil
	}
	type plain apiError
	return json.Unmarshal(b, (*plain)(e))
}

// errorMessage extracts a short message from an error response body.
func errorMessage(body []byte) string {
	var v struct {
		Error   *apiError `json:"error"`
		Message string    `json:"message"`
		Detail  any       `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		switch {
		case v.Error != nil && v.Error.Message != "":
			return v.Error.Message
		case v.Message != "":
			return v.Message
		case v.Detail != nil:
			return fmt.Sprint(v.Detail)
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// requestBody builds the JSON body of one request.
func requestBody(api API, model, prompt string, maxTokens int, stream, includeUsage bool, extra map[string]any) ([]byte, error) {
	body := make(map[string]any, 6+len(extra))
	for k, v := range extra {
		body[k] = v
	}
	body["model"] = model
	switch api {
	case APIChat:
		body["messages"] = []map[string]string{{"role": "user", "content": prompt}}
		if maxTokens > 0 {
			body["max_completion_tokens"] = maxTokens
		}
	default:
		body["prompt"] = prompt
		if maxTokens > 0 {
			body["max_tokens"] = maxTokens
		}
	}
	body["stream"] = stream
	if stream && includeUsage {
		body["stream_options"] = map[string]any{"include_usage": true}
	}
	return json.Marshal(body)
}
