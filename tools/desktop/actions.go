package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"

	"github.com/wieldhq/wield/tool"
)

// screenshot captures r of the screen, scales the whole screen to the
// model's size (a region is shown at full resolution unless it is larger
// than the bounds) and returns it as a PNG image, in the result of
// action.
func (d *Desktop) screenshot(action string, r image.Rectangle, prefix string) (tool.Result, error) {
	pic, err := d.capture(r)
	if err != nil {
		return tool.Result{}, err
	}
	data, err := d.data(action)
	if err != nil {
		return tool.Result{}, err
	}
	png, err := d.enc.encode(pic)
	if err != nil {
		return tool.Result{}, err
	}
	msg := fmt.Sprintf("%sscreenshot %dx%d", prefix, pic.w, pic.h)
	if d.scale.scaled() {
		msg += fmt.Sprintf(" (the screen is %dx%d; coordinates are in screenshot pixels)", d.disp.width, d.disp.height)
	}
	msg += fmt.Sprintf("; the pointer is at [%d, %d]", data.X, data.Y)
	return tool.Result{Success: true, Output: msg, Data: data,
		Images: []tool.Image{{MIMEType: "image/png", Width: pic.w, Height: pic.h, Data: png}}}, nil
}

// capture grabs r of the screen and scales it: the whole screen to the
// model's size, a region to fit the bounds.
func (d *Desktop) capture(r image.Rectangle) (*picture, error) {
	raw, err := d.disp.grab(r)
	if err != nil {
		return nil, err
	}
	w, h := d.scale.w, d.scale.h
	if r != image.Rect(0, 0, d.disp.width, d.disp.height) {
		s := newScale(r.Dx(), r.Dy(), d.cfg.MaxWidth, d.cfg.MaxHeight, d.cfg.MaxPixels)
		w, h = s.w, s.h
	}
	f := pixelFormat{d.disp.rOff, d.disp.gOff, d.disp.bOff}
	return newPicture(raw, r.Dx(), r.Dy(), f, w, h), nil
}

// zoom shows region, given in screenshot pixels, at the screen's full
// resolution.
func (d *Desktop) zoom(region []int) (tool.Result, error) {
	if len(region) != 4 {
		return tool.Result{}, errors.New("region must be [x0, y0, x1, y1], four integers")
	}
	if err := d.scale.check("region's top left", region[0], region[1]); err != nil {
		return tool.Result{}, err
	}
	if err := d.scale.check("region's bottom right", region[2]-1, region[3]-1); err != nil {
		return tool.Result{}, err
	}
	if region[2] <= region[0] || region[3] <= region[1] {
		return tool.Result{}, fmt.Errorf("region %v is empty: x1 must exceed x0 and y1 y0", region)
	}
	// The screen pixels of the boxes of the region's picture pixels.
	r := image.Rect(boxStart(region[0], d.scale.w, d.disp.width), boxStart(region[1], d.scale.h, d.disp.height),
		boxStart(region[2], d.scale.w, d.disp.width), boxStart(region[3], d.scale.h, d.disp.height))
	res, err := d.screenshot("zoom", r, "")
	if err != nil {
		return res, err
	}
	res.Output = fmt.Sprintf("zoom on %v (screen pixels %d,%d to %d,%d) at %dx%d; coordinates in this picture are not screen coordinates",
		region, r.Min.X, r.Min.Y, r.Max.X, r.Max.Y, res.Images[0].Width, res.Images[0].Height)
	return res, nil
}

// click clicks a mouse button 1, 2 or 3 times, at coordinate when given,
// holding the modifier keys of text.
func (d *Desktop) click(in Input) (tool.Result, error) {
	x, y, err := d.coordinate("coordinate", in.Coordinate, true)
	if err != nil {
		return tool.Result{}, err
	}
	button, times := byte(buttonLeft), 1
	switch in.Action {
	case "right_click":
		button = buttonRight
	case "middle_click":
		button = buttonMiddle
	case "double_click":
		times = 2
	case "triple_click":
		times = 3
	}
	release, err := d.modifiers(in.Text)
	if err != nil {
		return tool.Result{}, err
	}
	if x >= 0 {
		d.disp.move(x, y)
	}
	for range times {
		d.disp.button(button, true)
		d.disp.button(button, false)
	}
	release()
	return d.text(in.Action, "")
}

// modifiers holds the keys named in text ("shift", "ctrl+alt"), if any,
// and returns what releases them.
func (d *Desktop) modifiers(text string) (func(), error) {
	if text == "" {
		return func() {}, nil
	}
	chords, err := parseKeys(text)
	if err != nil {
		return nil, err
	}
	if len(chords) != 1 {
		return nil, fmt.Errorf("text %q names more than one chord: give the modifiers to hold joined by '+', as in \"shift+ctrl\"", text)
	}
	return d.disp.holdKeys(chords[0])
}

// keys presses key chords (key) or holds them for a duration (hold_key).
func (d *Desktop) keys(ctx context.Context, in Input) (tool.Result, error) {
	chords, err := parseKeys(in.Text)
	if err != nil {
		return tool.Result{}, err
	}
	if in.Action == "hold_key" {
		if err := checkDuration(in.Duration); err != nil {
			return tool.Result{}, err
		}
		if len(chords) != 1 {
			return tool.Result{}, fmt.Errorf("hold_key holds one chord; %q names %d", in.Text, len(chords))
		}
		release, err := d.disp.holdKeys(chords[0])
		if err != nil {
			return tool.Result{}, err
		}
		if err := d.disp.sync(); err != nil {
			release()
			return tool.Result{}, err
		}
		err = pause(ctx, seconds(in.Duration))
		release()
		if err != nil {
			return tool.Result{}, err
		}
		return d.text(in.Action, "")
	}
	for _, c := range chords {
		release, err := d.disp.holdKeys(c)
		if err != nil {
			return tool.Result{}, err
		}
		release()
	}
	return d.text(in.Action, "")
}

// scroll turns the wheel scroll_amount steps, at coordinate when given.
func (d *Desktop) scroll(in Input) (tool.Result, error) {
	x, y, err := d.coordinate("coordinate", in.Coordinate, true)
	if err != nil {
		return tool.Result{}, err
	}
	amount := in.ScrollAmount
	if amount == 0 {
		amount = DefaultScroll
	}
	if amount < 0 || amount > MaxScroll {
		return tool.Result{}, fmt.Errorf("scroll_amount %d is out of range: give 1 to %d", amount, MaxScroll)
	}
	var button byte
	switch in.ScrollDirection {
	case "up":
		button = 4
	case "down":
		button = 5
	case "left":
		button = 6
	case "right":
		button = 7
	default:
		return tool.Result{}, errors.New("scroll_direction must be up, down, left or right")
	}
	release, err := d.modifiers(in.Text)
	if err != nil {
		return tool.Result{}, err
	}
	if x >= 0 {
		d.disp.move(x, y)
	}
	for range amount {
		d.disp.button(button, true)
		d.disp.button(button, false)
	}
	release()
	return d.text(in.Action, "")
}

// launch starts a program on the display.
func (d *Desktop) launch(command string) (tool.Result, error) {
	if command == "" {
		return tool.Result{}, errors.New("command is empty: give the command line that starts the program, such as \"xterm\"")
	}
	a, err := d.disp.launch(&d.cfg, command)
	if err != nil {
		return tool.Result{}, err
	}
	res, err := d.text("launch", "")
	if err != nil {
		return res, err
	}
	data := res.Data.(Data)
	data.PID, data.Scratch = a.cmd.Process.Pid, a.scratch
	res.Data = data
	where := "outside any sandbox"
	if d.cfg.Sandbox != nil {
		where = "in the sandbox, writing only to " + a.scratch
		if !d.cfg.SandboxNetwork {
			where += ", without network"
		}
	}
	res.Output = fmt.Sprintf("started %q (pid %d) on display %s, %s; take a screenshot to see its window", command, data.PID, d.disp.name, where)
	return res, nil
}
