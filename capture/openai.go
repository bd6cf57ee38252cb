package capture

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
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
		// url.Error quotes the whole URL, password and query included.
		msg := err.Error()
		if ue, ok := err.(*url.Error); ok {
			msg = ue.Err.Error()
		}
		return "", fmt.Errorf("endpoint %s: %s", RedactURL(endpoint), Redact(msg, Secrets(endpoint, nil)))
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
// A URL that does not parse is cut the same way by hand.
func RedactURL(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		s, _, _ := strings.Cut(endpoint, "?")
		s, _, _ = strings.Cut(s, "#")
		if i := strings.Index(s, "://"); i >= 0 {
			rest := s[i+3:]
			host, path, _ := strings.Cut(rest, "/")
			if at := strings.LastIndexByte(host, '@'); at >= 0 {
				host = host[at+1:]
			}
			s = s[:i+3] + host
			if path != "" {
				s += "/" + path
			}
		} else if at := strings.LastIndexByte(s, '@'); at >= 0 {
			s = s[at+1:]
		}
		return s + " (unparseable)"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

// Secrets lists what must never be shown or stored of an endpoint and
// its request headers: the URL's user name and password, the values of its
// query (api_key=...), every header value, and the extra values given
// (the API key). Values shorter than four bytes are left out (replacing
// them would garble any text).
func Secrets(endpoint string, headers map[string]string, extra ...string) []string {
	var out []string
	add := func(v string) {
		if len(v) >= 4 && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if u, err := url.Parse(endpoint); err == nil {
		if u.User != nil {
			add(u.User.Username())
			if p, ok := u.User.Password(); ok {
				add(p)
			}
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
			}
		}
		add(u.RawQuery)
	} else if i := strings.IndexAny(endpoint, "?@"); i >= 0 {
		// unparseable: everything after the scheme's host part may be secret
		if q := strings.IndexByte(endpoint, '?'); q >= 0 {
			add(endpoint[q+1:])
			for _, kv := range strings.Split(endpoint[q+1:], "&") {
				_, v, _ := strings.Cut(kv, "=")
				add(v)
			}
		}
		if s := strings.Index(endpoint, "://"); s >= 0 {
			if at := strings.LastIndexByte(endpoint, '@'); at > s {
				user, pass, _ := strings.Cut(endpoint[s+3:at], ":")
				add(user)
				add(pass)
			}
		}
	}
	for _, v := range headers {
		add(v)
		if _, tok, ok := strings.Cut(v, " "); ok { // "Bearer abc": the token alone too
			add(tok)
		}
	}
	for _, v := range extra {
		add(v)
	}
	// Longest first, so that a secret containing another is replaced whole.
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// secretParam finds key=value pairs whose key names a secret, in text a
// server echoed (an error body quoting the request URL).
var secretParam = regexp.MustCompile(`(?i)((?:api[_-]?key|access[_-]?token|token|secret|password|passwd|auth|key|sig|signature)=)[^&\s"'<>]+`)

// Redact replaces every secret in s, and every value of a secret-looking
// key=value pair, by [REDACTED].
func Redact(s string, secrets []string) string {
	for _, v := range secrets {
		if v != "" {
			s = strings.ReplaceAll(s, v, "[REDACTED]")
		}
	}
	return secretParam.ReplaceAllString(s, "${1}[REDACTED]")
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
	s := string(body)
	if json.Unmarshal(body, &v) == nil {
		switch {
		case v.Error != nil && v.Error.Message != "":
			s = v.Error.Message
		case v.Message != "":
			s = v.Message
		case v.Detail != nil:
			s = fmt.Sprint(v.Detail)
		}
	}
	return tidyMessage(s, 200)
}

// tidyMessage makes text a server sent fit one line of output: runs of
// white space and control characters become one space, invalid UTF-8 is
// replaced, and the text is cut to max runes with "...".
func tidyMessage(s string, max int) string {
	var b strings.Builder
	n, space := 0, false
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if n == max {
			b.WriteString("...")
			return b.String()
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
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

// ParseAPI reads an --api value: "completions" or "chat" (also
// "chat_completions"); "" is no choice.
func ParseAPI(s string) (API, error) {
	switch s {
	case "":
		return "", nil
	case "completions":
		return APICompletions, nil
	case "chat", "chat_completions", "chat-completions":
		return APIChat, nil
	}
	return "", fmt.Errorf("API %q: want completions or chat", s)
}

// apiPath is the path an API's requests go to below /v1.
var apiPath = map[API]string{APICompletions: "/completions", APIChat: "/chat/completions"}

// ResolveEndpoint turns what a user gives as the endpoint into the URL
// requests are sent to, as GuideLLM's --target and AIPerf's --url take a
// server's base URL:
//
//   - a full path (.../v1/completions or .../v1/chat/completions) is used
//     as given; api, when set, must agree with it;
//   - a base URL (http://host:8000, or any path ending in /v1, such as
//     http://host:8000/v1 or https://gw/openai/v1) gets /v1 (where
//     missing) and the API's path appended: api, or completions when
//     api is "" (vllm bench serve's default backend);
//   - any other path is refused, since appending to it would be a guess.
//
// The query is kept (some gateways take api-version=... there).
func ResolveEndpoint(endpoint string, api API) (string, API, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		_, err := APIFromURL(endpoint) // the redacted parse error
		return "", "", err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", "", fmt.Errorf("endpoint %s: want an http:// or https:// URL", RedactURL(endpoint))
	}
	if got, err := APIFromURL(endpoint); err == nil {
		if api != "" && api != got {
			return "", "", fmt.Errorf("endpoint %s is the %s API but --api asks for %s: give the base URL, or the full path of the API wanted", RedactURL(endpoint), got, api)
		}
		return endpoint, got, nil
	}
	if api == "" {
		api = APICompletions
	}
	p := strings.TrimRight(u.Path, "/")
	switch {
	case p == "":
		p = "/v1"
	case strings.HasSuffix(p, "/v1"):
	default:
		return "", "", fmt.Errorf("endpoint %s: give a base URL (http://host:port or .../v1) or the full path ending in /v1/completions or /v1/chat/completions", RedactURL(endpoint))
	}
	u.Path, u.RawPath = p+apiPath[api], ""
	return u.String(), api, nil
}
