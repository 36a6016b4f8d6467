package sandbox

import (
	"errors"
	"fmt"
	"net/netip"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A Proxy is where the network proxy of the sandbox listens (package
// sandbox/egress runs one): commands that may not use the network reach
// it, and only it, as "Network through a proxy" in the package
// documentation describes.
type Proxy struct {
	// Socket is the path of the proxy's Unix socket, which a command
	// reaches under bubblewrap through a forwarder inside its network
	// namespace. Required with bubblewrap. Its directory is shown to
	// commands even when it lies in a hidden one ([Config.Hide]), so it
	// should hold nothing else.
	Socket string
	// Addr is the proxy's address on 127.0.0.1, which a command reaches
	// under Landlock (and without isolation). Required with Landlock.
	// Under bubblewrap its port, when set, is the forwarder's, so that a
	// command sees the same proxy address under either mechanism.
	Addr netip.AddrPort
}

// DefaultProxyPort is the port of the forwarder inside bubblewrap's
// network namespace when [Proxy.Addr] is not set.
const DefaultProxyPort = 3128

// proxyVars are the environment variables that point programs at the
// proxy: curl, wget, Python, Go, Node's proxy agents, git, pip and npm
// read one form or the other. The no-proxy lists are emptied, so that no
// host is meant to be reached directly.
var proxyVars = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"}
var noProxyVars = []string{"NO_PROXY", "no_proxy"}

// A proxySpec is what the helper needs to know of the proxy.
type proxySpec struct {
	// Socket is the proxy's Unix socket (under bubblewrap).
	Socket string `json:"socket,omitempty"`
	// Port is the port on 127.0.0.1 the command connects to.
	Port uint16 `json:"port"`
	// Helper is the helper's arguments before the spec (Config.Helper
	// less the program), with which the helper starts itself again
	// inside bubblewrap.
	Helper []string `json:"helper,omitempty"`
	// Inside reports whether this helper is the one inside bubblewrap:
	// it runs the forwarder and starts the command through one more
	// helper, which sets the limits.
	Inside bool `json:"inside,omitempty"`
}

func (p *proxySpec) check() error {
	if p == nil {
		return nil
	}
	if p.Port == 0 {
		return errors.New("proxy port is 0")
	}
	if p.Socket != "" && !filepath.IsAbs(p.Socket) {
		return fmt.Errorf("proxy socket %q is not absolute", p.Socket)
	}
	return nil
}

// checkProxy checks p for a sandbox of mechanism m and returns a copy,
// with the socket's directory's symbolic links resolved. It returns nil
// for nil.
func checkProxy(p *Proxy, m Mechanism) (*Proxy, error) {
	if p == nil {
		return nil, nil
	}
	c := *p
	if c.Addr.IsValid() && !c.Addr.Addr().IsLoopback() {
		return nil, fmt.Errorf("sandbox: proxy address %s is not a loopback address", c.Addr)
	}
	if c.Socket != "" {
		if !filepath.IsAbs(c.Socket) {
			return nil, fmt.Errorf("sandbox: proxy socket %q is not absolute", c.Socket)
		}
		dir, err := filepath.EvalSymlinks(filepath.Dir(c.Socket))
		if err != nil {
			return nil, fmt.Errorf("sandbox: proxy socket: %w", err)
		}
		c.Socket = filepath.Join(dir, filepath.Base(c.Socket))
	}
	switch {
	case m == Bubblewrap && c.Socket == "":
		return nil, errors.New("sandbox: Config.Proxy has no Socket, which bubblewrap needs: commands reach the proxy through it")
	case m != Bubblewrap && (!c.Addr.IsValid() || c.Addr.Port() == 0):
		return nil, fmt.Errorf("sandbox: Config.Proxy has no Addr, which %s needs: commands reach the proxy on 127.0.0.1", m)
	}
	return &c, nil
}

// useProxy points p's command at the sandbox's proxy, when it has one
// and c does not have the network: the spec says where the proxy is,
// the environment names it, and under bubblewrap the socket's directory
// is shown if it lies in a hidden one.
func (s *Sandbox) useProxy(p *prepared, c *Command) {
	px := s.cfg.Proxy
	if px == nil || c.Network {
		return
	}
	port := uint16(DefaultProxyPort)
	if px.Addr.IsValid() && px.Addr.Port() != 0 {
		port = px.Addr.Port()
	}
	p.spec.Proxy = &proxySpec{Port: port}
	if s.caps.Mechanism == Bubblewrap {
		p.spec.Proxy.Socket = px.Socket
		p.spec.Proxy.Helper = slices.Clone(s.cfg.Helper[1:])
		dir := filepath.Dir(px.Socket)
		if slices.ContainsFunc(p.spec.Hide, func(h hiddenPath) bool { return h.Dir && within(dir, h.Path) }) &&
			!slices.ContainsFunc(p.spec.Show, func(sh hiddenPath) bool { return within(dir, sh.Path) }) {
			p.spec.Show = append(p.spec.Show, hiddenPath{Path: dir, Dir: true})
			slices.SortFunc(p.spec.Show, func(a, b hiddenPath) int { return strings.Compare(a.Path, b.Path) })
		}
	}
	p.env = proxyEnv(p.env, "http://127.0.0.1:"+strconv.Itoa(int(port)))
}

// proxyEnv returns env with the proxy variables set to url and the
// no-proxy ones emptied, replacing what env had of them. It does not
// modify env.
func proxyEnv(env []string, url string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(proxyVars, name) || slices.Contains(noProxyVars, name)
	})
	for _, v := range proxyVars {
		out = append(out, v+"="+url)
	}
	for _, v := range noProxyVars {
		out = append(out, v+"=")
	}
	return out
}
