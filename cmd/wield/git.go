package main

import (
	"log/slog"
	"net/url"
	"os"
	"runtime"
	"strings"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/git"
	"github.com/wieldhq/wield/tools/github"
)

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
