package fs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/internal/diff"
)

func TestReplace(t *testing.T) {
	tests := []struct {
		name    string
		content string // "" with noFile: the file does not exist
		noFile  bool
		in      ReplaceInput
		wantOK  bool
		want    string // the file afterwards
		msg     []string
	}{
		{name: "exact", content: "a\nfoo\nb\n", in: ReplaceInput{OldString: "foo", NewString: "bar"},
			wantOK: true, want: "a\nbar\nb\n", msg: []string{"Replaced 1 occurrence", "-foo\n+bar"}},
		{name: "specials are literal", content: "x = 1\n", in: ReplaceInput{OldString: "1", NewString: `$1 \n ${x} $$`},
			wantOK: true, want: "x = $1 \\n ${x} $$\n"},
		{name: "ambiguous", content: "foo\nbar\nfoo\n", in: ReplaceInput{OldString: "foo", NewString: "x"},
			want: "foo\nbar\nfoo\n", msg: []string{"occurs 2 times", "at lines 1, 3", "allow_multiple=true"}},
		{name: "allow multiple", content: "foo\nbar\nfoo\n", in: ReplaceInput{OldString: "foo", NewString: "x", AllowMultiple: true},
			wantOK: true, want: "x\nbar\nx\n", msg: []string{"Replaced 2 occurrences"}},
		{name: "CRLF kept", content: "a\r\nold line\r\nb\r\n", in: ReplaceInput{OldString: "a\nold line\n", NewString: "a\nnew\nlines\n"},
			wantOK: true, want: "a\r\nnew\r\nlines\r\nb\r\n"},
		{name: "CRLF in the arguments", content: "a\nb\n", in: ReplaceInput{OldString: "a\r\nb", NewString: "c\r\nd"},
			wantOK: true, want: "c\nd\n"},
		{name: "final newline kept", content: "a\nb\n", in: ReplaceInput{OldString: "b\n", NewString: "c"},
			wantOK: true, want: "a\nc\n"},
		{name: "no final newline stays so", content: "a\nb", in: ReplaceInput{OldString: "b", NewString: "c\nd"},
			wantOK: true, want: "a\nc\nd"},
		{name: "whitespace-tolerant, re-indented", content: "func f() {\n\t\tif x {\n\t\t\treturn 1\n\t\t}\n}\n",
			in:     ReplaceInput{OldString: "if x {\n    return 1\n}", NewString: "if y {\n    return 2\n}"},
			wantOK: true, want: "func f() {\n\t\tif y {\n\t\t    return 2\n\t\t}\n}\n",
			msg: []string{"when whitespace was ignored", "re-indented"}},
		{name: "whitespace-tolerant inside lines", content: "a  =   b\n", in: ReplaceInput{OldString: "a = b", NewString: "a = c"},
			wantOK: true, want: "a = c\n"},
		{name: "whitespace-tolerant ambiguous", content: " x\n\ty\n  x\n", in: ReplaceInput{OldString: "x ", NewString: "z"},
			want: " x\n\ty\n  x\n", msg: []string{"matches 2 places, at lines 1, 3"}},
		{name: "closest region", content: "alpha\n\tfunc main() {  \n\treturn\n}\n", in: ReplaceInput{OldString: "func main() {\n\treturn nil", NewString: "x"},
			want: "alpha\n\tfunc main() {  \n\treturn\n}\n",
			msg:  []string{"was not found", "closest region is lines 2-3", "→func main() {··", "→return"}},
		{name: "nothing resembles", content: "abc\n", in: ReplaceInput{OldString: "xyz", NewString: "q"},
			want: "abc\n", msg: []string{"no lines resemble it"}},
		{name: "same strings", content: "a\n", in: ReplaceInput{OldString: "a", NewString: "a"},
			want: "a\n", msg: []string{"the same"}},
		{name: "create", noFile: true, in: ReplaceInput{OldString: "", NewString: "new\nfile\n"},
			wantOK: true, want: "new\nfile\n", msg: []string{"Created f.txt (2 lines)"}},
		{name: "create refused when it exists", content: "x\n", in: ReplaceInput{OldString: "", NewString: "y"},
			want: "x\n", msg: []string{"already exists", "write_file"}},
		{name: "missing file", noFile: true, in: ReplaceInput{OldString: "a", NewString: "b"},
			msg: []string{"f.txt does not exist"}},
		{name: "binary file", content: "a\x00b", in: ReplaceInput{OldString: "a", NewString: "b"},
			want: "a\x00b", msg: []string{"binary"}},
		{name: "private key", content: "a\n", in: ReplaceInput{OldString: "a", NewString: "-----BEGIN RSA PRIVATE KEY-----"},
			want: "a\n", msg: []string{"private key"}},
		{name: "mixed endings left alone", content: "a\r\nb\nc\r\n", in: ReplaceInput{OldString: "b\nc", NewString: "x"},
			wantOK: true, want: "a\r\nx\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			if !tt.noFile {
				files["f.txt"] = tt.content
			}
			dir := makeTree(t, files)
			in := tt.in
			in.Path = "f.txt"
			res := run(t, NewReplace(Config{}), testCall(t, dir), in)
			checkResult(t, res, tt.wantOK, tt.msg...)
			got, err := os.ReadFile(filepath.Join(dir, "f.txt"))
			if tt.noFile && !tt.wantOK {
				if err == nil {
					t.Errorf("a failed replace created the file")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
			checkNoTemp(t, dir)
		})
	}
}

// checkNoTemp fails if a temporary file of writeAtomic was left behind.
func checkNoTemp(t testing.TB, dir string) {
	t.Helper()
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.Contains(fi.Name(), ".wield-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func TestReplaceKeepsMode(t *testing.T) {
	dir := makeTree(t, map[string]string{"run.sh": "echo a\n"})
	p := filepath.Join(dir, "run.sh")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	res := run(t, NewReplace(Config{}), testCall(t, dir), ReplaceInput{Path: "run.sh", OldString: "a", NewString: "b"})
	checkResult(t, res, true)
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("mode after replace = %v (%v), want 0755", fi.Mode().Perm(), err)
	}
}

// FuzzReplace checks that replace never corrupts a file: it makes the
// intended edit, or fails and leaves the file as it was, with no
// temporary file behind. The intended edit of an exact match is
// strings.ReplaceAll on the text (with CRLF files seen as LF); a
// whitespace-tolerant match may only remove lines that match a line of
// old_string and add lines of new_string.
func FuzzReplace(f *testing.F) {
	f.Add("a\nfoo\nb\n", "foo", "bar", false)
	f.Add("a\r\nfoo\r\nb\r\n", "foo\nb", "x\ny", false)
	f.Add("foo foo", "foo", "$0", true)
	f.Add("\tif x {\n\t\treturn\n\t}\n", "if x {\n  return\n}", "if y {\n  return 1\n}", false)
	f.Add("no newline", "newline", "", false)
	f.Add("", "", "created", false)
	f.Add("x\r\ny\nz", "y\nz", "q", false)
	f.Fuzz(func(t *testing.T, content, old, new string, allowMultiple bool) {
		dir := t.TempDir()
		p := filepath.Join(dir, "f.txt")
		exists := content != "" || old != ""
		if exists {
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer root.Close()
		c := callWithRoot(root)
		w, _ := openWorkspace(c)
		r := replacer{cfg: Config{}.withDefaults()}
		res, err := r.replace(t.Context(), c, w, ReplaceInput{Path: "f.txt", OldString: old, NewString: new, AllowMultiple: allowMultiple})
		if err != nil {
			t.Fatalf("fault: %v", err)
		}
		got, readErr := os.ReadFile(p)
		checkNoTemp(t, dir)
		if !res.Success {
			if exists && (readErr != nil || string(got) != content) {
				t.Fatalf("failed replace (%s) changed the file: %q → %q", res.Error, content, got)
			}
			return
		}
		if readErr != nil {
			t.Fatal(readErr)
		}
		if !exists {
			if string(got) != new {
				t.Fatalf("created %q, want %q", got, new)
			}
			return
		}
		checkEdit(t, content, old, new, string(got), res.Data.(ReplaceData).Whitespace)
	})
}

// FuzzApplyReplace checks the edit itself, without files, many times
// faster than FuzzReplace.
func FuzzApplyReplace(f *testing.F) {
	f.Add("a\nfoo\nb\n", "foo", "bar", false)
	f.Add("a\r\nfoo\r\nb\r\n", "foo\nb", "x\ny", false)
	f.Add("\tif x {\n\t\treturn\n\t}\n", "if x {\n  return\n}", "if y {\n  return 1\n}", false)
	f.Add("x\r\ny\nz", "y\nz", "q", true)
	f.Add(" a\n\n b \n", "a\n\nb", "\n c\n", true)
	f.Fuzz(func(t *testing.T, content, old, new string, allowMultiple bool) {
		if old == "" {
			return
		}
		ed, fail := applyReplace([]byte(content), old, new, allowMultiple)
		if fail != "" {
			return
		}
		checkEdit(t, content, old, new, string(ed.content), ed.whitespace)
	})
}

// checkEdit checks that got is what replacing old with new in content
// should give: exactly strings.ReplaceAll's result for an exact match;
// for a whitespace-tolerant one, only lines that match a line of old
// removed and only lines of new added.
func checkEdit(t *testing.T, content, old, new, got string, whitespace bool) {
	t.Helper()
	if !whitespace {
		if want := referenceReplace(content, old, new); got != want {
			t.Fatalf("replace(%q, %q, %q) = %q, want %q", content, old, new, got, want)
		}
		return
	}
	oldKeys := map[string]bool{}
	for _, l := range diff.SplitLines(strings.ReplaceAll(old, "\r\n", "\n")) {
		oldKeys[looseKey(l)] = true
	}
	newKeys := map[string]bool{"": true}
	for _, l := range diff.SplitLines(strings.ReplaceAll(new, "\r\n", "\n")) {
		newKeys[strings.TrimSpace(l)] = true
	}
	a, b := diff.SplitLines(string(toLF([]byte(content)))), diff.SplitLines(string(toLF([]byte(got))))
	for _, e := range diff.Edits(a, b) {
		switch {
		case e.Kind == '-' && !oldKeys[looseKey(a[e.A])]:
			t.Fatalf("whitespace-tolerant replace removed %q, which is no line of old_string %q\nfile %q → %q", a[e.A], old, content, got)
		case e.Kind == '+' && !newKeys[strings.TrimSpace(b[e.B])]:
			t.Fatalf("whitespace-tolerant replace added %q, which is no line of new_string %q\nfile %q → %q", b[e.B], new, content, got)
		}
	}
}

// referenceReplace is the exact-match edit, written independently of
// applyReplace.
func referenceReplace(content, old, new string) string {
	crlf := strings.Contains(content, "\r\n") && strings.Count(content, "\n") == strings.Count(content, "\r\n")
	mixed := strings.Contains(content, "\r\n") && !crlf
	text := content
	if crlf {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	if !mixed {
		old = strings.ReplaceAll(old, "\r\n", "\n")
		new = strings.ReplaceAll(new, "\r\n", "\n")
	}
	text = strings.ReplaceAll(text, old, new)
	if strings.HasSuffix(content, "\n") && text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if crlf {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	return text
}
