package anthropictest

import (
	"encoding/json"
	"testing"

	"github.com/wieldhq/wield/llm"
)

// request decodes a request body for the cache tests.
func request(t *testing.T, system string, msgs ...string) *Request {
	t.Helper()
	body := `{"model":"m","max_tokens":10,"system":` + system + `,"messages":[`
	for i, m := range msgs {
		if i > 0 {
			body += ","
		}
		body += m
	}
	body += `]}`
	req := &Request{Body: json.RawMessage(body)}
	if err := decode(req); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return req
}

func TestCacheSimulation(t *testing.T) {
	const (
		system  = `[{"type":"text","text":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","cache_control":{"type":"ephemeral"}}]`
		other   = `[{"type":"text","text":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","cache_control":{"type":"ephemeral"}}]`
		plain   = `[{"type":"text","text":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}]`
		user1   = `{"role":"user","content":"first question"}`
		answer1 = `{"role":"assistant","content":[{"type":"text","text":"first answer","cache_control":{"type":"ephemeral"}}]}`
		user2   = `{"role":"user","content":"second question"}`
	)
	// ceil(bytes/4) of each part as the server serializes it.
	sys := tokens(len(`{"type":"text","text":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}`))
	u1 := tokens(len(`{"type":"text","text":"first question"}`))
	a1 := tokens(len(`{"type":"text","text":"first answer"}`))
	u2 := tokens(len(`{"type":"text","text":"second question"}`))

	var c cache
	steps := []struct {
		name string
		req  *Request
		want llm.Usage
	}{
		{"first request writes up to its breakpoint", request(t, system, user1),
			llm.Usage{InputTokens: sys + u1, CacheWriteTokens: sys}},
		{"the same prefix is read", request(t, system, user1, answer1, user2),
			llm.Usage{InputTokens: sys + u1 + a1 + u2, CachedTokens: sys, CacheWriteTokens: u1 + a1}},
		{"the longer prefix is read next time", request(t, system, user1, answer1, user2, answer1, user2),
			llm.Usage{InputTokens: sys + u1 + 2*a1 + 2*u2, CachedTokens: sys + u1 + a1, CacheWriteTokens: u2 + a1}},
		{"another system prompt misses", request(t, other, user1),
			llm.Usage{InputTokens: sys + u1, CacheWriteTokens: sys}},
		{"without breakpoints nothing is written, but a remembered prefix is read", request(t, plain, user1),
			llm.Usage{InputTokens: sys + u1, CachedTokens: sys}},
	}
	for _, s := range steps {
		if got := c.use(s.req); got != s.want {
			t.Errorf("%s: usage %+v, want %+v", s.name, got, s.want)
		}
	}
}
