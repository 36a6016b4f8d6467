package policy

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/wieldhq/wield/tool"
)

// The hook events wield runs.
const (
	PreToolUse  = "PreToolUse"
	PostToolUse = "PostToolUse"
	PreCompact  = "PreCompact"
	PostCompact = "PostCompact"
)

// DefaultHookTimeout bounds a hook that sets no timeout.
const DefaultHookTimeout = 60 * time.Second

// maxHookOutput caps what is read of a hook's stdout and stderr.
const maxHookOutput = 64 << 10

// Hooks runs Claude Code style hook commands around tool calls. A hook
// gets the call as JSON on standard input. For PreToolUse, exit status 2
// blocks the call with standard error as the reason the model reads; exit 0
// with JSON output may decide (hookSpecificOutput.permissionDecision
// "allow", "deny" or "ask", with permissionDecisionReason) and rewrite the
// arguments (updatedInput); other statuses are reported and ignored. A hook
// that times out or is killed blocks the call: a guard that failed cannot
// vouch for it. For PostToolUse, exit status 2 or {"decision":"block",
// "reason":...} adds the reason to the result the model reads.
// PreCompact and PostCompact hooks run around compactions of a session
// (see [Hooks.PreCompact]); their matchers match the trigger.
type Hooks struct {
	// Dir is the directory hooks run in; empty means the current one.
	Dir string
	// SessionID is passed to hooks as session_id.
	SessionID string
	// Logger receives non-blocking hook errors; a nil Logger discards
	// them.
	Logger *slog.Logger

	preHooks, postHooks       []compiledMatcher
	preCompacts, postCompacts []compiledMatcher
}

type compiledMatcher struct {
	re    *regexp.Regexp // nil matches every tool
	hooks []Hook
}

func (h *Hooks) add(event string, m HookMatcher) error {
	cm := compiledMatcher{hooks: m.Hooks}
	if m.Matcher != "" && m.Matcher != "*" {
		// Claude Code's tool names work in matchers: each alternative of a
		// "|" list that is an alias names wield's tool.
		alts := strings.Split(m.Matcher, "|")
		for i, a := range alts {
			if w, ok := tool.FromClaudeCode(strings.TrimSpace(a)); ok {
				alts[i] = w
			}
		}
		expr := strings.Join(alts, "|")
		re, err := regexp.Compile("^(?:" + expr + ")$")
		if err != nil {
			return fmt.Errorf("matcher %q: %w", m.Matcher, err)
		}
		cm.re = re
	}
	switch event {
	case PreToolUse:
		h.preHooks = append(h.preHooks, cm)
	case PostToolUse:
		h.postHooks = append(h.postHooks, cm)
	case PreCompact:
		h.preCompacts = append(h.preCompacts, cm)
	case PostCompact:
		h.postCompacts = append(h.postCompacts, cm)
	}
	return nil
}

// AddHook adds a hook for event (PreToolUse, PostToolUse, PreCompact or
// PostCompact). For the compaction events the matcher matches the
// trigger ("auto", "manual", "tool") instead of a tool name.
func (h *Hooks) AddHook(event string, m HookMatcher) error {
	if !supportedEvent(event) {
		return fmt.Errorf("hook event %q not supported: use %s, %s, %s or %s", event, PreToolUse, PostToolUse, PreCompact, PostCompact)
	}
	return h.add(event, m)
}

func supportedEvent(event string) bool {
	switch event {
	case PreToolUse, PostToolUse, PreCompact, PostCompact:
		return true
	}
	return false
}

func (h *Hooks) logger() *slog.Logger {
	if h.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return h.Logger
}

func (p *Policy) logger() *slog.Logger {
	if p.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return p.Logger
}

// hookInput is what a hook reads on standard input.
type hookInput struct {
	SessionID     string          `json:"session_id"`
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolResponse  *tool.Result    `json:"tool_response,omitempty"`
	Cwd           string          `json:"cwd"`
}

// hookOutput is what a hook may print on standard output.
type hookOutput struct {
	Decision           string `json:"decision"` // legacy: approve, block
	Reason             string `json:"reason"`
	HookSpecificOutput struct {
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

type hookRun struct {
	code    int
	stdout  []byte
	stderr  string
	failure string // set when the hook timed out, was killed or did not start
}

// run runs one hook command with in, as JSON, on its standard input.
func (h *Hooks) run(ctx context.Context, hk Hook, in any) hookRun {
	timeout := DefaultHookTimeout
	if hk.Timeout > 0 {
		timeout = time.Duration(hk.Timeout * float64(time.Second))
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", hk.Command)
	cmd.Dir = h.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	data, _ := json.Marshal(in)
	cmd.Stdin = bytes.NewReader(data)
	var stdout, stderr limitedBuffer
	stdout.max, stderr.max = maxHookOutput, maxHookOutput
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := hookRun{stdout: stdout.Bytes(), stderr: strings.TrimSpace(stderr.String())}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.failure = fmt.Sprintf("timed out after %v", timeout)
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.failure = "was killed by " + ws.Signal().String()
		} else {
			r.code = exit.ExitCode()
		}
	case err != nil:
		r.failure = "could not run: " + err.Error()
	}
	return r
}

// pre runs the PreToolUse hooks matching toolName. The first hook that
// denies wins; an allow or ask is kept unless a later hook denies; the
// last updatedInput is kept.
func (h *Hooks) pre(ctx context.Context, c *tool.Call, toolName string, args json.RawMessage) tool.Decision {
	var d tool.Decision
	for _, m := range h.preHooks {
		if m.re != nil && !m.re.MatchString(toolName) {
			continue
		}
		for _, hk := range m.hooks {
			in := hookInput{SessionID: h.sessionID(c), HookEventName: PreToolUse, ToolName: toolName, ToolInput: args, Cwd: h.Dir}
			if d.Args != nil {
				in.ToolInput = d.Args
			}
			r := h.run(ctx, hk, in)
			switch {
			case r.failure != "":
				return tool.Decision{Verdict: tool.Deny, Reason: fmt.Sprintf("the PreToolUse hook %q %s, so the call was blocked", hk.Command, r.failure)}
			case r.code == 2:
				reason := r.stderr
				if reason == "" {
					reason = "blocked by a PreToolUse hook"
				}
				return tool.Decision{Verdict: tool.Deny, Reason: reason}
			case r.code != 0:
				h.logger().Warn("PreToolUse hook failed; ignoring it", "command", hk.Command, "status", r.code, "stderr", r.stderr)
				continue
			}
			out, ok := parseHookOutput(r.stdout)
			if !ok {
				h.logger().Warn("PreToolUse hook printed something that is not a JSON object; ignoring it", "command", hk.Command)
				continue
			}
			hs := out.HookSpecificOutput
			verdict, reason := hs.PermissionDecision, hs.PermissionDecisionReason
			if verdict == "" {
				switch out.Decision {
				case "approve":
					verdict = "allow"
				case "block":
					verdict = "deny"
				}
				reason = out.Reason
			}
			switch verdict {
			case "deny":
				if reason == "" {
					reason = "denied by a PreToolUse hook"
				}
				return tool.Decision{Verdict: tool.Deny, Reason: reason}
			case "allow", "ask":
				if d.Verdict != tool.Ask {
					d.Verdict, d.Reason = tool.Verdict(verdict), reason
				}
			case "":
			default:
				h.logger().Warn("PreToolUse hook gave an unknown permissionDecision; ignoring it", "command", hk.Command, "decision", verdict)
			}
			if len(hs.UpdatedInput) > 0 && string(hs.UpdatedInput) != "null" {
				d.Args = hs.UpdatedInput
			}
		}
	}
	return d
}

func (h *Hooks) sessionID(c *tool.Call) string {
	if c != nil && c.SessionID != "" {
		return c.SessionID
	}
	return h.SessionID
}

// parseHookOutput reads a hook's standard output: empty is no output; a
// JSON object is parsed; anything else is reported as not ok.
func parseHookOutput(b []byte) (hookOutput, bool) {
	var out hookOutput
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return out, true
	}
	if b[0] != '{' || json.Unmarshal(b, &out) != nil {
		return out, false
	}
	return out, true
}

// Post runs the PostToolUse hooks matching the call and returns the result
// with any feedback they give added to what the model reads.
func (h *Hooks) Post(ctx context.Context, c *tool.Call, args json.RawMessage, res tool.Result) tool.Result {
	if h == nil {
		return res
	}
	for _, m := range h.postHooks {
		if m.re != nil && !m.re.MatchString(c.Tool) {
			continue
		}
		for _, hk := range m.hooks {
			r := h.run(ctx, hk, hookInput{SessionID: h.sessionID(c), HookEventName: PostToolUse, ToolName: c.Tool, ToolInput: args, ToolResponse: &res, Cwd: h.Dir})
			var feedback string
			switch {
			case r.failure != "":
				h.logger().Warn("PostToolUse hook failed", "command", hk.Command, "why", r.failure)
			case r.code == 2:
				feedback = r.stderr
			case r.code != 0:
				h.logger().Warn("PostToolUse hook failed; ignoring it", "command", hk.Command, "status", r.code)
			default:
				if out, ok := parseHookOutput(r.stdout); ok {
					if out.Decision == "block" {
						feedback = out.Reason
					}
					if ctx := out.HookSpecificOutput.AdditionalContext; ctx != "" {
						feedback = strings.TrimSpace(feedback + "\n" + ctx)
					}
				}
			}
			if feedback != "" {
				res.Output = strings.TrimRight(res.Output, "\n") + "\n\n[PostToolUse hook] " + feedback
			}
		}
	}
	return res
}

// A CompactEvent is what PreCompact and PostCompact hooks read on standard
// input (as JSON, with hook_event_name and cwd added). PreCompact hooks
// see the trigger and the focus asked for; PostCompact hooks also see what
// was recorded.
type CompactEvent struct {
	SessionID string `json:"session_id"`
	// Trigger is "auto" (near the context window), "manual" (a person)
	// or "tool" (the model asked); matchers match it.
	Trigger string `json:"trigger"`
	// CustomInstructions is the focus the summary is asked to keep.
	CustomInstructions string `json:"custom_instructions"`
	// Kind ("mask" or "summary"), Range (the timeline turns), the token
	// estimates and Summary describe the compaction recorded: PostCompact
	// only.
	Kind         string `json:"kind,omitempty"`
	Range        []int  `json:"range,omitempty"`
	TokensBefore int    `json:"tokens_before,omitempty"`
	TokensAfter  int    `json:"tokens_after,omitempty"`
	Summary      string `json:"compact_summary,omitempty"`
}

// compactInput is a CompactEvent as a hook reads it.
type compactInput struct {
	HookEventName string `json:"hook_event_name"`
	Cwd           string `json:"cwd"`
	CompactEvent
}

// ErrCompactBlocked is wrapped by the error [Hooks.PreCompact] returns
// when a hook blocks a compaction.
var ErrCompactBlocked = errors.New("blocked by a PreCompact hook")

// PreCompact runs the PreCompact hooks whose matcher matches e.Trigger.
// A hook blocks the compaction with exit status 2 (standard error is the
// reason) or {"decision":"block","reason":...}: the error wraps
// ErrCompactBlocked. A hook may add to what the summary keeps in view
// with hookSpecificOutput.additionalContext (or plain text on standard
// output); the texts of all hooks are returned joined. A hook that fails,
// times out or prints an unreadable object is logged and ignored: a
// compaction guards no one, and the context still has to shrink.
func (h *Hooks) PreCompact(ctx context.Context, e CompactEvent) (string, error) {
	if h == nil {
		return "", nil
	}
	var extra []string
	for _, m := range h.preCompacts {
		if m.re != nil && !m.re.MatchString(e.Trigger) {
			continue
		}
		for _, hk := range m.hooks {
			r := h.run(ctx, hk, compactInput{PreCompact, h.Dir, e})
			switch {
			case r.failure != "":
				h.logger().Warn("PreCompact hook failed; compacting anyway", "command", hk.Command, "why", r.failure)
				continue
			case r.code == 2:
				return "", fmt.Errorf("%w: %s", ErrCompactBlocked, cmp.Or(r.stderr, "no reason given"))
			case r.code != 0:
				h.logger().Warn("PreCompact hook failed; ignoring it", "command", hk.Command, "status", r.code, "stderr", r.stderr)
				continue
			}
			text := strings.TrimSpace(string(r.stdout))
			if strings.HasPrefix(text, "{") {
				out, ok := parseHookOutput(r.stdout)
				if !ok {
					h.logger().Warn("PreCompact hook printed something that is not a JSON object; ignoring it", "command", hk.Command)
					continue
				}
				if out.Decision == "block" {
					return "", fmt.Errorf("%w: %s", ErrCompactBlocked, cmp.Or(out.Reason, "no reason given"))
				}
				text = out.HookSpecificOutput.AdditionalContext
			}
			if text != "" {
				extra = append(extra, text)
			}
		}
	}
	return strings.Join(extra, "\n"), nil
}

// PostCompact runs the PostCompact hooks whose matcher matches e.Trigger,
// after a compaction was recorded. Their output is not read; failures are
// logged.
func (h *Hooks) PostCompact(ctx context.Context, e CompactEvent) {
	if h == nil {
		return
	}
	for _, m := range h.postCompacts {
		if m.re != nil && !m.re.MatchString(e.Trigger) {
			continue
		}
		for _, hk := range m.hooks {
			r := h.run(ctx, hk, compactInput{PostCompact, h.Dir, e})
			if r.failure != "" || r.code != 0 {
				h.logger().Warn("PostCompact hook failed", "command", hk.Command, "status", r.code, "why", r.failure, "stderr", r.stderr)
			}
		}
	}
}

// limitedBuffer keeps the first max bytes written and drops the rest.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
