package compact

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// Defaults of [Config].
const (
	DefaultThreshold   = 0.8
	DefaultTarget      = 0.6
	DefaultKeepRecent  = 0.3
	DefaultMaxFailures = 3
	// DefaultUserMessageTokens is the budget of the user's messages kept
	// verbatim in a ledger (Codex keeps 20k tokens of them).
	DefaultUserMessageTokens = 20_000
)

// Config configures a [Compactor]. Store is required; a zero value in any
// other field means its documented default.
type Config struct {
	// Store holds the sessions; a session is compacted through its writer
	// in this process ([session.Store.Writer]).
	Store *session.Store
	// Provider and Model write summaries. A nil Provider means no
	// summaries: only masking and truncation.
	Provider llm.Provider
	Model    string
	// Reviewer and ReviewerModel check each summary against the turns it
	// stands for; nil means Provider, empty means Model. NoReview leaves
	// the review out (the structural checks still run).
	Reviewer      llm.Provider
	ReviewerModel string
	NoReview      bool
	// Review, if set, reviews summaries instead of a call to Reviewer:
	// usually a reviewer agent (agent/subagent's Runner.Ask) with a
	// session of its own and [ReviewChecklist] in its prompt. It gets the
	// id of the session compacted and the material to review (the
	// original turns, the ledger and the candidate), and returns the
	// verdict as JSON ({approved, missing}; see [ParseVerdict]) and who
	// reviewed, for the record (the reviewer's session).
	Review func(ctx context.Context, sessionID, material string) (verdict, reviewer string, err error)
	// Window is the model's context window in tokens and MaxOutput its
	// output limit (llm/catalog has both). Zero Window turns automatic
	// compaction off; [Compactor.Compact] still works.
	Window, MaxOutput int
	// Threshold is the share of Window − MaxOutput at which
	// [Compactor.MaybeCompact] compacts; zero means DefaultThreshold.
	Threshold float64
	// Target is the share of Window a compaction must bring the prompt
	// under; zero means DefaultTarget.
	Target float64
	// KeepRecent is the share of a range's tokens kept verbatim at its
	// end; zero means DefaultKeepRecent.
	KeepRecent float64
	// SummaryTokens bounds a summary; zero means a tenth of Window, at
	// least 512 and at most 8000 (2000 without a Window).
	SummaryTokens int
	// UserMessageTokens bounds the user's messages a ledger keeps
	// verbatim; zero means DefaultUserMessageTokens, at most a tenth of
	// Window.
	UserMessageTokens int
	// MaxFailures is how many automatic compactions in a row may fail
	// (no summary, or still over the threshold) before MaybeCompact stops
	// trying for the session; zero means DefaultMaxFailures.
	MaxFailures int
	// Confirm, if set, is asked before a summary is recorded (a human
	// gate); false keeps the turns as they are and Compact returns
	// ErrRejected. Masks are recorded without asking: they lose nothing.
	// Nil records without asking (a headless run).
	Confirm func(ctx context.Context, sessionID string, c *session.Compaction) (bool, error)
	// Before, if set, runs before each compaction once a range is chosen
	// (a PreCompact hook): it returns text to add to the request's focus,
	// or an error to block the compaction, which Compact returns wrapped
	// in ErrBlocked. A blocked automatic compaction is not a failure: it
	// is tried again after the model makes progress.
	Before func(ctx context.Context, sessionID string, req Request) (focus string, err error)
	// After, if set, runs after each compaction is recorded (a
	// PostCompact hook).
	After func(ctx context.Context, sessionID string, c *session.Compaction)
	// Tools returns the spec of a tool by the name a session's turns give
	// it, such as a run's [tool.Registry.Spec]: the ledger reads from the
	// specs which calls wrote files and ran commands (see [BuildLedger]).
	// Nil means the facts of wield's own tools.
	Tools func(name string) (tool.Spec, bool)
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// A Compactor compacts sessions. It is safe for concurrent use; it keeps,
// per session, what the loop guards need.
type Compactor struct {
	cfg Config

	mu     sync.Mutex
	guards map[string]*guard
}

// guard is what a Compactor remembers of a session between rounds.
type guard struct {
	seen     bool
	gen      int // the session's compaction generation last seen
	failures int // automatic compactions failed in a row
	txn      int // the transaction of the last automatic compaction
	lastEnd  int // the timeline length then
	stopped  bool
}

// minRangeTokens is the smallest range worth compacting.
const minRangeTokens = 256

// ErrNothingToCompact is returned when no range of the session can be
// compacted: too few turns, or only the task in progress.
var ErrNothingToCompact = errors.New("nothing to compact: the session has no range that a summary would shorten")

// ErrRejected is returned when [Config.Confirm] said no; the turns are as
// they were.
var ErrRejected = errors.New("compaction rejected; the session is unchanged")

// ErrBlocked is wrapped by the error returned when [Config.Before]
// blocked a compaction; the turns are as they were.
var ErrBlocked = errors.New("compaction blocked; the session is unchanged")

// New returns a compactor, or an error naming what cfg lacks.
func New(cfg Config) (*Compactor, error) {
	if cfg.Store == nil {
		return nil, errors.New("compact: no session store configured")
	}
	if cfg.Window < 0 || cfg.MaxOutput < 0 || cfg.MaxOutput >= cfg.Window && cfg.Window > 0 {
		return nil, fmt.Errorf("compact: window %d and max output %d: the window must be larger", cfg.Window, cfg.MaxOutput)
	}
	cfg.Threshold = cmp.Or(cfg.Threshold, DefaultThreshold)
	cfg.Target = cmp.Or(cfg.Target, DefaultTarget)
	cfg.KeepRecent = cmp.Or(cfg.KeepRecent, DefaultKeepRecent)
	cfg.MaxFailures = cmp.Or(cfg.MaxFailures, DefaultMaxFailures)
	if cfg.SummaryTokens == 0 {
		cfg.SummaryTokens = 2000
		if cfg.Window > 0 {
			cfg.SummaryTokens = min(max(cfg.Window/10, 512), 8000)
		}
	}
	if cfg.UserMessageTokens == 0 {
		cfg.UserMessageTokens = DefaultUserMessageTokens
		if cfg.Window > 0 {
			cfg.UserMessageTokens = min(cfg.UserMessageTokens, cfg.Window/10)
		}
	}
	if cfg.Reviewer == nil {
		cfg.Reviewer = cfg.Provider
	}
	cfg.ReviewerModel = cmp.Or(cfg.ReviewerModel, cfg.Model)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Compactor{cfg: cfg, guards: map[string]*guard{}}, nil
}

// A Request says why and how to compact.
type Request struct {
	// Trigger is a session.Trigger constant; empty means TriggerManual.
	Trigger string
	// Focus is what the summary should keep in view.
	Focus string
	// Tokens is the prompt size the caller measured (the last response's
	// usage), used when it exceeds the estimate.
	Tokens int
}

// Compact compacts session id, open for writing in this process, and
// returns the compaction recorded. It masks the old successful tool
// outputs first; if that leaves the prompt over the target (or the
// trigger is manual), it summarises the range instead, attaches the
// ledger, checks the summary (structurally, then with the reviewer), runs
// one repair round if a check failed, and falls back to a truncation of
// the range if it still fails. Nothing loops: at most two summaries and
// two reviews are asked for.
//
// The error is ErrNothingToCompact, ErrRejected, one wrapping ErrBlocked,
// Confirm's error, or a
// failure to write the journal; a failing model is not an error (the
// fallback is recorded).
func (c *Compactor) Compact(ctx context.Context, id string, req Request) (*session.Compaction, error) {
	s, ok := c.cfg.Store.Writer(id)
	if !ok {
		return nil, fmt.Errorf("compact session %s: it is not open for writing in this process", id)
	}
	return c.compact(ctx, s, s.State(), req)
}

func (c *Compactor) compact(ctx context.Context, s *session.Session, st *session.State, req Request) (*session.Compaction, error) {
	req.Trigger = cmp.Or(req.Trigger, session.TriggerManual)
	est := estimateState(st)
	before := max(req.Tokens, est)
	overhead := before - est // system prompt, tools: what the estimate cannot see
	rng, ok := chooseRange(st, c.cfg.KeepRecent, c.keepMax(), minRangeTokens)
	if !ok {
		return nil, ErrNothingToCompact
	}
	if c.cfg.Before != nil {
		extra, err := c.cfg.Before(ctx, s.ID(), req)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBlocked, err)
		}
		if extra = strings.TrimSpace(extra); extra != "" {
			req.Focus = strings.TrimSpace(req.Focus + "\n" + extra)
		}
	}
	target := int(c.cfg.Target * float64(c.cfg.Window))
	after := func(x session.Compaction) int { return overhead + estimateWith(st, x) }

	mask := session.Compaction{Kind: session.CompactionMask, Range: rng, Trigger: req.Trigger, TokensBefore: before}
	mask.TokensAfter = after(mask)
	if mask.TokensAfter < before && (c.cfg.Provider == nil || req.Trigger == session.TriggerAuto && mask.TokensAfter < target) {
		if err := st.CheckCompaction(mask); err != nil {
			return nil, fmt.Errorf("%w (%v)", ErrNothingToCompact, err)
		}
		return &mask, c.record(ctx, s, mask)
	}

	sum := session.Compaction{Kind: session.CompactionSummary, Range: rng, Trigger: req.Trigger, Focus: req.Focus,
		TokensBefore: before, Model: c.cfg.Model,
		Ledger: BuildLedger(st, rng[0], rng[1], c.cfg.UserMessageTokens*4, c.cfg.Tools)}
	if err := st.CheckCompaction(session.Compaction{Kind: session.CompactionSummary, Range: rng, Summary: "-"}); err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNothingToCompact, err)
	}
	text := transcript(st.ProjectRange(rng[0], rng[1]), 4000, c.inputBytes())
	sum.Summary, sum.Verdict = c.summarise(ctx, st, &sum, text, target, after)
	sum.TokensAfter = after(sum)
	if c.cfg.Confirm != nil {
		ok, err := c.cfg.Confirm(ctx, s.ID(), &sum)
		if err != nil {
			return nil, fmt.Errorf("compact session %s: confirm: %w", s.ID(), err)
		}
		if !ok {
			return nil, ErrRejected
		}
		sum.Verdict.Confirmed = true
	}
	return &sum, c.record(ctx, s, sum)
}

func (c *Compactor) record(ctx context.Context, s *session.Session, x session.Compaction) error {
	if err := s.Compact(x); err != nil {
		return err
	}
	c.cfg.Logger.Info("compacted session", "session", s.ID(), "kind", x.Kind, "range", x.Range,
		"tokens_before", x.TokensBefore, "tokens_after", x.TokensAfter, "trigger", x.Trigger)
	if c.cfg.After != nil {
		c.cfg.After(ctx, s.ID(), &x)
	}
	return nil
}

// keepMax bounds the tokens a range keeps verbatim at its end: KeepRecent
// of the window, so that what is kept leaves room under the target.
func (c *Compactor) keepMax() int {
	if c.cfg.Window > 0 {
		return int(c.cfg.KeepRecent * float64(c.cfg.Window))
	}
	return math.MaxInt
}

// inputBytes bounds the transcript a summariser or reviewer reads: half
// the window, or 200 kB without one.
func (c *Compactor) inputBytes() int {
	if c.cfg.Window > 0 {
		return c.cfg.Window / 2 * bytesPerToken
	}
	return 200_000
}

// MaybeCompact is the agent loop's hook ([agent.Compactor]), called
// between rounds with the last response's usage. It reports whether the
// prompt view of session id changed since the last call (a compaction by
// it, by a tool or by a person), so that the loop rebuilds its prompt.
//
// It compacts when the prompt (the larger of usage's tokens and the
// estimate) reaches Threshold of Window − MaxOutput, at most once per user
// task unless the model made progress since (a successful tool call),
// and stops trying for the session after MaxFailures failures in a row.
// Only a failure to write the journal is returned as an error.
func (c *Compactor) MaybeCompact(ctx context.Context, id string, usage llm.Usage) (bool, error) {
	s, ok := c.cfg.Store.Writer(id)
	if !ok {
		return false, nil
	}
	c.mu.Lock()
	g := c.guards[id]
	if g == nil {
		g = &guard{}
		c.guards[id] = g
	}
	c.mu.Unlock()
	gen := s.CompactionGeneration()
	changed := g.seen && gen != g.gen
	g.seen, g.gen = true, gen
	if c.cfg.Window <= 0 || g.stopped {
		return changed, nil
	}
	st := s.State()
	tokens := max(usage.InputTokens+usage.OutputTokens, estimateState(st))
	limit := int(c.cfg.Threshold * float64(c.cfg.Window-c.cfg.MaxOutput))
	if tokens < limit {
		return changed, nil
	}
	txn := len(st.Pools)
	if g.txn == txn && !progress(st, g.lastEnd) {
		return changed, nil
	}
	g.txn, g.lastEnd = txn, st.Timeline()
	x, err := c.compact(ctx, s, st, Request{Trigger: session.TriggerAuto, Tokens: tokens})
	switch {
	case errors.Is(err, ErrBlocked):
		c.cfg.Logger.Info("automatic compaction blocked", "session", id, "why", err)
		return changed, nil
	case errors.Is(err, ErrNothingToCompact), errors.Is(err, ErrRejected):
		c.fail(g, id, err.Error())
		return changed, nil
	case err != nil:
		return changed, err
	}
	g.gen = s.CompactionGeneration()
	if x.TokensAfter >= limit || x.Verdict != nil && x.Verdict.Fallback {
		c.fail(g, id, fmt.Sprintf("the prompt is still %d tokens after compaction (limit %d)", x.TokensAfter, limit))
	} else {
		g.failures = 0
	}
	return true, nil
}

func (c *Compactor) fail(g *guard, id, why string) {
	g.failures++
	if g.failures >= c.cfg.MaxFailures {
		g.stopped = true
		c.cfg.Logger.Warn("automatic compaction stopped for this session after failing in a row; compact it by hand (Compactor.Compact)",
			"session", id, "failures", g.failures, "last", why)
		return
	}
	c.cfg.Logger.Info("automatic compaction failed", "session", id, "why", why)
}

// progress reports whether a successful tool call was recorded after
// timeline turn since.
func progress(st *session.State, since int) bool {
	for n := since + 1; n <= st.Timeline(); n++ {
		if t := st.TurnAt(n); t.Kind == session.TurnToolResponse && t.Status == session.StatusSucceeded {
			return true
		}
	}
	return false
}

// chooseRange picks the range to compact: the committed turns when a
// transaction is open and they hold something to shorten, else the open
// transaction's turns after its task, else the committed turns; of that
// region, all but the newest keepRecent share of its tokens, at most
// keepMax tokens (all of the committed turns when a transaction is open),
// ending where no call is without its result and no summary is cut.
//
// A range whose prompt view is under minTokens is not worth a summary.
func chooseRange(st *session.State, keepRecent float64, keepMax, minTokens int) ([2]int, bool) {
	committed := len(st.Turns)
	type region struct {
		first, last int
		keep        float64
	}
	var regions []region
	if st.Open() {
		if committed > 0 {
			regions = append(regions, region{1, committed, 0})
		}
		regions = append(regions, region{committed + 2, st.Timeline(), keepRecent})
	} else {
		regions = append(regions, region{1, committed, keepRecent})
	}
	for _, r := range regions {
		if r.first > r.last {
			continue
		}
		end := r.last
		if r.keep > 0 {
			total := 0
			sizes := make([]int, r.last-r.first+1)
			for n := r.first; n <= r.last; n++ {
				sizes[n-r.first] = turnTokens(st.TurnAt(n))
				total += sizes[n-r.first]
			}
			kept, budget := 0, min(r.keep*float64(total), float64(keepMax))
			for end > r.first && float64(kept+sizes[end-r.first]) <= budget {
				kept += sizes[end-r.first]
				end--
			}
		}
		end = safeEnd(st, r.first, end)
		if end <= r.first {
			continue
		}
		rng := [2]int{r.first, end}
		if estimate(st.ProjectRange(rng[0], rng[1])) < minTokens {
			continue
		}
		// A range that is one summary already gains nothing.
		if slices.ContainsFunc(st.ActiveCompactions(), func(c session.Compaction) bool {
			return c.Kind == session.CompactionSummary && c.Range == rng
		}) {
			continue
		}
		return rng, true
	}
	return [2]int{}, false
}

// safeEnd returns the last turn at or before end after which every call
// made from first on has its result and no active summary is cut, or
// first-1 when there is none.
func safeEnd(st *session.State, first, end int) int {
	var spans [][2]int
	for _, c := range st.ActiveCompactions() {
		if c.Kind == session.CompactionSummary {
			spans = append(spans, c.Range)
		}
	}
	open := map[string]bool{}
	best := first - 1
	for n := first; n <= end; n++ {
		t := st.TurnAt(n)
		switch t.Kind {
		case session.TurnModelResponse:
			for _, c := range t.Calls {
				open[c.ID] = true
			}
		case session.TurnFunctionCalling:
			open[t.CallID] = true
		case session.TurnToolResponse:
			delete(open, t.CallID)
		}
		if len(open) > 0 || slices.ContainsFunc(spans, func(s [2]int) bool { return s[0] <= n && n < s[1] }) {
			continue
		}
		if next := st.TurnAt(n + 1); next != nil && next.Kind == session.TurnToolResponse {
			continue // a result of a call made before first, or a late one
		}
		best = n
	}
	return best
}
