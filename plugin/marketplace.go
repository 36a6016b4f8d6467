package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A Marketplace is a marketplace.json: a named list of plugins.
type Marketplace struct {
	Name    string         `json:"name"`
	Owner   *Author        `json:"owner,omitempty"`
	Plugins []MarketPlugin `json:"plugins"`
	// Dir is the directory the marketplace was read from.
	Dir string `json:"-"`
}

// A MarketPlugin is one plugin a marketplace lists.
type MarketPlugin struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`
	Source      Source `json:"source"`
}

// A Source is where a marketplace's plugin is: a directory relative to
// the marketplace ("./plugins/x"), or a git repository ({"source":
// "github", "repo": "owner/name"} or {"source": "url", "url": "…"}).
type Source struct {
	// Path is the directory, relative to the marketplace; empty for git.
	Path string
	// Git is the repository URL and Ref an optional branch or tag; empty
	// for a directory.
	Git, Ref string
}

// UnmarshalJSON reads a path string or a source object.
func (s *Source) UnmarshalJSON(b []byte) error {
	var p string
	if err := json.Unmarshal(b, &p); err == nil {
		rel, ok := relPath(p)
		if !ok {
			return fmt.Errorf("source %q must be a path inside the marketplace starting with \"./\"", p)
		}
		s.Path = rel
		return nil
	}
	var o struct {
		Source string `json:"source"`
		Repo   string `json:"repo"`
		URL    string `json:"url"`
		Ref    string `json:"ref"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return errors.New("source must be a path or an object with source and repo or url")
	}
	switch o.Source {
	case "github":
		if strings.Count(o.Repo, "/") != 1 {
			return fmt.Errorf("github source: repo %q must be owner/name", o.Repo)
		}
		s.Git = "https://github.com/" + o.Repo + ".git"
	case "url", "git":
		if o.URL == "" {
			return errors.New("url source: url is missing")
		}
		s.Git = o.URL
	default:
		return fmt.Errorf("source kind %q is not supported: use a path, github or url", o.Source)
	}
	s.Ref = o.Ref
	return nil
}

// MarketplacePath returns the marketplace.json of dir, in .claude-plugin/,
// .wield-plugin/ or dir itself, or "".
func MarketplacePath(dir string) string {
	for _, p := range []string{filepath.Join(dir, ".wield-plugin", "marketplace.json"), filepath.Join(dir, ".claude-plugin", "marketplace.json"), filepath.Join(dir, "marketplace.json")} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// ReadMarketplace reads the marketplace in dir.
func ReadMarketplace(dir string) (*Marketplace, error) {
	p := MarketplacePath(dir)
	if p == "" {
		return nil, fmt.Errorf("%s has no marketplace.json", dir)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	m, err := ParseMarketplace(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	m.Dir = dir
	return m, nil
}

// ParseMarketplace parses a marketplace.json. Every plugin needs a
// kebab-case name, given once, and a source.
func ParseMarketplace(data []byte) (*Marketplace, error) {
	var m Marketplace
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, p := range m.Plugins {
		switch {
		case !ValidName(p.Name):
			return nil, fmt.Errorf("plugins[%d]: name %q is not kebab-case", i, p.Name)
		case seen[p.Name]:
			return nil, fmt.Errorf("plugins[%d]: %s is listed twice", i, p.Name)
		case p.Source.Path == "" && p.Source.Git == "":
			return nil, fmt.Errorf("plugins[%d] (%s): no source", i, p.Name)
		}
		seen[p.Name] = true
	}
	return &m, nil
}

// Get returns the listed plugin named name.
func (m *Marketplace) Get(name string) (MarketPlugin, bool) {
	for _, p := range m.Plugins {
		if p.Name == name {
			return p, true
		}
	}
	return MarketPlugin{}, false
}
