// Package compact keeps long sessions inside their model's context window
// by compacting old turns, as journal records that the prompt is a
// projection of (see [session.Compaction]): the turns themselves stay in
// the session, for audit, undo and summarising again.
//
//	c, err := compact.New(compact.Config{Store: store, Provider: p, Model: "m",
//		Window: model.ContextWindow, MaxOutput: model.MaxOutput})
//	a, err := agent.New(agent.Config{..., Compactor: c})
//
// # What a compaction does
//
// [Compactor.Compact] picks a range: when a task is in progress, the
// committed turns before it, or else the task's own turns after the task;
// otherwise the committed turns; in both cases keeping the newest
// [Config.KeepRecent] share verbatim. The range ends where every call has
// its result, and holds earlier summaries whole. Then, cheapest first:
//
//  1. Masking: the successful tool outputs of the range are replaced in the
//     prompt by a one-line stub that says how to read them again
//     (get_session {"turn": N}). If that brings the prompt under the target
//     (60% of the window), that is the compaction.
//  2. A summary: the summariser model reads the range's prompt view
//     (earlier summaries included, so they are integrated) and writes a
//     summary in sections. The [session.Ledger], computed by [BuildLedger]
//     from the turns, not by the model, is attached to it and shown after
//     it: files written and read, commands with exit codes, failed and
//     refused calls, children with their sessions, todos, mode and plan,
//     and the user's messages verbatim.
//
// # Verification
//
// A summary is checked before it is recorded. The structural checks in Go:
// not empty, within [Config.SummaryTokens], the new prompt under the
// target, every file written and every open todo present in the summary
// or the ledger. Then a reviewer model (Config.Reviewer, by default the
// summariser's) gets the original turns, the ledger, the candidate and a
// checklist, and answers {"approved", "missing"}. A failed check gets one
// repair round, which feeds what was missing back to the summariser; if
// that fails too, the range is recorded as a truncation (its end, cut to
// fit, with the complete ledger), marked as a fallback. Nothing loops.
//
// The reviewer is a direct model call, not a subagent: it needs no tools
// (the turns are in its prompt), and a child session per review would add
// journals and a spawn budget to every compaction for nothing.
//
// [Config.Confirm] is the human gate: it sees the compaction before it is
// recorded and can refuse it, leaving the session as it was. A compaction
// is undone with [session.Session.Uncompact], which records that the
// latest compaction no longer applies; the journal keeps everything, so
// no backup is needed.
//
// # What is never summarised
//
// The system prompt, project instructions (AGENTS.md), role files, the
// plan, the todo list, file references and the task in progress are not
// turns: the agent's prompt builder pins them fresh in every prompt, so a
// range never holds them. The task in progress is a turn, and a range
// never includes it.
//
// # Triggers and loop guards
//
// The agent loop calls [Compactor.MaybeCompact] between rounds. It
// compacts at [Config.Threshold] (80%) of the window less the output
// limit, at most once per user task unless a tool call succeeded since,
// and stops trying for a session after [Config.MaxFailures] failures in a
// row (no range, a refusal, a fallback, or a prompt still over the
// threshold afterwards). A person compacts by hand through
// [Compactor.Compact] (the CLI's command for it), the model with
// compress_session_turns.
//
// Token counts are estimates (about four bytes a token) unless the
// model's usage says more.
package compact
