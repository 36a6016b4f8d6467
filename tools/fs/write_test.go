package fs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		in     WriteInput
		wantOK bool
		file   string // the file to check afterwards, default in.Path
		want   string
		msg    []string
	}{
		{name: "create with parents", in: WriteInput{Path: "a/b/c.txt", Content: "x\ny\n"},
			wantOK: true, want: "x\ny\n", msg: []string{"Created a/b/c.txt (2 lines, 4 B)"}},
		{name: "update shows a diff", files: map[string]string{"f": "1\n2\n3\n4\n5\n6\n7\n8\n"}, in: WriteInput{Path: "f", Content: "1\n2\n3\nfour\n5\n6\n7\n8\nnine\n"},
			wantOK: true, want: "1\n2\n3\nfour\n5\n6\n7\n8\nnine\n",
			msg: []string{"Updated f: 2 lines added, 1 line removed (8 → 9 lines).", "@@ -2,7 +2,8 @@\n 2\n 3\n-4\n+four\n 5\n 6\n 7\n 8\n+nine"}},
		{name: "CRLF kept", files: map[string]string{"f": "a\r\nb\r\n"}, in: WriteInput{Path: "f", Content: "a\nc\n"},
			wantOK: true, want: "a\r\nc\r\n", msg: []string{"changed to CRLF"}},
		{name: "LF kept", files: map[string]string{"f": "a\nb\n"}, in: WriteInput{Path: "f", Content: "a\r\nc\r\n"},
			wantOK: true, want: "a\nc\n"},
		{name: "BOM kept", files: map[string]string{"f": "\xef\xbb\xbfa\n"}, in: WriteInput{Path: "f", Content: "b\n"},
			wantOK: true, want: "\xef\xbb\xbfb\n"},
		{name: "unchanged", files: map[string]string{"f": "a\n"}, in: WriteInput{Path: "f", Content: "a\n"},
			wantOK: true, want: "a\n", msg: []string{"already has this content"}},
		{name: "through a link", files: map[string]string{"real.txt": "old\n", "link.txt": "->real.txt"}, in: WriteInput{Path: "link.txt", Content: "new\n"},
			wantOK: true, file: "real.txt", want: "new\n"},
		{name: "empty content", files: map[string]string{"f": "a\n"}, in: WriteInput{Path: "f", Content: ""},
			wantOK: true, want: ""},
		{name: "directory", files: map[string]string{"d/x": ""}, in: WriteInput{Path: "d", Content: "x"},
			msg: []string{"d is a directory"}},
		{name: "root", in: WriteInput{Path: ".", Content: "x"}, msg: []string{"workspace root"}},
		{name: "parent is a file", files: map[string]string{"f": "a"}, in: WriteInput{Path: "f/g", Content: "x"},
			file: "f", want: "a", msg: []string{"f/g"}},
		{name: "private key content", in: WriteInput{Path: "notes.txt", Content: "-----BEGIN OPENSSH PRIVATE KEY-----\n"},
			msg: []string{"holds a private key"}},
		{name: "empty path", in: WriteInput{Path: "", Content: "x"}, msg: []string{"path is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := makeTree(t, tt.files)
			res := run(t, NewWrite(Config{}), testCall(t, dir), tt.in)
			checkResult(t, res, tt.wantOK, tt.msg...)
			checkNoTemp(t, dir)
			if tt.want == "" && !tt.wantOK {
				return
			}
			file := tt.file
			if file == "" {
				file = tt.in.Path
			}
			got, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil || string(got) != tt.want {
				t.Errorf("%s = %q (%v), want %q", file, got, err, tt.want)
			}
		})
	}
}

func TestWriteRefusesSensitiveTargets(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".git/config":   "[core]\n",
		"hooks-link":    "->.git/hooks",
		".git/hooks/x":  "",
		"cfg-link":      "->.git/config",
		".env":          "SECRET=1\n",
		".wield/state":  "",
		".ssh/config":   "",
		"sub/.git/HEAD": "",
		".env.example":  "",
	})
	tests := []struct {
		path   string
		wantOK bool
		reason string
	}{
		{".git/config", false, "git's internals"},
		{".git/hooks/pre-commit", false, "git's internals"},
		{".GIT/config", false, "git's internals"},
		{"sub/.git/HEAD", false, "git's internals"},
		{"cfg-link", false, "a link to .git/config"},
		{"hooks-link/post-commit", false, "git's internals"},
		{".env", false, ".env files hold secrets"},
		{".env.local", false, ".env files hold secrets"},
		{"app/.env.production", false, ".env files hold secrets"},
		{".envrc", false, ".env files hold secrets"},
		{".env.example", true, ""},
		{".wield/state", false, "wield's own state"},
		{".ssh/authorized_keys", false, ".ssh"},
		{"id_rsa", false, "private key"},
		{"certs/server.key", false, "private key"},
		{"tls.pem", false, "private key"},
		{".netrc", false, "credentials"},
		{"notes/id_rsa.pub", true, ""},
		{"env.go", true, ""},
	}
	call := testCall(t, dir)
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			before, _ := os.ReadFile(filepath.Join(dir, tt.path))
			for _, tl := range Tools(Config{}) {
				var args any
				switch tl.Name() {
				case "write_file":
					args = WriteInput{Path: tt.path, Content: "changed\n"}
				case "replace":
					args = ReplaceInput{Path: tt.path, OldString: "", NewString: "changed\n"}
				default:
					continue
				}
				res := run(t, tl, call, args)
				if tt.wantOK {
					if !res.Success && strings.Contains(res.Error, "refusing") {
						t.Errorf("%s refused %s: %s", tl.Name(), tt.path, res.Error)
					}
					continue
				}
				if res.Success || !strings.Contains(res.Error, "refusing") || !strings.Contains(res.Error, tt.reason) {
					t.Errorf("%s(%s) = success %v, error %q; want it refused: %s", tl.Name(), tt.path, res.Success, res.Error, tt.reason)
				}
				after, _ := os.ReadFile(filepath.Join(dir, tt.path))
				if string(after) != string(before) {
					t.Errorf("%s changed %s although it refused", tl.Name(), tt.path)
				}
			}
		})
	}
}
