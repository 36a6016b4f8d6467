package catalog

import (
	"context"

	"github.com/wieldhq/wield/llm"
)

// Cost returns what u costs with m's prices, in US dollars, and whether
// the prices are known (a local model costs nothing and is known).
//
// Prompt tokens are priced in three parts: those read from the cache at
// CachedInput, those written to it at CacheWrite, the rest at Input. A
// request whose prompt is longer than the long-context threshold is priced
// at that tier, all of it, as the providers bill it.
func (m Model) Cost(u llm.Usage) (float64, bool) {
	if m.Local {
		return 0, true
	}
	if m.Price == nil {
		return 0, false
	}
	in, cached, write, out := m.Price.Input, m.Price.CachedInput, m.Price.CacheWrite, m.Price.Output
	if t := m.Price.LongContext; t != nil && u.InputTokens > t.Above {
		in, cached, out = t.Input, t.CachedInput, t.Output
	}
	if cached == 0 {
		cached = in
	}
	if write == 0 {
		write = in
	}
	plain := max(u.InputTokens-u.CachedTokens-u.CacheWriteTokens, 0)
	usd := float64(plain)*in + float64(u.CachedTokens)*cached + float64(u.CacheWriteTokens)*write + float64(u.OutputTokens)*out
	return usd / 1e6, true
}

// A Metered provider fills in the cost of every response it passes on.
type Metered struct {
	p     llm.Provider
	model Model
	known bool
}

// Meter returns a provider that calls p and sets each response's
// Usage.Cost from ch's prices. When the prices are unknown, responses pass
// unchanged (Cost stays zero; [Metered.Known] says so).
func Meter(p llm.Provider, ch Choice) *Metered {
	m := &Metered{p: p, model: ch.Info}
	_, m.known = ch.Info.Cost(llm.Usage{})
	m.known = m.known && ch.Known
	return m
}

// Known reports whether the model's prices are known.
func (m *Metered) Known() bool { return m.known }

// Stream calls the wrapped provider; see [llm.Provider].
func (m *Metered) Stream(ctx context.Context, req *llm.Request, handle func(llm.Event)) (*llm.Response, error) {
	resp, err := m.p.Stream(ctx, req, handle)
	if err == nil && resp != nil && m.known {
		resp.Usage.Cost, _ = m.model.Cost(resp.Usage)
	}
	return resp, err
}
