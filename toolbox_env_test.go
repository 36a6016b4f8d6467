package wield

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestGithubServer(t *testing.T) {
	for _, tc := range []struct {
		env        map[string]string
		base, host string
	}{
		{nil, "", "github.com"},
		{map[string]string{"GITHUB_API_URL": "https://api.github.com"}, "", "github.com"},
		{map[string]string{"GITHUB_API_URL": "https://ghe.example.com/api/v3"}, "https://ghe.example.com/api/v3", "ghe.example.com"},
		{map[string]string{"GH_HOST": "GHE.example.com"}, "https://ghe.example.com/api/v3/", "ghe.example.com"},
		{map[string]string{"GH_HOST": "github.com"}, "", "github.com"},
	} {
		base, host := githubServer(func(k string) string { return tc.env[k] })
		if base != tc.base || host != tc.host {
			t.Errorf("githubServer(%v) = %q, %q; want %q, %q", tc.env, base, host, tc.base, tc.host)
		}
	}
}

func TestGithubToken(t *testing.T) {
	dir := t.TempDir()
	hosts := "github.com:\n    oauth_token: gho_fromgh\nghe.example.com:\n    oauth_token: gho_ghe\n"
	if err := os.WriteFile(filepath.Join(dir, "hosts.yml"), []byte(hosts), 0o600); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		env        map[string]string
		host, want string
	}{
		{map[string]string{"GITHUB_TOKEN": "env", "GH_CONFIG_DIR": dir}, "github.com", "env"},
		{map[string]string{"GH_TOKEN": "gh-env", "GH_CONFIG_DIR": dir}, "github.com", "gh-env"},
		{map[string]string{"GH_CONFIG_DIR": dir}, "github.com", "gho_fromgh"},
		{map[string]string{"GITHUB_TOKEN": "not for enterprise", "GH_CONFIG_DIR": dir}, "ghe.example.com", "gho_ghe"},
		{map[string]string{"GH_ENTERPRISE_TOKEN": "ent", "GH_CONFIG_DIR": dir}, "ghe.example.com", "ent"},
		{map[string]string{"GH_CONFIG_DIR": filepath.Join(dir, "none")}, "github.com", ""},
	} {
		if got := githubToken(func(k string) string { return tc.env[k] }, tc.host, log); got != tc.want {
			t.Errorf("githubToken(%v, %s) = %q, want %q", tc.env, tc.host, got, tc.want)
		}
	}
}

func TestGitToolsBuilt(t *testing.T) {
	ts := gitTools(func(string) string { return "" }, slog.New(slog.DiscardHandler), false)
	var names []string
	for _, tl := range ts {
		names = append(names, tl.Name())
	}
	for _, want := range []string{"git_status", "git_commit", "github_get_issue", "github_create_pull_request"} {
		if !slices.Contains(names, want) {
			t.Errorf("gitTools lacks %s: %v", want, names)
		}
	}
	ts = gitTools(func(k string) string {
		if k == "GITHUB_API_URL" {
			return "ftp://bad"
		}
		return ""
	}, slog.New(slog.DiscardHandler), false)
	for _, tl := range ts {
		if tl.Spec().Annotations.OpenWorld {
			t.Errorf("with a bad GITHUB_API_URL, %s is still there", tl.Name())
		}
	}
}
