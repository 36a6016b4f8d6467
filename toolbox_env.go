package wield

import (
	"fmt"
	"log/slog"
	"net/netip"
	"net/url"
	"os"
	"runtime"
	"strings"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/git"
	"github.com/wieldhq/wield/tools/github"
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

// gitTools returns the git tools and the GitHub tools, the latter
// configured from the environment:
//
//   - the server: github.com, or the GitHub Enterprise Server that
//     GITHUB_API_URL (as GitHub Actions sets it) or GH_HOST (as gh reads
//     it) names;
//   - the token: GITHUB_TOKEN, else GH_TOKEN (GH_ENTERPRISE_TOKEN or
//     GITHUB_ENTERPRISE_TOKEN for an Enterprise server), else the one gh
//     keeps for the host in its hosts.yml. Without one the GitHub tools
//     read public repositories only.
//
// git_commit runs the repository's hooks only with hooks set (a trusted
// workspace). A bad setting is a warning: the GitHub tools are left out, the git
// tools still work.
func gitTools(getenv func(string) string, log *slog.Logger, hooks bool) []*tool.Tool {
	ts := git.New(git.Config{RunHooks: hooks})
	base, host := githubServer(getenv)
	cfg := github.Config{BaseURL: base, Token: githubToken(getenv, host, log), Logger: log}
	gh, err := github.New(cfg)
	if err != nil {
		log.Warn("GitHub tools left out", "err", err)
		return ts
	}
	return append(ts, gh...)
}

// githubServer returns the REST API base url of the configured GitHub
// server ("" for github.com) and its host name.
func githubServer(getenv func(string) string) (base, host string) {
	if api := strings.TrimSpace(getenv("GITHUB_API_URL")); api != "" {
		if u, err := url.Parse(api); err == nil && u.Hostname() != "" {
			if h := strings.ToLower(u.Hostname()); h != "api.github.com" {
				return api, h
			}
			return "", "github.com"
		}
	}
	if h := strings.ToLower(strings.TrimSpace(getenv("GH_HOST"))); h != "" && h != "github.com" {
		return "https://" + h + "/api/v3/", h
	}
	return "", "github.com"
}

// githubToken returns the token for host from the environment, else from
// gh's hosts.yml, else "". It never logs the token.
func githubToken(getenv func(string) string, host string, log *slog.Logger) string {
	names := []string{"GITHUB_TOKEN", "GH_TOKEN"}
	if host != "github.com" {
		names = []string{"GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"}
	}
	for _, n := range names {
		if t := strings.TrimSpace(getenv(n)); t != "" {
			log.Debug("GitHub token", "from", n)
			return t
		}
	}
	path, err := github.GHHostsPath(getenv, runtime.GOOS)
	if err != nil {
		return ""
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "" // gh is not set up: anonymous, as documented
	}
	t, err := github.GHToken(data, host)
	if err != nil {
		log.Warn("gh's hosts.yml cannot be read; no GitHub token", "path", path, "err", err)
		return ""
	}
	if t != "" {
		log.Debug("GitHub token", "from", path)
	}
	return t
}

// GitHubHost returns the host the GitHub tools talk to, as the
// environment (read with getenv) configures it: "github.com", or the
// GitHub Enterprise Server that GITHUB_API_URL or GH_HOST names.
func GitHubHost(getenv func(string) string) string {
	_, host := githubServer(getenv)
	return host
}
