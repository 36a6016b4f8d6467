package github

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// A Repo names a repository on a GitHub host.
type Repo struct {
	// Host is the host name of the server, lower-case, without a port
	// ("github.com", "ghe.example.com"); empty when not known.
	Host string
	// Owner and Name are the user or organisation and the repository.
	Owner, Name string
}

// String returns "owner/name".
func (r Repo) String() string { return r.Owner + "/" + r.Name }

// ParseRepo reads "owner/name", as written in a Config or by the model.
func ParseRepo(s string) (Repo, error) {
	owner, name, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Repo{}, fmt.Errorf("repository %q is not owner/name", s)
	}
	return checkRepo(Repo{Owner: owner, Name: strings.TrimSuffix(name, ".git")}, s)
}

// ParseRemote reads the url of a git remote that points at a GitHub
// repository, in any form git accepts for one:
//
//	https://github.com/owner/name.git
//	ssh://git@github.com:22/owner/name
//	git@github.com:owner/name.git
//
// A user name, password or port in the url is dropped, and so is a
// trailing ".git" or "/".
func ParseRemote(raw string) (Repo, error) {
	s := strings.TrimSpace(raw)
	var host, path string
	if i := strings.Index(s, "://"); i > 0 {
		u, err := url.Parse(s)
		if err != nil {
			return Repo{}, fmt.Errorf("remote url %q: %w", raw, err)
		}
		switch u.Scheme {
		case "https", "http", "ssh", "git", "git+ssh", "ssh+git":
		default:
			return Repo{}, fmt.Errorf("remote url %q: scheme %s does not reach a GitHub server", raw, u.Scheme)
		}
		host, path = u.Hostname(), u.Path
	} else {
		// The scp-like form: [user@]host:path, where host has no slash.
		h, p, ok := strings.Cut(s, ":")
		if !ok || strings.Contains(h, "/") || h == "" {
			return Repo{}, fmt.Errorf("remote url %q is neither a url nor host:owner/name (a local path is no GitHub repository)", raw)
		}
		if i := strings.LastIndex(h, "@"); i >= 0 {
			h = h[i+1:]
		}
		host, path = h, p
	}
	host = strings.ToLower(host)
	if host == "" || strings.IndexFunc(host, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_')
	}) >= 0 {
		return Repo{}, fmt.Errorf("remote url %q has no host name a GitHub server could have", raw)
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	owner, name, ok := strings.Cut(path, "/")
	if !ok || strings.Contains(name, "/") {
		return Repo{}, fmt.Errorf("remote url %q does not end in owner/name", raw)
	}
	return checkRepo(Repo{Host: host, Owner: owner, Name: name}, raw)
}

// checkRepo refuses owner and repository names GitHub would not give:
// only letters, digits, '-', '_' and '.', and neither "." nor "..", so a
// name can go into an API path as it is.
func checkRepo(r Repo, raw string) (Repo, error) {
	for _, part := range []string{r.Owner, r.Name} {
		if part == "" || part == "." || part == ".." || strings.HasPrefix(part, "-") || len(part) > 100 {
			return Repo{}, fmt.Errorf("%q does not name a repository as owner/name", raw)
		}
		for _, c := range part {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
				return Repo{}, fmt.Errorf("%q does not name a repository: %q has the character %q", raw, part, c)
			}
		}
	}
	return r, nil
}

// errNoRepo is the failure when no repository can be found for a call.
var errNoRepo = errors.New("no repository: give repo as owner/name")
