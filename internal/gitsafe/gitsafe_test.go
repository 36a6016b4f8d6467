package gitsafe

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// format writes entries as git config --list --show-scope -z does.
func format(entries []Entry) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		b.WriteString(e.Scope + "\x00" + e.Key)
		if !e.NoValue {
			b.WriteString("\n" + e.Value)
		}
		b.WriteByte(0)
	}
	return b.Bytes()
}

func TestParseList(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []Entry
		err  bool
	}{
		{"empty", "", nil, false},
		{"one", "local\x00core.bare\nfalse\x00", []Entry{{Scope: "local", Key: "core.bare", Value: "false"}}, false},
		{"no value", "local\x00foo.bar\x00", []Entry{{Scope: "local", Key: "foo.bar", NoValue: true}}, false},
		{"empty value", "local\x00foo.bar\n\x00", []Entry{{Scope: "local", Key: "foo.bar"}}, false},
		{"value with newlines", "global\x00a.b\nx\ny\x00", []Entry{{Scope: "global", Key: "a.b", Value: "x\ny"}}, false},
		{"dotted subsection", "local\x00filter.Dr.v.clean\nx\x00", []Entry{{Scope: "local", Key: "filter.Dr.v.clean", Value: "x"}}, false},
		{"no final NUL", "local\x00core.bare\nfalse", nil, true},
		{"no scope", "\x00core.bare\nfalse\x00", nil, true},
		{"key without a dot", "local\x00core\nfalse\x00", nil, true},
		{"key ending in a dot", "local\x00core.\nfalse\x00", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseList([]byte(tc.in))
			if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
				t.Fatalf("ParseList(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.err)
			}
			if err != nil && !errors.Is(err, ErrList) {
				t.Errorf("ParseList(%q) error %v is not ErrList", tc.in, err)
			}
		})
	}
}

// FuzzParseList checks that what ParseList accepts it reads whole: the
// entries written back in git's format give the input byte for byte,
// and every key has a section and a name.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{"", "local\x00core.bare\nfalse\x00", "local\x00foo.bar\x00global\x00a.b.c\nx\ny\x00", "x\x00\x00", "local\x00.a\n\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		entries, err := ParseList(in)
		if err != nil {
			return
		}
		if out := format(entries); !bytes.Equal(out, in) {
			t.Fatalf("ParseList(%q) = %+v, which is %q written back", in, entries, out)
		}
		for _, e := range entries {
			if k := splitKey(e.Key); k.section == "" || k.name == "" || strings.ContainsAny(e.Key, "\n\x00") {
				t.Fatalf("ParseList(%q): key %q has no section or name, or a newline", in, e.Key)
			}
		}
	})
}

// config returns the GIT_CONFIG_ settings of env as key=value, in order.
func config(t *testing.T, env []string) []string {
	t.Helper()
	var out []string
	n := lookup(env, "GIT_CONFIG_COUNT")
	for i := 0; ; i++ {
		k, ok := lookupOK(env, "GIT_CONFIG_KEY_"+strconv.Itoa(i))
		if !ok {
			if strconv.Itoa(i) != n {
				t.Fatalf("GIT_CONFIG_COUNT=%s but GIT_CONFIG_KEY_%d is missing", n, i)
			}
			return out
		}
		v, ok := lookupOK(env, "GIT_CONFIG_VALUE_"+strconv.Itoa(i))
		if !ok {
			t.Fatalf("GIT_CONFIG_VALUE_%d is missing", i)
		}
		out = append(out, k+"="+v)
	}
}

func TestEnviron(t *testing.T) {
	repo := []Entry{
		{Scope: "global", Key: "credential.helper", Value: "store"},
		{Scope: "global", Key: "credential.https://example.com/?a=b.helper", Value: "cache"},
		{Scope: "global", Key: "filter.lfs.clean", Value: "git-lfs clean -- %f"},
		{Scope: "local", Key: "filter.lfs.clean", Value: "evil"},
		{Scope: "local", Key: "filter.Ev.il.smudge", Value: "evil"},
		{Scope: "local", Key: "credential.helper", Value: "evil"},
		{Scope: "local", Key: "submodule.a.update", Value: "rebase"},
		{Scope: "local", Key: "submodule.b.update", Value: "!evil"},
		{Scope: "local", Key: "alias.st", Value: "-c core.fsmonitor=evil status"},
		{Scope: "local", Key: "pager.log", Value: "evil"},
		{Scope: "worktree", Key: "diff.x.textconv", Value: "evil"},
		{Scope: "local", Key: "remote.o.uploadpack", Value: "evil"},
		{Scope: "local", Key: "core.gitproxy", Value: "evil"},
		{Scope: "local", Key: "user.name", Value: "Ann"},
	}
	env := Environ(repo, []string{"PATH=/bin", "GIT_SSH=/opt/my ssh"}, Options{})
	got := config(t, env)
	for _, want := range []string{
		"core.hooksPath=/dev/null", "core.fsmonitor=false", "core.sshCommand='/opt/my ssh'", "core.askPass=",
		"credential.helper=", "credential.helper=store", "credential.https://example.com/?a=b.helper=cache", "protocol.ext.allow=never",
		"filter.lfs.clean=git-lfs clean -- %f", "filter.Ev.il.smudge=", "submodule.b.update=none",
		"alias.st=", "pager.log=false", "diff.x.textconv=", "protocol.file.allow=never",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("Environ: settings lack %q:\n%s", want, strings.Join(got, "\n"))
		}
	}
	for _, bad := range []string{"credential.helper=evil", "submodule.a.update=none", "user.name="} {
		if slices.Contains(got, bad) {
			t.Errorf("Environ: settings have %q", bad)
		}
	}
	if i, j := slices.Index(got, "credential.helper="), slices.Index(got, "credential.helper=store"); i > j {
		t.Errorf("Environ: the user's helper comes before the reset:\n%s", strings.Join(got, "\n"))
	}
	if !slices.Contains(env, "GIT_PROXY_COMMAND=") {
		t.Errorf("Environ: no empty GIT_PROXY_COMMAND for a repository's core.gitProxy")
	}
	if hooks := config(t, Environ(repo, nil, Options{Hooks: true})); slices.ContainsFunc(hooks, func(s string) bool { return strings.HasPrefix(s, "core.hooksPath=") }) {
		t.Errorf("Environ with Hooks sets core.hooksPath")
	}
}

func TestEnvironKeepsTheCallersSettings(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   []string
		first []string // the settings before wield's
	}{
		{"none", nil, nil},
		{"complete", []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=a.b", "GIT_CONFIG_VALUE_0=c"}, []string{"a.b=c"}},
		{"a key missing", []string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=a.b", "GIT_CONFIG_VALUE_0=c", "GIT_CONFIG_VALUE_1=d"}, nil},
		{"a bad count", []string{"GIT_CONFIG_COUNT=x", "GIT_CONFIG_KEY_0=a.b", "GIT_CONFIG_VALUE_0=c"}, nil},
		{"entries beyond the count", []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=a.b", "GIT_CONFIG_VALUE_0=c", "GIT_CONFIG_KEY_1=x.y"}, []string{"a.b=c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := config(t, Environ(nil, tc.env, Options{}))
			if !slices.Equal(got[:len(tc.first)], tc.first) || slices.Contains(got, "x.y=") {
				t.Errorf("Environ(%q) settings = %q, want %q first", tc.env, got, tc.first)
			}
			if len(got) == len(tc.first) {
				t.Errorf("Environ(%q) added nothing", tc.env)
			}
		})
	}
}
