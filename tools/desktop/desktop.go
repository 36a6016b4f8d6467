package desktop

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/jezek/xgb/xproto"

	"github.com/wieldhq/wield/sandbox"
	"github.com/wieldhq/wield/tool"
)

//go:embed desktop.md
var description string

// Defaults for the fields of [Config].
const (
	DefaultWidth        = 1280
	DefaultHeight       = 800
	DefaultMaxWidth     = 1280
	DefaultMaxHeight    = 800
	DefaultMaxPixels    = 1_150_000 // Anthropic's recommended ceiling, 1.15 megapixels
	DefaultStartTimeout = 10 * time.Second
	DefaultKillGrace    = 2 * time.Second
	// MaxDuration bounds the duration of wait and hold_key, in seconds,
	// as Anthropic's reference implementation does.
	MaxDuration = 100
	// DefaultScroll is the scroll_amount of a scroll that gives none;
	// MaxScroll bounds it.
	DefaultScroll = 3
	MaxScroll     = 100
	// MaxText bounds the characters of one type action.
	MaxText = 10_000
)

// Config configures the desktop tool. The zero value gives a tool that
// starts its own Xvfb of DefaultWidth×DefaultHeight on first use, outside
// any sandbox, and offers every action.
type Config struct {
	// Width and Height are the size of the virtual screen wield starts;
	// zero means DefaultWidth and DefaultHeight.
	Width, Height int
	// MaxWidth, MaxHeight and MaxPixels bound the screenshots the model
	// sees: a larger screen is scaled down, keeping its aspect ratio, and
	// the model's coordinates are mapped back to the screen's. Zero means
	// DefaultMaxWidth, DefaultMaxHeight and DefaultMaxPixels.
	MaxWidth, MaxHeight, MaxPixels int
	// Display, when set, is an existing X display to work on (":0", the
	// user's own) instead of a virtual one: an opt-in, since the model
	// then sees and drives the user's desktop. Authority comes from the
	// environment ($XAUTHORITY). Empty means a new Xvfb.
	Display string
	// Xvfb is the Xvfb program; empty means "Xvfb" looked up in PATH.
	Xvfb string
	// StartTimeout bounds Xvfb's start; zero means DefaultStartTimeout.
	StartTimeout time.Duration
	// KillGrace is how long Xvfb and the launched apps have between
	// SIGTERM and SIGKILL when the desktop closes; zero means
	// DefaultKillGrace.
	KillGrace time.Duration
	// Environ is the environment of launched apps, to which DISPLAY and
	// XAUTHORITY are added. Nil means wield's own PATH, HOME, LANG,
	// LC_ALL, USER, SHELL and TERM; the caller removes secrets from what
	// it passes. New copies the slice.
	Environ []string
	// Dir is the working directory of launched apps outside a sandbox;
	// empty means wield's own.
	Dir string
	// Sandbox, when set, runs launched apps in it: the system read-only,
	// writes only to a scratch directory of each app's own (its HOME and
	// TMPDIR), no network unless SandboxNetwork. Nil means apps run with
	// the rights of the user running wield.
	Sandbox *sandbox.Sandbox
	// SandboxNetwork allows sandboxed apps the network.
	SandboxNetwork bool
	// ServerOutsideSandbox runs Xvfb outside [Config.Sandbox], which then
	// holds the launched apps only. By default, when the sandbox is
	// bubblewrap, Xvfb runs in it too, without network and writing only
	// to its private directory and the temporary directory (its socket,
	// lock and keymaps), so that an app that subverts the X server is
	// still confined. The server then has an IPC namespace of its own, and
	// screenshots travel over the socket instead of shared memory, some
	// tens of milliseconds more. Under Landlock Xvfb always runs outside.
	ServerOutsideSandbox bool
	// ViewOnly offers only the actions that change nothing (screenshot,
	// zoom, cursor_position and wait), and annotates the tool read-only,
	// so that a policy lets it run without asking.
	ViewOnly bool
	// Logger receives a record when the display starts and stops; nil
	// discards.
	Logger *slog.Logger
}

// Input is the argument object of the desktop tool: the action set of
// Anthropic's computer-use tool (computer_20251124) and launch.
type Input struct {
	Action          string  `json:"action" enum:"screenshot,left_click,right_click,middle_click,double_click,triple_click,mouse_move,left_click_drag,left_mouse_down,left_mouse_up,type,key,hold_key,scroll,cursor_position,wait,zoom,launch" jsonschema:"what to do"`
	Coordinate      []int   `json:"coordinate,omitempty" jsonschema:"[x, y] in screenshot pixels: where to click, move, scroll or end a drag"`
	StartCoordinate []int   `json:"start_coordinate,omitempty" jsonschema:"[x, y] where left_click_drag starts"`
	Text            string  `json:"text,omitempty" jsonschema:"the text to type; the keys for key and hold_key (xdotool syntax: Return, ctrl+s); for clicks and scroll, modifier keys to hold (shift, ctrl)"`
	ScrollDirection string  `json:"scroll_direction,omitempty" enum:"up,down,left,right" jsonschema:"the direction to scroll"`
	ScrollAmount    int     `json:"scroll_amount,omitempty" jsonschema:"how many wheel steps to scroll"`
	Duration        float64 `json:"duration,omitempty" jsonschema:"seconds to wait or to hold the keys"`
	Region          []int   `json:"region,omitempty" jsonschema:"[x0, y0, x1, y1] in screenshot pixels: the part of the screen zoom shows at full resolution"`
	Command         string  `json:"command,omitempty" jsonschema:"the command line launch runs with bash -c on the display"`
}

// Data is the Data of the tool's successful results.
type Data struct {
	Action string `json:"action"`
	// Width and Height are the size of screenshots, the space of every
	// coordinate; ScreenWidth and ScreenHeight the screen's own size.
	Width        int `json:"width"`
	Height       int `json:"height"`
	ScreenWidth  int `json:"screen_width"`
	ScreenHeight int `json:"screen_height"`
	// X and Y are the pointer's position after the action, in screenshot
	// pixels.
	X int `json:"x"`
	Y int `json:"y"`
	// PID is the process id of the program launch started.
	PID int `json:"pid,omitempty"`
	// Scratch is the directory a program launched in the sandbox may
	// write to, its HOME and TMPDIR.
	Scratch string `json:"scratch,omitempty"`
	// Display is the X display ("DISPLAY=" value) the desktop runs on.
	Display string `json:"display"`
}

// A Desktop is the desktop tool and the display it drives, started on
// first use. It is safe for concurrent use; actions run one at a time.
// Close stops the display and every app launched on it.
type Desktop struct {
	cfg  Config
	log  *slog.Logger
	tool *tool.Tool

	mu     sync.Mutex
	disp   *display
	scale  scale
	enc    *encoder
	closed bool
}

// New returns a desktop configured by cfg. It starts nothing: the display
// starts on the first call of the tool. A bad value in cfg is an error.
func New(cfg Config) (*Desktop, error) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&cfg.Width, DefaultWidth)
	def(&cfg.Height, DefaultHeight)
	def(&cfg.MaxWidth, DefaultMaxWidth)
	def(&cfg.MaxHeight, DefaultMaxHeight)
	def(&cfg.MaxPixels, DefaultMaxPixels)
	if cfg.Width < 16 || cfg.Height < 16 || cfg.Width > 8192 || cfg.Height > 8192 {
		return nil, fmt.Errorf("desktop: screen size %dx%d: want 16 to 8192 pixels a side", cfg.Width, cfg.Height)
	}
	if cfg.MaxWidth < 16 || cfg.MaxHeight < 16 || cfg.MaxPixels < 256 {
		return nil, fmt.Errorf("desktop: screenshot bounds %dx%d, %d pixels: too small", cfg.MaxWidth, cfg.MaxHeight, cfg.MaxPixels)
	}
	if cfg.Xvfb == "" {
		cfg.Xvfb = "Xvfb"
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.KillGrace <= 0 {
		cfg.KillGrace = DefaultKillGrace
	}
	if cfg.Environ == nil {
		cfg.Environ = minimalEnviron()
	} else {
		cfg.Environ = slices.Clone(cfg.Environ)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &Desktop{cfg: cfg, log: log, enc: newEncoder()}
	d.scale = newScale(cfg.Width, cfg.Height, cfg.MaxWidth, cfg.MaxHeight, cfg.MaxPixels)
	// Clicks and typing change the screen's programs; launch runs any
	// command.
	effect := tool.EffectRead | tool.EffectState | tool.EffectRun
	if cfg.ViewOnly {
		effect = tool.EffectRead
	}
	d.tool = tool.New(tool.Spec{
		Name:        "desktop",
		Description: d.describe(),
		// Like the memory tool, the tool is annotated as its most dangerous
		// action: launch runs any command.
		Annotations: tool.Annotations{ReadOnly: cfg.ViewOnly, Destructive: !cfg.ViewOnly, OpenWorld: true},
		// A call that only looks (screenshot, zoom, cursor_position,
		// wait) is judged as a read-only tool's, so that looking never
		// asks; clicks, typing and launch do.
		ReadOnlyCall: viewOnlyCall,
		Effect:       effect,
	}, d.call)
	return d, nil
}

// Tool returns the desktop tool.
func (d *Desktop) Tool() *tool.Tool { return d.tool }

// Tools returns the desktop tool in a list, for a registry.
func (d *Desktop) Tools() []*tool.Tool { return []*tool.Tool{d.tool} }

// Display returns the X display the desktop runs on (":1"), or "" before
// it has started.
func (d *Desktop) Display() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.disp == nil {
		return ""
	}
	return d.disp.name
}

// Close stops every app launched on the display and the display's Xvfb,
// and waits for them. Calls after Close fail. Close is idempotent.
func (d *Desktop) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	if d.disp != nil {
		d.disp.close(d.cfg.KillGrace)
		d.log.Info("desktop stopped", "display", d.disp.name)
		d.disp = nil
	}
	return nil
}

// errClosed fails the calls made after [Desktop.Close].
var errClosed = errors.New("desktop: closed")

// start starts or opens the display; the caller holds d.mu.
func (d *Desktop) start(ctx context.Context) error {
	if d.closed {
		return errClosed
	}
	if d.disp != nil {
		return nil
	}
	var disp *display
	var err error
	if d.cfg.Display != "" {
		disp, err = openDisplay(d.cfg.Display)
	} else {
		disp, err = startXvfb(ctx, &d.cfg)
	}
	if err != nil {
		return err
	}
	d.disp = disp
	d.scale = newScale(disp.width, disp.height, d.cfg.MaxWidth, d.cfg.MaxHeight, d.cfg.MaxPixels)
	d.log.Info("desktop started", "display", disp.name, "width", disp.width, "height", disp.height)
	return nil
}

func (d *Desktop) describe() string {
	var b bytes.Buffer
	template.Must(template.New("desktop").Parse(description)).Execute(&b, map[string]any{
		"Width": d.scale.w, "Height": d.scale.h, "MaxDuration": MaxDuration, "MaxScroll": MaxScroll, "DefaultScroll": DefaultScroll,
		"MaxText": MaxText, "ViewOnly": d.cfg.ViewOnly, "Sandboxed": d.cfg.Sandbox != nil,
		"Network": d.cfg.SandboxNetwork,
	})
	return b.String()
}

// viewActions are the actions that change nothing.
var viewActions = []string{"screenshot", "zoom", "cursor_position", "wait"}

// viewOnlyCall reports whether a call's arguments ask for one of
// viewActions.
func viewOnlyCall(args json.RawMessage) bool {
	var in struct {
		Action string `json:"action"`
	}
	return json.Unmarshal(args, &in) == nil && slices.Contains(viewActions, in.Action)
}

func (d *Desktop) call(ctx context.Context, c *tool.Call, in Input) (tool.Result, error) {
	if d.cfg.ViewOnly && !slices.Contains(viewActions, in.Action) {
		return tool.Failure(fmt.Sprintf("this desktop is view-only: %s is not offered; use %s", in.Action, strings.Join(viewActions, ", "))), nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.start(ctx); err != nil {
		return tool.Failure(err.Error()), nil
	}
	res, err := d.act(ctx, in)
	if err != nil {
		msg := fmt.Sprintf("%s: %v", in.Action, err)
		if d.disp.stopped() {
			// Xvfb died (killed, out of memory): a new one starts on the
			// next call, without the programs that ran on this one.
			msg += fmt.Sprintf("; the display's Xvfb had exited (%v%s), and the next call starts a new, empty one",
				d.disp.server.cmd.ProcessState, d.disp.server.stderr.tail())
			d.disp.close(d.cfg.KillGrace)
			d.disp = nil
		}
		return tool.Failure(msg), nil
	}
	return res, nil
}

// act runs one action on the started display.
func (d *Desktop) act(ctx context.Context, in Input) (tool.Result, error) {
	disp := d.disp
	switch in.Action {
	case "screenshot":
		return d.screenshot(in.Action, image.Rect(0, 0, disp.width, disp.height), "")
	case "zoom":
		return d.zoom(in.Region)
	case "cursor_position":
		return d.text(in.Action, "")
	case "wait":
		if err := checkDuration(in.Duration); err != nil {
			return tool.Result{}, err
		}
		if err := pause(ctx, seconds(in.Duration)); err != nil {
			return tool.Result{}, err
		}
		return d.screenshot(in.Action, image.Rect(0, 0, disp.width, disp.height), fmt.Sprintf("waited %gs; ", in.Duration))
	case "left_click", "right_click", "middle_click", "double_click", "triple_click":
		return d.click(in)
	case "mouse_move":
		x, y, err := d.coordinate("coordinate", in.Coordinate, false)
		if err != nil {
			return tool.Result{}, err
		}
		disp.move(x, y)
		return d.text(in.Action, "")
	case "left_click_drag":
		sx, sy, err := d.coordinate("start_coordinate", in.StartCoordinate, false)
		if err != nil {
			return tool.Result{}, err
		}
		ex, ey, err := d.coordinate("coordinate", in.Coordinate, false)
		if err != nil {
			return tool.Result{}, err
		}
		disp.move(sx, sy)
		disp.button(buttonLeft, true)
		// A move in between, so that programs that look for motion with
		// the button down see a drag.
		disp.move((sx+ex)/2, (sy+ey)/2)
		disp.move(ex, ey)
		disp.button(buttonLeft, false)
		return d.text(in.Action, "")
	case "left_mouse_down", "left_mouse_up":
		if in.Coordinate != nil {
			x, y, err := d.coordinate("coordinate", in.Coordinate, false)
			if err != nil {
				return tool.Result{}, err
			}
			disp.move(x, y)
		}
		disp.button(buttonLeft, in.Action == "left_mouse_down")
		return d.text(in.Action, "")
	case "type":
		if in.Text == "" {
			return tool.Result{}, errors.New("text is empty: give the text to type")
		}
		if n := len([]rune(in.Text)); n > MaxText {
			return tool.Result{}, fmt.Errorf("text has %d characters; type at most %d at once", n, MaxText)
		}
		if err := disp.typeText(ctx, in.Text); err != nil {
			return tool.Result{}, err
		}
		return d.text(in.Action, fmt.Sprintf("typed %d characters; ", len([]rune(in.Text))))
	case "key", "hold_key":
		return d.keys(ctx, in)
	case "scroll":
		return d.scroll(in)
	case "launch":
		return d.launch(in.Command)
	}
	return tool.Result{}, fmt.Errorf("unknown action %q", in.Action)
}

// coordinate checks a coordinate argument and maps it to the screen. An
// optional coordinate may be absent: then x and y are -1, and the pointer
// stays where it is.
func (d *Desktop) coordinate(name string, c []int, optional bool) (x, y int, err error) {
	if c == nil && optional {
		return -1, -1, nil
	}
	if len(c) != 2 {
		return 0, 0, fmt.Errorf("%s must be [x, y], two integers", name)
	}
	if err := d.scale.check(name, c[0], c[1]); err != nil {
		return 0, 0, err
	}
	x, y = d.scale.toScreen(c[0], c[1])
	return x, y, nil
}

// pointer returns the pointer's position on the screen.
func (d *Desktop) pointer() (int, int, error) {
	rep, err := xproto.QueryPointer(d.disp.conn, d.disp.root).Reply()
	if err != nil {
		return 0, 0, fmt.Errorf("query the pointer: %w", err)
	}
	return int(rep.RootX), int(rep.RootY), nil
}

// text syncs with the server and returns a result that reports the
// pointer's position, after prefix.
func (d *Desktop) text(action, prefix string) (tool.Result, error) {
	if err := d.disp.sync(); err != nil {
		return tool.Result{}, fmt.Errorf("the display stopped answering: %w", err)
	}
	data, err := d.data(action)
	if err != nil {
		return tool.Result{}, err
	}
	msg := fmt.Sprintf("%s%s done; the pointer is at [%d, %d]", prefix, action, data.X, data.Y)
	if action == "cursor_position" {
		msg = fmt.Sprintf("the pointer is at [%d, %d]", data.X, data.Y)
	}
	return tool.Result{Success: true, Output: msg, Data: data}, nil
}

func (d *Desktop) data(action string) (Data, error) {
	px, py, err := d.pointer()
	if err != nil {
		return Data{}, err
	}
	x, y := d.scale.toModel(px, py)
	return Data{Action: action, Width: d.scale.w, Height: d.scale.h, ScreenWidth: d.disp.width,
		ScreenHeight: d.disp.height, X: x, Y: y, Display: d.disp.name}, nil
}

func checkDuration(s float64) error {
	if s < 0 || s > MaxDuration {
		return fmt.Errorf("duration %g is out of range: give 0 to %d seconds", s, MaxDuration)
	}
	return nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// minimalEnviron is the environment of launched apps when
// Config.Environ is nil.
func minimalEnviron() []string {
	var env []string
	for _, name := range []string{"PATH", "LANG", "LC_ALL", "HOME", "USER", "SHELL", "TERM"} {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}
