package capture

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/capture/fakeserver"
	"github.com/verdict-llm/verdict/schemas"
)

func TestResolveEndpoint(t *testing.T) {
	cases := []struct {
		in      string
		api     API
		want    string
		wantAPI API
		err     string
	}{
		{"http://h:8000", "", "http://h:8000/v1/completions", APICompletions, ""},
		{"http://h:8000/", APIChat, "http://h:8000/v1/chat/completions", APIChat, ""},
		{"http://h:8000/v1", "", "http://h:8000/v1/completions", APICompletions, ""},
		{"http://h:8000/v1/", APIChat, "http://h:8000/v1/chat/completions", APIChat, ""},
		{"https://gw.example/openai/v1?api-version=2024-10", APIChat, "https://gw.example/openai/v1/chat/completions?api-version=2024-10", APIChat, ""},
		{"http://h:8000/v1/completions", "", "http://h:8000/v1/completions", APICompletions, ""},
		{"http://h:8000/v1/completions", APICompletions, "http://h:8000/v1/completions", APICompletions, ""},
		{"http://h:8000/v1/chat/completions", "", "http://h:8000/v1/chat/completions", APIChat, ""},
		{"http://h:8000/v1/chat/completions?key=sekrit", "", "http://h:8000/v1/chat/completions?key=sekrit", APIChat, ""},
		{"http://h:8000/v1/chat/completions", APICompletions, "", "", "is the chat_completions API but --api asks for completions"},
		{"http://h:8000/v1/embeddings", "", "", "", "give a base URL"},
		{"http://h:8000/proxy", APIChat, "", "", "give a base URL"},
		{"ftp://h/v1", "", "", "", "want an http:// or https:// URL"},
		{"h:8000", "", "", "", "want an http:// or https:// URL"},
		{"http://u:p4ssw0rd@h:80x0/v1", "", "", "", "endpoint http://h:80x0/v1 (unparseable)"},
	}
	for _, c := range cases {
		got, api, err := ResolveEndpoint(c.in, c.api)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "p4ssw0rd") || strings.Contains(err.Error(), "sekrit") {
				t.Errorf("ResolveEndpoint(%q, %q): %v, want an error with %q", c.in, c.api, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want || api != c.wantAPI {
			t.Errorf("ResolveEndpoint(%q, %q) = %q, %q, %v; want %q, %q", c.in, c.api, got, api, err, c.want, c.wantAPI)
		}
	}
	for in, want := range map[string]API{"": "", "completions": APICompletions, "chat": APIChat, "chat_completions": APIChat} {
		if got, err := ParseAPI(in); err != nil || got != want {
			t.Errorf("ParseAPI(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseAPI("embeddings"); err == nil {
		t.Error("ParseAPI(embeddings): no error")
	}
}

// closedPort returns an address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestPreflight(t *testing.T) {
	const key = "sk-preflight-0123456789"
	_, fake := startServer(t, quick)
	_, keyed := startServer(t, fakeserver.Config{APIKey: key + "x"})
	// A server whose 404 quotes the request's key over several lines.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error": {"message": "The model 'm' does not exist.\n\tkey: ` + r.Header.Get("Authorization") + `", "type": "NotFoundError", "code": 404}}`))
	}))
	defer echo.Close()
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"message": "engine busy"}`))
	}))
	defer flaky.Close()
	ds := synthetic(t, 2, "5", "3")
	cases := []struct {
		name, endpoint string
		fatal          string // the PreflightError's cause must contain it
		problem        string
	}{
		{"ok", fake + "/v1/completions", "", ""},
		{"chat", fake + "/v1/chat/completions", "", ""},
		{"closed port", "http://" + closedPort(t) + "/v1/completions", "connection refused", ""},
		{"wrong path", fake + "/v2/completions", "HTTP 404: not found: /v2/completions", ""},
		{"unknown model", echo.URL + "/v1/completions", "HTTP 404: The model 'm' does not exist. key: Bearer [REDACTED]", ""},
		{"no key", keyed + "/v1/completions", "HTTP 401: invalid or missing API key", ""},
		{"server error", flaky.URL + "/v1/completions", "", "HTTP 503: engine busy"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := Options{Endpoint: c.endpoint, Model: "m", APIKey: key, Dataset: ds, Scenario: schemas.ScenarioSingleStream, NumPrompts: 1}
			p, err := RunPreflight(t.Context(), o)
			var pe *PreflightError
			switch {
			case c.fatal != "":
				if !errors.As(err, &pe) || !strings.Contains(pe.Cause, c.fatal) {
					t.Fatalf("got %v, %v; want a PreflightError with %q", p, err, c.fatal)
				}
				if strings.Contains(err.Error(), key) || strings.Contains(err.Error(), "\n") {
					t.Errorf("message not sanitized: %q", err)
				}
			case err != nil:
				t.Fatal(err)
			case p.Problem != c.problem:
				t.Errorf("problem %q, want %q", p.Problem, c.problem)
			}
		})
	}
}

func TestTidyMessage(t *testing.T) {
	cases := []struct {
		in   string
		max  int
		want string
	}{
		{"  a\n\tb  \r\n c ", 200, "a b c"},
		{"x\x00\x1b[31my", 200, "x [31my"},
		{"bad \xff utf8", 200, "bad \uFFFD utf8"},
		{strings.Repeat("é", 5), 4, "éééé..."},
		{strings.Repeat("é", 4), 4, "éééé"},
	}
	for _, c := range cases {
		if got := tidyMessage(c.in, c.max); got != c.want {
			t.Errorf("tidyMessage(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
