package desktop

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/wieldhq/wield/sandbox"
)

// A display is one X display the tool works on: an Xvfb server it started
// (with the private authority file of a random cookie), or a display the
// user opted into. Its methods are not safe for concurrent use; the
// Desktop serialises them.
type display struct {
	name     string // ":N"
	authFile string // the Xauthority file apps get; "" for the user's display
	dir      string // the private directory holding authFile; removed by close
	cookie   []byte // the MIT-MAGIC-COOKIE-1 of a display wield started
	conn     *xgb.Conn
	root     xproto.Window
	width    int
	height   int
	// Offsets of red, green and blue in a pixel of GetImage's data.
	rOff, gOff, bOff int
	keys             *keymap
	// shm, when not nil, is the shared segment screenshots are read
	// into; nil means GetImage over the socket.
	shm    *shmImage
	server *server // nil for the user's display
	apps   *apps
}

// A server is a running Xvfb.
type server struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd.Wait has returned
	stderr *capped
}

// startXvfb starts Xvfb on a free display number of its choosing and
// connects to it. The server runs in a process group of its own and is
// killed by the kernel when the thread that started it (and so wield)
// dies.
func startXvfb(ctx context.Context, cfg *Config) (_ *display, err error) {
	xvfb, err := exec.LookPath(cfg.Xvfb)
	if err != nil {
		return nil, fmt.Errorf("desktop: Xvfb not found (%w): install it (Debian and Ubuntu: apt-get install xvfb; Fedora: dnf install xorg-x11-server-Xvfb)", err)
	}
	dir, err := os.MkdirTemp("", "wield-desktop-")
	if err != nil {
		return nil, fmt.Errorf("desktop: private directory: %w", err)
	}
	d := &display{dir: dir, authFile: filepath.Join(dir, "Xauthority")}
	defer func() {
		if err != nil {
			d.close(cfg.KillGrace)
		}
	}()
	d.cookie = make([]byte, 16)
	rand.Read(d.cookie)
	if err := os.WriteFile(d.authFile, xauthority(d.cookie), 0o600); err != nil {
		return nil, fmt.Errorf("desktop: authority file: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("desktop: %w", err)
	}
	defer r.Close()
	args := []string{"-displayfd", "3", "-auth", d.authFile, "-nolisten", "tcp", "-nolisten", "local",
		"-screen", "0", fmt.Sprintf("%dx%dx24", cfg.Width, cfg.Height), "-dpi", "96", "-noreset"}
	argv := append([]string{xvfb}, args...)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + dir}
	if serverSandboxed(cfg) {
		// Xvfb writes its socket to /tmp/.X11-unix and its lock file and
		// compiled keymaps to /tmp: those, and the private directory, are
		// all it may write. It never needs the network.
		wr, err := cfg.Sandbox.Wrap(&sandbox.Command{Args: argv, Env: env, Dir: dir, Scratch: dir, Workspace: os.TempDir(),
			CPUTime: -1, Memory: -1, MaxFileSize: -1})
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("desktop: Xvfb in the sandbox: %w", err)
		}
		argv, env = wr.Args, wr.Env
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.ExtraFiles = []*os.File{w}
	cmd.Dir = dir
	cmd.Env = env
	srv := &server{cmd: cmd, exited: make(chan struct{}), stderr: &capped{max: 4096}}
	cmd.Stderr = srv.stderr
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("desktop: start Xvfb: %w", err)
	}
	w.Close()
	d.server = srv
	go func() {
		cmd.Wait()
		close(srv.exited)
	}()
	// Xvfb writes the display number once its sockets listen; end of
	// file means it exited first.
	r.SetReadDeadline(time.Now().Add(cfg.StartTimeout))
	stop := context.AfterFunc(ctx, func() { r.SetReadDeadline(time.Now()) })
	line, err := bufio.NewReader(r).ReadString('\n')
	stop()
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("desktop: start Xvfb: %w", context.Cause(ctx))
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, fmt.Errorf("desktop: Xvfb did not start within %v%s", cfg.StartTimeout, srv.stderr.tail())
		}
		<-srv.exited
		return nil, fmt.Errorf("desktop: Xvfb exited at start (%v)%s", cmd.ProcessState, srv.stderr.tail())
	}
	n, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || n < 0 {
		return nil, fmt.Errorf("desktop: Xvfb gave display number %q", strings.TrimSpace(line))
	}
	d.name = ":" + strconv.Itoa(n)
	conn, err := d.dial()
	if err != nil {
		return nil, err
	}
	if err := d.setup(conn); err != nil {
		return nil, err
	}
	return d, nil
}

// dial opens a new connection to the Xvfb that d started.
func (d *display) dial() (*xgb.Conn, error) {
	nc, err := net.Dial("unix", "/tmp/.X11-unix/X"+strings.TrimPrefix(d.name, ":"))
	if err != nil {
		return nil, fmt.Errorf("desktop: connect to Xvfb on %s: %w", d.name, err)
	}
	conn, err := xgb.NewConnNet(&authConn{Conn: nc, cookie: d.cookie})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("desktop: connect to Xvfb on %s: %w", d.name, err)
	}
	return conn, nil
}

// serverSandboxed reports whether Xvfb runs in cfg's sandbox: only under
// bubblewrap. Under Landlock an Xvfb run as root writes its compiled
// keymaps to /var/lib/xkb (as another user, to /tmp), which the sandbox
// forbids; and Landlock would give it no namespaces of its own.
func serverSandboxed(cfg *Config) bool {
	return cfg.Sandbox != nil && !cfg.ServerOutsideSandbox && cfg.Sandbox.Capabilities().Mechanism == sandbox.Bubblewrap
}

// openDisplay connects to an existing display, such as the user's own,
// with the authority of the environment ($XAUTHORITY).
func openDisplay(name string) (*display, error) {
	conn, err := xgb.NewConnDisplay(name)
	if err != nil {
		return nil, fmt.Errorf("desktop: connect to display %s: %w", name, err)
	}
	d := &display{name: name}
	if err := d.setup(conn); err != nil {
		d.close(0)
		return nil, err
	}
	return d, nil
}

// setup reads the screen's geometry and pixel format and the keyboard
// mapping, and checks for XTEST.
func (d *display) setup(conn *xgb.Conn) error {
	d.conn = conn
	d.apps = &apps{}
	if err := xtest.Init(conn); err != nil {
		return fmt.Errorf("desktop: display %s has no XTEST extension, which input needs (%w): start Xvfb without -tst", d.name, err)
	}
	if _, err := xtest.GetVersion(conn, 2, 2).Reply(); err != nil {
		return fmt.Errorf("desktop: XTEST on %s: %w", d.name, err)
	}
	setup := xproto.Setup(conn)
	scr := setup.DefaultScreen(conn)
	d.root = scr.Root
	d.width, d.height = int(scr.WidthInPixels), int(scr.HeightInPixels)
	bpp := 0
	for _, f := range setup.PixmapFormats {
		if f.Depth == scr.RootDepth {
			bpp = int(f.BitsPerPixel)
		}
	}
	var vis *xproto.VisualInfo
	for _, dp := range scr.AllowedDepths {
		for i, v := range dp.Visuals {
			if v.VisualId == scr.RootVisual {
				vis = &dp.Visuals[i]
			}
		}
	}
	if bpp != 32 || vis == nil || setup.ImageByteOrder != xproto.ImageOrderLSBFirst {
		return fmt.Errorf("desktop: display %s has depth %d at %d bits a pixel; want a 24-bit TrueColor screen at 32 bits (Xvfb -screen 0 WxHx24)", d.name, scr.RootDepth, bpp)
	}
	off := func(mask uint32) (int, bool) {
		switch mask {
		case 0xff:
			return 0, true
		case 0xff00:
			return 1, true
		case 0xff0000:
			return 2, true
		}
		return 0, false
	}
	var ok1, ok2, ok3 bool
	d.rOff, ok1 = off(vis.RedMask)
	d.gOff, ok2 = off(vis.GreenMask)
	d.bOff, ok3 = off(vis.BlueMask)
	if !ok1 || !ok2 || !ok3 {
		return fmt.Errorf("desktop: display %s has an unsupported pixel layout (masks %#x %#x %#x)", d.name, vis.RedMask, vis.GreenMask, vis.BlueMask)
	}
	km, err := loadKeymap(conn, setup)
	if err != nil {
		return err
	}
	d.keys = km
	if s, err := newShmImage(conn, 4*d.width*d.height); err == nil {
		d.shm = s
	}
	return nil
}

// env returns the environment variables that put an app on the display:
// the private authority file of a display wield started, the user's own
// ($XAUTHORITY) for the user's display.
func (d *display) env() []string {
	env := []string{"DISPLAY=" + d.name}
	if d.authFile != "" {
		env = append(env, "XAUTHORITY="+d.authFile)
	} else if a, ok := os.LookupEnv("XAUTHORITY"); ok {
		env = append(env, "XAUTHORITY="+a)
	}
	return env
}

// stopped reports whether the Xvfb of d has exited.
func (d *display) stopped() bool {
	if d.server == nil {
		return false
	}
	select {
	case <-d.server.exited:
		return true
	default:
		return false
	}
}

// sync waits until the server has processed every request sent so far,
// fake input included.
func (d *display) sync() error {
	_, err := xproto.GetInputFocus(d.conn).Reply()
	return err
}

// close stops the apps, closes the connection, stops Xvfb (SIGTERM, then
// SIGKILL after grace) and removes the private directory.
func (d *display) close(grace time.Duration) {
	if d.apps != nil {
		d.apps.close(grace)
	}
	if d.conn != nil {
		d.conn.Close()
	}
	if d.shm != nil {
		d.shm.close()
	}
	if s := d.server; s != nil {
		pgid := s.cmd.Process.Pid
		// In a sandbox, Xvfb is a grandchild in a PID namespace of its
		// own, which dies with the sandbox's helper: wait for it too.
		gone := descendants(pgid)
		defer awaitGone(gone, grace)
		syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(grace):
			syscall.Kill(-pgid, syscall.SIGKILL)
			<-s.exited
		}
	}
	if d.dir != "" {
		os.RemoveAll(d.dir)
	}
}

// xauthority returns an Xauthority file with one entry: the cookie for
// any address and any display number (FamilyWild), since the display
// number is known only once Xvfb runs.
func xauthority(cookie []byte) []byte {
	var b bytes.Buffer
	field := func(s []byte) {
		binary.Write(&b, binary.BigEndian, uint16(len(s)))
		b.Write(s)
	}
	binary.Write(&b, binary.BigEndian, uint16(0xffff)) // FamilyWild
	field(nil)                                         // address
	field(nil)                                         // display number
	field([]byte("MIT-MAGIC-COOKIE-1"))
	field(cookie)
	return b.Bytes()
}

// An authConn presents a cookie in the connection setup that xgb writes.
// xgb v1.1.1 takes the cookie only from the file $XAUTHORITY names, which
// is process-wide state; authConn rewrites the first message instead,
// the setup request, whose layout is fixed by the X protocol.
type authConn struct {
	net.Conn
	cookie []byte
	once   sync.Once
}

func (c *authConn) Write(p []byte) (int, error) {
	first := false
	c.once.Do(func() { first = true })
	if !first {
		return c.Conn.Write(p)
	}
	if len(p) < 12 || p[0] != 'l' {
		return 0, errors.New("desktop: unexpected X connection setup")
	}
	const name = "MIT-MAGIC-COOKIE-1"
	pad := func(n int) int { return (n + 3) &^ 3 }
	req := make([]byte, 12+pad(len(name))+pad(len(c.cookie)))
	copy(req, p[:6]) // byte order, unused, protocol major and minor
	binary.LittleEndian.PutUint16(req[6:], uint16(len(name)))
	binary.LittleEndian.PutUint16(req[8:], uint16(len(c.cookie)))
	copy(req[12:], name)
	copy(req[12+pad(len(name)):], c.cookie)
	if _, err := c.Conn.Write(req); err != nil {
		return 0, err
	}
	return len(p), nil
}

// A capped keeps the last max bytes written to it. It is safe for
// concurrent use.
type capped struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b = append(c.b, p...)
	if len(c.b) > c.max {
		c.b = c.b[len(c.b)-c.max:]
	}
	return len(p), nil
}

// tail returns ": " and the text kept, or "" when there is none.
func (c *capped) tail() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := strings.TrimSpace(string(c.b))
	if s == "" {
		return ""
	}
	return ": " + s
}
