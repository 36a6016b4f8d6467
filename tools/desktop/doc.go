// Package desktop provides the desktop tool: an agent sees and drives a
// graphical screen through screenshots and mouse and keyboard actions,
// with the action set of Anthropic's computer-use tool (screenshot,
// left_click, type, key, scroll, zoom and the rest), so that models
// trained on it work unchanged, plus launch, which starts a program on
// the screen.
//
//	d, err := desktop.New(desktop.Config{Width: 1280, Height: 800})
//	if err != nil { ... }
//	defer d.Close()
//	reg, err := tool.NewRegistry(d.Tool())
//
// # The display
//
// The screen is a virtual one that the desktop starts on first use:
// Xvfb (the distribution's package) with -displayfd, which picks a free
// display number and writes it once its sockets listen, so there is no
// race and no polling; -nolisten tcp; and a random MIT-MAGIC-COOKIE-1 in
// an authority file of a private directory, so that only wield and the
// programs it launches can connect. Xvfb runs in a process group of its
// own and gets SIGKILL from the kernel when wield dies
// (PR_SET_PDEATHSIG), even by SIGKILL; [Desktop.Close] stops it. The
// user's own display is used only when [Config.Display] names it.
//
// # Screenshots and coordinates
//
// A screenshot is read from the X server through a shared memory segment
// (MIT-SHM; GetImage over the socket where the server cannot attach it),
// scaled down to fit [Config.MaxWidth], [Config.MaxHeight] and
// [Config.MaxPixels] (1280x800 and 1.15 megapixels by default, what
// Anthropic recommends) by averaging boxes of screen pixels, and encoded
// as PNG: RGB rows with the Up filter, deflated at the fastest level in
// bands of rows, one per CPU, joined into one stream. Each screenshot
// pixel stands for a box of screen pixels; a coordinate the model gives
// is mapped to the middle of its box, so that mapping the pointer's
// position back gives the same coordinate.
//
// # Input
//
// Mouse and keyboard input goes through the XTEST extension over the X
// connection (github.com/jezek/xgb, pure Go), not xdotool: there is no
// program to install or start per action, every action is one round
// trip on a connection already open, and errors come back as Go errors.
// Key names follow xdotool's syntax (X keysym names, "ctrl+s"). A
// character that no key of the keyboard mapping produces is bound to a
// spare keycode first, as xdotool does.
//
// # Launched programs and the sandbox
//
// launch runs a command with bash -c on the display, in a process group
// of its own that gets SIGKILL when wield dies; X programs also end when
// the display does. With [Config.Sandbox] the command runs in the
// sandbox: the system read-only, writes only to a scratch directory of
// its own, no network unless [Config.SandboxNetwork]. When the sandbox is
// bubblewrap, Xvfb runs in it too (see [Config.ServerOutsideSandbox]),
// with no network and writes only to its private directory and /tmp,
// where it must create its socket and lock file. Xvfb listens on the
// socket in /tmp/.X11-unix only (-nolisten tcp, -nolisten local): a path
// socket works across the sandbox's namespaces, while Landlock denies a
// sandboxed client the abstract socket, and libxcb does not fall back
// from that refusal.
//
// # Approval
//
// The policy decides per tool, not per action, so the desktop tool is
// not read-only and a policy asks before each call unless a rule allows
// desktop. [Config.ViewOnly] offers only the actions that change nothing
// and makes the tool read-only.
package desktop
