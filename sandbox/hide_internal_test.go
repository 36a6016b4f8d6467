//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tree makes the entries under root: a name ending in / is a directory,
// one ending in | a named pipe, "name => target" a symbolic link,
// anything else an empty file.
func tree(t *testing.T, root string, entries ...string) {
	t.Helper()
	for _, e := range entries {
		p := filepath.Join(root, strings.TrimSuffix(e, "/"))
		if name, target, ok := strings.Cut(e, " => "); ok {
			p = filepath.Join(root, name)
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case strings.HasSuffix(e, "/"):
			err = os.Mkdir(p, 0o755)
		case strings.HasSuffix(e, "|"):
			err = syscall.Mkfifo(strings.TrimSuffix(p, "|"), 0o600)
		default:
			err = os.WriteFile(p, nil, 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestResolveHidden(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tree(t, root, "home/.ssh/", "home/.ssh/known_hosts", "home/.netrc", "home/ws/", "home/ws/.npmrc",
		"home/.config/gh/", "home/.config/gh/project/", "elsewhere/aws/", "home/.aws => ../elsewhere/aws",
		"home/.kube => ../missing", "home/.config/wield/", "home/.config/wield/home/",
		"tmp/agent/sock|", "tmp/other/sock|", "tmp/other/file")
	at := func(rel string) string { return filepath.Join(root, rel) }
	dir := func(rel string) hiddenPath { return hiddenPath{Path: at(rel), Dir: true} }
	file := func(rel string) hiddenPath { return hiddenPath{Path: at(rel)} }
	cases := []struct {
		name               string
		hide, show, write  []string
		wantHide, wantShow []hiddenPath
	}{
		{name: "missing paths are left out", hide: []string{at("home/.docker"), at("home/.kube")}},
		{name: "files and directories", hide: []string{at("home/.netrc"), at("home/.ssh")},
			wantHide: []hiddenPath{file("home/.netrc"), dir("home/.ssh")}},
		{name: "a link hides its target", hide: []string{at("home/.aws")}, wantHide: []hiddenPath{dir("elsewhere/aws")}},
		{name: "twice is once", hide: []string{at("home/.aws"), at("elsewhere/aws"), at("home/.aws/")},
			wantHide: []hiddenPath{dir("elsewhere/aws")}},
		{name: "inside another is left out", hide: []string{at("home/.config/wield/home"), at("home/.config/wield")},
			wantHide: []hiddenPath{dir("home/.config/wield")}},
		{name: "the workspace wins", hide: []string{at("home/ws/.npmrc"), at("home/ws"), at("home/.netrc")}, write: []string{at("home/ws")},
			wantHide: []hiddenPath{file("home/.netrc")}},
		{name: "a workspace inside stays hidden", hide: []string{at("home/.config/gh")}, write: []string{at("home/.config/gh/project")},
			wantHide: []hiddenPath{dir("home/.config/gh")}},
		{name: "shown whole", hide: []string{at("home/.ssh"), at("home/.netrc")}, show: []string{at("home")},
			wantHide: nil},
		{name: "shown inside a hidden directory", hide: []string{at("home/.ssh")}, show: []string{at("home/.ssh/known_hosts")},
			wantHide: []hiddenPath{dir("home/.ssh")}, wantShow: []hiddenPath{file("home/.ssh/known_hosts")}},
		{name: "shown outside needs nothing", hide: []string{at("home/.ssh")}, show: []string{at("home/ws"), at("home/.docker")},
			wantHide: []hiddenPath{dir("home/.ssh")}},
		{name: "a socket alone is hidden with its directory", hide: []string{at("tmp/agent/sock")},
			wantHide: []hiddenPath{{Path: at("tmp/agent"), Dir: true, Sockets: true}}},
		{name: "a socket among files is not hidden", hide: []string{at("tmp/other/sock")}},
		{name: "hidden for itself first", hide: []string{at("tmp/agent/sock"), at("tmp/agent")},
			wantHide: []hiddenPath{dir("tmp/agent")}},
		{name: "never the root", hide: []string{"/", at("home/.netrc")}, wantHide: []hiddenPath{file("home/.netrc")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hide, show := resolveHidden(c.hide, c.show, c.write)
			if diff := cmp.Diff(c.wantHide, hide); diff != "" {
				t.Errorf("hidden (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.wantShow, show); diff != "" {
				t.Errorf("shown (-want +got):\n%s", diff)
			}
		})
	}
}
