package sandbox

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// CredentialPaths returns the places where programs keep the secrets of
// a user whose home directory is home and whose configuration directory
// ([os.UserConfigDir]) is configDir: SSH and GnuPG keys; the logins of
// the cloud, container, infrastructure and package-registry clients;
// git's and the forges' tokens; password stores and keyrings; browser
// and chat profiles, with their cookies; the database clients' password
// files; the logins of other coding agents; and wield's own configuration
// directory, which holds its API keys. A [Sandbox] hides them by default
// (see "What is hidden" in the package documentation).
//
// A path under ~/.config is given under configDir too when that is
// elsewhere, since some programs follow XDG_CONFIG_HOME and some do not.
// An empty home or configDir leaves out the paths beneath it. The paths
// are absolute and clean but not resolved, and most do not exist on any
// one machine. Each call returns a new slice, which the caller owns.
func CredentialPaths(home, configDir string) []string {
	inHome := []string{
		// Keys, and the certificates with keys of NSS programs.
		".ssh", ".gnupg", ".pki", ".1password",
		// Cloud, container and infrastructure clients.
		".aws", ".azure", ".kube", ".docker", ".oci", ".boto", ".s3cfg",
		".vault-token", ".terraformrc", ".terraform.d/credentials.tfrc.json",
		// Logins for hosts, git and package registries.
		".netrc", ".authinfo", ".authinfo.gpg", ".git-credentials",
		".npmrc", ".yarnrc.yml", ".pypirc", ".gem/credentials",
		".cargo/credentials", ".cargo/credentials.toml",
		".m2/settings.xml", ".m2/settings-security.xml", ".gradle/gradle.properties",
		".nuget/NuGet/NuGet.Config", ".composer/auth.json",
		// Databases.
		".pgpass", ".my.cnf", ".mylogin.cnf",
		// Password stores and keyrings.
		".password-store", ".local/share/keyrings", ".local/share/kwalletd",
		// Browser and mail profiles, installed plainly, as snaps or as
		// Flatpaks.
		".mozilla", ".thunderbird", ".librewolf",
		"snap/firefox", "snap/chromium", "snap/thunderbird",
		".var/app/org.mozilla.firefox", ".var/app/org.mozilla.Thunderbird",
		".var/app/com.google.Chrome", ".var/app/org.chromium.Chromium",
		".var/app/com.brave.Browser", ".var/app/com.microsoft.Edge",
		// Other coding agents' logins.
		".claude/.credentials.json", ".codex/auth.json", ".gemini/oauth_creds.json",
	}
	inConfig := []string{
		"wield",
		"gcloud", "doctl", "rclone", "containers/auth.json",
		"git/credentials", "gh", "hub", "glab-cli", "github-copilot",
		"composer/auth.json", "NuGet/NuGet.Config",
		"op", "Bitwarden CLI",
		"google-chrome", "google-chrome-beta", "google-chrome-unstable", "chromium",
		"BraveSoftware", "microsoft-edge", "microsoft-edge-beta", "vivaldi", "opera",
		"Slack", "Signal", "discord",
	}
	var paths []string
	add := func(dir string, names []string) {
		if !filepath.IsAbs(dir) {
			return
		}
		for _, n := range names {
			if p := filepath.Join(dir, n); !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	add(home, inHome)
	if home != "" {
		add(filepath.Join(home, ".config"), inConfig)
	}
	add(configDir, inConfig)
	return paths
}

// defaultHidden returns the paths a sandbox hides when its Config says
// nothing, for the environment getenv looks up and the home directory
// the password database gives (passwdHome; empty when unknown):
// [CredentialPaths] for the home directory of $HOME and for passwdHome,
// the files and directories that environment variables move those to,
// wield's $WIELD_HOME, and the sockets through which agents act with the
// user's keys.
func defaultHidden(getenv func(string) string, passwdHome string) []string {
	home := getenv("HOME")
	configDir := getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(configDir) {
		configDir = "" // os.UserConfigDir ignores a relative one too
	}
	paths := CredentialPaths(home, configDir)
	if passwdHome != "" && passwdHome != home {
		paths = append(paths, CredentialPaths(passwdHome, "")...)
	}
	for _, name := range []string{
		"WIELD_HOME", // workspace.HomeEnv: sessions kept outside the workspace
		"GNUPGHOME", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "AZURE_CONFIG_DIR",
		"CLOUDSDK_CONFIG", "GOOGLE_APPLICATION_CREDENTIALS", "DOCKER_CONFIG", "TF_CLI_CONFIG_FILE",
		"PASSWORD_STORE_DIR", "GH_CONFIG_DIR", "NETRC", "NPM_CONFIG_USERCONFIG", "npm_config_userconfig",
		"PGPASSFILE",
		// Sockets: an agent that signs with the user's keys, and the
		// user's runtime directory with the session bus (which reaches
		// the keyring), GnuPG's agent and rootless container engines.
		"SSH_AUTH_SOCK", "XDG_RUNTIME_DIR",
	} {
		paths = append(paths, getenv(name))
	}
	for kc := range strings.SplitSeq(getenv("KUBECONFIG"), ":") {
		paths = append(paths, kc)
	}
	if cargo := getenv("CARGO_HOME"); cargo != "" {
		paths = append(paths, filepath.Join(cargo, "credentials"), filepath.Join(cargo, "credentials.toml"))
	}
	// The runtime directory when XDG_RUNTIME_DIR is not set.
	paths = append(paths, "/run/user/"+strconv.Itoa(os.Getuid()))
	return slices.DeleteFunc(paths, func(p string) bool { return !filepath.IsAbs(p) || filepath.Clean(p) == "/" })
}

// passwdHome returns the home directory the password database gives for
// the calling user, or "" when it gives none.
func passwdHome() string {
	u, err := user.Current()
	if err != nil || !filepath.IsAbs(u.HomeDir) {
		return ""
	}
	return u.HomeDir
}

// hideLists returns what a sandbox with cfg hides and shows, before
// resolution, and an error naming a path of cfg that is not absolute or
// would hide the root.
func hideLists(cfg Config) (hide, show []string, err error) {
	for _, p := range cfg.Hide {
		if !filepath.IsAbs(p) {
			return nil, nil, fmt.Errorf("sandbox: Config.Hide: %q is not an absolute path", p)
		}
		if filepath.Clean(p) == "/" {
			return nil, nil, errors.New("sandbox: Config.Hide: hiding / would hide every program")
		}
	}
	for _, p := range cfg.Show {
		if !filepath.IsAbs(p) {
			return nil, nil, fmt.Errorf("sandbox: Config.Show: %q is not an absolute path", p)
		}
	}
	hide = append(defaultHidden(os.Getenv, passwdHome()), cfg.Hide...)
	return hide, slices.Clone(cfg.Show), nil
}

// Hidden returns the paths a [Sandbox] made with cfg hides from a command
// started now, as "What is hidden" in the package documentation says:
// those of [CredentialPaths] and the others hidden by default, found
// through the caller's environment, with cfg.Hide added and cfg.Show
// taken away. Only paths that exist are listed, with symbolic links
// resolved, sorted, and none inside another. A command's own writable
// directories are not hidden from it, and this list does not know them.
// Hidden fails as [New] does when a path of cfg.Hide or cfg.Show is not
// absolute. It reads the file system and is safe for concurrent use; the
// caller owns the slice.
func Hidden(cfg Config) ([]string, error) {
	hide, show, err := hideLists(cfg)
	if err != nil {
		return nil, err
	}
	hidden, _ := resolveHidden(hide, show, nil)
	paths := make([]string, len(hidden))
	for i, h := range hidden {
		paths[i] = h.Path
	}
	return paths, nil
}

// A hiddenPath is a path the command must not see, or (in spec.Show) one
// inside a hidden directory that it must, with symbolic links resolved.
type hiddenPath struct {
	Path string `json:"path"`
	Dir  bool   `json:"dir,omitempty"`
	// Sockets reports whether the path is a directory hidden in place of
	// the sockets in it (see resolve).
	Sockets bool `json:"sockets,omitempty"`
}

// resolveHidden resolves the paths of hide and show for a command whose
// writable directories are writable, and returns those to hide and
// those to show inside them, each sorted by path. A path that does not
// exist is left out. A hidden path is left out when it is, or lies
// inside, a writable directory or a shown path (the workspace wins, and
// a shown path is shown whole), or inside another hidden one (which
// hides it already). A shown path is kept only when it lies inside a
// hidden directory; anywhere else it is visible already.
func resolveHidden(hide, show, writable []string) (hidden, shown []hiddenPath) {
	var s []hiddenPath
	for _, p := range show {
		if r, ok := resolve(p); ok && !slices.Contains(s, r) {
			s = append(s, r)
		}
	}
	var h []hiddenPath
	for _, p := range hide {
		r, ok := resolve(p)
		if !ok || r.Path == "/" || slices.Contains(h, r) ||
			slices.ContainsFunc(writable, func(w string) bool { return within(r.Path, w) }) ||
			slices.ContainsFunc(s, func(s hiddenPath) bool { return within(r.Path, s.Path) }) {
			continue
		}
		h = append(h, r)
	}
	outermost := func(list []hiddenPath) []hiddenPath {
		// By path, and of two for one path the one hidden for itself
		// first, for Landlock leaves those hidden for sockets alone.
		slices.SortFunc(list, func(a, b hiddenPath) int {
			return cmp.Or(strings.Compare(a.Path, b.Path), cmpBool(a.Sockets, b.Sockets))
		})
		var out []hiddenPath
		for _, p := range list {
			if !slices.ContainsFunc(out, func(o hiddenPath) bool { return within(p.Path, o.Path) }) {
				out = append(out, p)
			}
		}
		return out
	}
	hidden = outermost(h)
	for _, p := range outermost(s) {
		if slices.ContainsFunc(hidden, func(h hiddenPath) bool { return h.Dir && p.Path != h.Path && within(p.Path, h.Path) }) {
			shown = append(shown, p)
		}
	}
	return hidden, shown
}

// resolve returns p with symbolic links resolved and whether it is a
// directory; ok is false when p does not exist (or cannot be reached, in
// which case the command cannot reach it either). Only directories and
// regular files can be hidden: bubblewrap (before 0.9) cannot mount over
// a socket, a named pipe or a device. So such a file is hidden with its
// directory when that holds nothing else, as an agent's private
// directory does (ssh-agent's /tmp/ssh-XXXXXX/agent.N), and is not
// hidden otherwise.
func resolve(p string) (r hiddenPath, ok bool) {
	// Most paths do not exist: one lstat says so before the walk of
	// EvalSymlinks.
	if _, err := os.Lstat(p); err != nil {
		return hiddenPath{}, false
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return hiddenPath{}, false
	}
	fi, err := os.Stat(real)
	if err != nil {
		return hiddenPath{}, false
	}
	if fi.IsDir() || fi.Mode().IsRegular() {
		return hiddenPath{Path: real, Dir: fi.IsDir()}, true
	}
	dir := filepath.Dir(real)
	entries, err := os.ReadDir(dir)
	if err != nil || dir == "/" || slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.IsDir() || e.Type().IsRegular() }) {
		return hiddenPath{}, false
	}
	return hiddenPath{Path: dir, Dir: true, Sockets: true}, true
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// within reports whether path is dir or lies beneath it; both are clean
// and absolute.
func within(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}
