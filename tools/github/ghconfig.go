package github

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// GHHostsPath returns the path of the GitHub CLI's hosts.yml, where gh
// keeps the token of each host it is logged in to: $GH_CONFIG_DIR, else
// $XDG_CONFIG_HOME/gh, else %AppData%/GitHub CLI on Windows, else
// ~/.config/gh. getenv reads the environment; goos is runtime.GOOS. It
// returns an error only when none of those can be known.
func GHHostsPath(getenv func(string) string, goos string) (string, error) {
	if d := getenv("GH_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "hosts.yml"), nil
	}
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "gh", "hosts.yml"), nil
	}
	if goos == "windows" {
		if d := getenv("AppData"); d != "" {
			return filepath.Join(d, "GitHub CLI", "hosts.yml"), nil
		}
	}
	home := getenv("HOME")
	if goos == "windows" && home == "" {
		home = getenv("USERPROFILE")
	}
	if home == "" {
		return "", errors.New("no home directory to find gh's configuration in")
	}
	return filepath.Join(home, ".config", "gh", "hosts.yml"), nil
}

// ghHost is one host's entry in gh's hosts.yml.
type ghHost struct {
	OAuthToken string `yaml:"oauth_token"`
	User       string `yaml:"user"`
	Users      map[string]struct {
		OAuthToken string `yaml:"oauth_token"`
	} `yaml:"users"`
}

// GHToken returns the token gh keeps for host (such as "github.com") in
// the contents of its hosts.yml: the host's oauth_token, else that of its
// active user. It returns "" and no error when the host is not there or
// has no token in the file: gh then keeps it in the system keyring, which
// GHToken does not read. The file is only parsed, never written.
func GHToken(hostsYAML []byte, host string) (string, error) {
	var hosts map[string]ghHost
	if err := yaml.Unmarshal(hostsYAML, &hosts); err != nil {
		return "", fmt.Errorf("gh hosts.yml: %w", err)
	}
	host = strings.TrimSpace(host)
	h, ok := hosts[host]
	if !ok {
		// Host names are case-insensitive; take the first such key in
		// sorted order, so the answer does not depend on map order.
		names := slices.Sorted(maps.Keys(hosts))
		i := slices.IndexFunc(names, func(n string) bool { return strings.EqualFold(n, host) })
		if i < 0 {
			return "", nil
		}
		h = hosts[names[i]]
	}
	if t := strings.TrimSpace(h.OAuthToken); t != "" {
		return t, nil
	}
	return strings.TrimSpace(h.Users[h.User].OAuthToken), nil
}
