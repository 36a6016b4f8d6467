package github

import (
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestParseRemote(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Repo
		err  string
	}{
		{"https://github.com/octo/hello.git", Repo{"github.com", "octo", "hello"}, ""},
		{"https://github.com/octo/hello", Repo{"github.com", "octo", "hello"}, ""},
		{"https://github.com/octo/hello/", Repo{"github.com", "octo", "hello"}, ""},
		{"https://user:tok@GitHub.com/octo/hello.git", Repo{"github.com", "octo", "hello"}, ""},
		{"http://127.0.0.1:8080/octo/hello.git", Repo{"127.0.0.1", "octo", "hello"}, ""},
		{"ssh://git@github.com:22/octo/hello.git", Repo{"github.com", "octo", "hello"}, ""},
		{"git@github.com:octo/hello.git", Repo{"github.com", "octo", "hello"}, ""},
		{"github.com:octo/my.repo_2", Repo{"github.com", "octo", "my.repo_2"}, ""},
		{"git@ghe.example.com:team/svc.git", Repo{"ghe.example.com", "team", "svc"}, ""},
		{"  https://github.com/octo/hello.git\n", Repo{"github.com", "octo", "hello"}, ""},
		{"/srv/git/hello.git", Repo{}, "neither a url"},
		{"../hello", Repo{}, "neither a url"},
		{"file:///srv/git/hello.git", Repo{}, "scheme file"},
		{"https://github.com/octo", Repo{}, "owner/name"},
		{"https://github.com/octo/hello/tree/main", Repo{}, "owner/name"},
		{"https://github.com/../hello", Repo{}, "does not name"},
		{"git@github.com:-o/x", Repo{}, "does not name"},
		{"https://github.com/octo/hel%20lo", Repo{}, "character"},
	} {
		got, err := ParseRemote(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseRemote(%q) = %+v, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseRemote(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

var repoPart = regexp.MustCompile(`^[A-Za-z0-9_.][A-Za-z0-9_.-]*$`)

// FuzzParseRemote checks that whatever ParseRemote accepts names a
// repository safely (owner and name of letters, digits, '-', '_' and '.',
// neither "." nor "..", not starting with '-'; a host without '/', ':' or
// '@'), and that the https url of what it returns parses back to it.
func FuzzParseRemote(f *testing.F) {
	for _, s := range []string{"https://github.com/octo/hello.git", "git@github.com:octo/hello.git", "ssh://git@h:22/o/n", "h:o/n", "/x/y", "https://h/../x", "a@b@c:o/n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRemote(s)
		if err != nil {
			return
		}
		for _, p := range []string{r.Owner, r.Name} {
			if !repoPart.MatchString(p) || p == "." || p == ".." {
				t.Fatalf("ParseRemote(%q) = %+v: %q is no safe name", s, r, p)
			}
		}
		if r.Host == "" || strings.ContainsAny(r.Host, "/:@ ") || strings.ToLower(r.Host) != r.Host {
			t.Fatalf("ParseRemote(%q) = %+v: bad host", s, r)
		}
		if strings.HasSuffix(r.Name, ".git") {
			return // "x.git.git" keeps one ".git"; the round trip would drop it
		}
		back, err := ParseRemote("https://" + r.Host + "/" + r.String() + ".git")
		if err != nil || back != r {
			t.Fatalf("round trip of %+v = %+v, %v", r, back, err)
		}
	})
}

// FuzzParseRepo checks that an accepted owner/name has safe parts.
func FuzzParseRepo(f *testing.F) {
	for _, s := range []string{"octo/hello", "a/b/c", "../x", "o/", "-o/n", "o/n.git"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRepo(s)
		if err != nil {
			return
		}
		for _, p := range []string{r.Owner, r.Name} {
			if !repoPart.MatchString(p) || p == "." || p == ".." {
				t.Fatalf("ParseRepo(%q) = %+v: %q is no safe name", s, r, p)
			}
		}
	})
}

func TestGHToken(t *testing.T) {
	const hosts = `github.com:
    user: alice
    git_protocol: https
    users:
        alice:
            oauth_token: gho_users
ghe.example.com:
    oauth_token: ghp_enterprise
    user: bob
keyring.example.com:
    user: carol
    users:
        carol:
`
	for _, tc := range []struct{ host, want string }{
		{"github.com", "gho_users"},
		{"GitHub.com", "gho_users"},
		{"ghe.example.com", "ghp_enterprise"},
		{"keyring.example.com", ""},
		{"absent.example.com", ""},
	} {
		got, err := GHToken([]byte(hosts), tc.host)
		if err != nil || got != tc.want {
			t.Errorf("GHToken(%s) = %q, %v; want %q", tc.host, got, err, tc.want)
		}
	}
	if _, err := GHToken([]byte("github.com: [unclosed"), "github.com"); err == nil {
		t.Error("GHToken of bad YAML succeeded")
	}
	if got, err := GHToken(nil, "github.com"); got != "" || err != nil {
		t.Errorf("GHToken of an empty file = %q, %v", got, err)
	}
}

// FuzzGHToken checks that GHToken never panics on any file, and that it
// finds a token written for a host, whatever the token and host are.
func FuzzGHToken(f *testing.F) {
	f.Add([]byte("github.com:\n  oauth_token: x\n"), "github.com", "gho_abc")
	f.Add([]byte("- a\n- b\n"), "h", "t")
	f.Add([]byte("h:\n  users: 3\n"), "h", "")
	f.Fuzz(func(t *testing.T, data []byte, host, token string) {
		GHToken(data, host)
		if strings.TrimSpace(host) != host || strings.TrimSpace(token) == "" || strings.TrimSpace(token) != token {
			return
		}
		doc, err := yaml.Marshal(map[string]map[string]string{host: {"oauth_token": token, "user": "u"}})
		if err != nil {
			return
		}
		got, err := GHToken(doc, host)
		if err != nil || got != token {
			t.Fatalf("GHToken(%q, %q) = %q, %v; want %q", doc, host, got, err, token)
		}
	})
}

func TestGHHostsPath(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		getenv func(string) string
		goos   string
		want   string
	}{
		{env("GH_CONFIG_DIR", "/c/gh", "XDG_CONFIG_HOME", "/x", "HOME", "/h"), "linux", "/c/gh/hosts.yml"},
		{env("XDG_CONFIG_HOME", "/x", "HOME", "/h"), "linux", "/x/gh/hosts.yml"},
		{env("HOME", "/h"), "darwin", "/h/.config/gh/hosts.yml"},
		{env("AppData", "/appdata", "HOME", "/h"), "windows", "/appdata/GitHub CLI/hosts.yml"},
	} {
		got, err := GHHostsPath(tc.getenv, tc.goos)
		if err != nil || got != tc.want {
			t.Errorf("GHHostsPath(%s) = %q, %v; want %q", tc.goos, got, err, tc.want)
		}
	}
	if _, err := GHHostsPath(env(), "linux"); err == nil {
		t.Error("GHHostsPath without HOME succeeded")
	}
}
