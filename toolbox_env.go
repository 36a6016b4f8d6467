package main

import (
	"fmt"
	"log/slog"
	"net/netip"
	"strings"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/web"
)

// webTools returns web_search and web_fetch, configured from the
// environment:
//
//   - the search backend: SEARXNG_URL (a self-hosted SearXNG, preferred
//     when set), else BRAVE_API_KEY, else TAVILY_API_KEY, else
//     DuckDuckGo's key-less HTML page;
//   - WIELD_WEB_ALLOW: address ranges web_fetch may reach although they
//     are not public, comma-separated ("127.0.0.1/32,10.1.0.0/16"; a bare
//     address means itself). Unset means only public addresses.
//
// A bad WIELD_WEB_ALLOW entry is skipped with a warning; the tools still
// work.
func webTools(getenv func(string) string, log *slog.Logger) []*tool.Tool {
	cfg := web.Config{Searcher: webSearcher(getenv), Logger: log}
	for s := range strings.SplitSeq(getenv("WIELD_WEB_ALLOW"), ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := parsePrefix(s)
		if err != nil {
			log.Warn("WIELD_WEB_ALLOW: entry skipped", "entry", s, "err", err)
			continue
		}
		cfg.AllowAddrs = append(cfg.AllowAddrs, p)
	}
	ts, err := web.New(cfg)
	if err != nil {
		log.Warn("web tools left out", "err", err)
		return nil
	}
	return ts
}

// webSearcher picks the search backend the environment configures.
func webSearcher(getenv func(string) string) web.Searcher {
	switch {
	case strings.TrimSpace(getenv("SEARXNG_URL")) != "":
		return &web.SearXNG{BaseURL: strings.TrimSpace(getenv("SEARXNG_URL"))}
	case strings.TrimSpace(getenv("BRAVE_API_KEY")) != "":
		return &web.Brave{Key: strings.TrimSpace(getenv("BRAVE_API_KEY"))}
	case strings.TrimSpace(getenv("TAVILY_API_KEY")) != "":
		return &web.Tavily{Key: strings.TrimSpace(getenv("TAVILY_API_KEY"))}
	}
	return &web.DuckDuckGo{}
}

// parsePrefix reads "10.0.0.0/8" or a bare address.
func parsePrefix(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, fmt.Errorf("not an address range: %w", err)
		}
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("not an address: %w", err)
	}
	return netip.PrefixFrom(a, a.BitLen()), nil
}
