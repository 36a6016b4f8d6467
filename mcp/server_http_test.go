package mcp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestHTTP(t *testing.T) {
	srv, err := NewServer(testTools(t, nil), &ServerOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []HTTPOptions{{}, {JSONResponse: true}, {Stateless: true, JSONResponse: true}, {Token: "s3cret"}} {
		hs := httptest.NewServer(srv.HTTPHandler(&o))
		client := hs.Client()
		if o.Token != "" {
			// Without the token: refused.
			resp, err := client.Post(hs.URL, "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("no token: status %d, want 401", resp.StatusCode)
			}
			client = &http.Client{Transport: bearer{o.Token, http.DefaultTransport}}
		}
		progress := make(chan float64, 10)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, &sdk.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) { progress <- r.Params.Progress },
		}).Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: client}, nil)
		if err != nil {
			t.Fatalf("%+v: connect: %v", o, err)
		}
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "over http"}})
		if err != nil || textOf(res) != "over http" {
			t.Errorf("%+v: echo: %v %v", o, res, err)
		}
		if !o.JSONResponse {
			// Progress comes on the call's event stream, before its answer.
			p := &sdk.CallToolParams{Name: "wait", Arguments: map[string]any{"steps": 3}}
			p.SetProgressToken("tok")
			if res, err := cs.CallTool(t.Context(), p); err != nil || res.IsError {
				t.Fatalf("%+v: wait: %v %s", o, err, textOf(res))
			}
			// The client may handle them after the answer, in any order.
			got := []float64{<-progress, <-progress, <-progress}
			slices.Sort(got)
			if !slices.Equal(got, []float64{1, 2, 3}) {
				t.Errorf("%+v: progress %v, want 1, 2, 3", o, got)
			}
		}
		cs.Close()
		hs.Close()
	}
}

type bearer struct {
	token string
	rt    http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.rt.RoundTrip(r)
}

func TestCheckListenAddr(t *testing.T) {
	tests := []struct {
		addr   string
		remote bool
		token  string
		want   string
		is     error // the sentinel the error wraps, if any
	}{
		{"127.0.0.1:8080", false, "", "", nil},
		{"localhost:0", false, "", "", nil},
		{"[::1]:9", false, "", "", nil},
		{"0.0.0.0:8080", false, "", "not a loopback address", ErrNotLoopback},
		{"0.0.0.0:8080", true, "", "without a bearer token", ErrNoToken},
		{"0.0.0.0:8080", true, "t", "", nil},
		{"8080", false, "", "HOST:PORT", nil},
	}
	for _, tt := range tests {
		err := CheckListenAddr(tt.addr, tt.remote, tt.token)
		if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CheckListenAddr(%q, %v, %q) = %v, want %q", tt.addr, tt.remote, tt.token, err, tt.want)
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("CheckListenAddr(%q, %v, %q) = %v, want an error wrapping %v", tt.addr, tt.remote, tt.token, err, tt.is)
		}
		// The library names no command-line flags: cmd/wield adds them.
		if err != nil && strings.Contains(err.Error(), "--") {
			t.Errorf("CheckListenAddr(%q, %v, %q) = %v, which names a flag", tt.addr, tt.remote, tt.token, err)
		}
	}
}

func TestHTTPRefusesOtherOrigins(t *testing.T) {
	srv, err := NewServer(testTools(t, nil), &ServerOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.HTTPHandler(&HTTPOptions{JSONResponse: true}))
	defer hs.Close()
	host := strings.TrimPrefix(hs.URL, "http://")
	tests := []struct {
		name         string
		host, origin string
		fetchSite    string
		want         int
	}{
		{"no browser headers", "", "", "", http.StatusOK},
		{"same origin", "", "http://" + host, "", http.StatusOK},
		{"rebound host", "evil.example.com", "http://evil.example.com", "", http.StatusForbidden},
		{"other origin", "", "http://evil.example.com", "", http.StatusForbidden},
		{"cross-site fetch", "", "", "cross-site", http.StatusForbidden},
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, hs.URL, strings.NewReader(initialize))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.host != "" {
				req.Host = tt.host
			}
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			if tt.fetchSite != "" {
				req.Header.Set("Sec-Fetch-Site", tt.fetchSite)
			}
			resp, err := hs.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tt.want, body)
			}
		})
	}
}
