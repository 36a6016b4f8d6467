// Package session keeps wield's sessions: the single source of truth of a
// run, stored as an append-only JSON Lines journal.
//
// # Journal
//
// Each session is one file, <id>.jsonl in the store's directory (by default
// .wield/sessions of the workspace, see [workspace.Layout.Sessions]). Its
// first line is a [Header]; every later line is one event: a transaction
// begins, a turn joins its pool, the pool is committed or aborted, the
// references or todos are replaced, metadata is set, a compaction is
// recorded or undone, a fork is recorded, or a feature keeps a [Record].
// [Store.Load] folds the events into a [State]; appending an event costs
// the same at any journal length.
//
// # Features' records
//
// A feature keeps what it needs beyond the conversation as records of its
// own kind: [Session.Append] writes one, [State.Records] holds them in
// order, [Session.Latest] and [State.RecordsOf] find them. The session
// knows none of their kinds; the feature's package reads them. Package
// session/planmode keeps the mode a session is in this way, and package
// mcp/registered the MCP servers an agent registered. A feature needs no
// change here.
//
// A session's id is a plain string from end to end: [Header.ID],
// [Session.ID], the tool.Call.SessionID of every call made in it, the
// session_id hooks receive, and the argument of [Store.Open], [Store.Load]
// and [Store.Writer], through which tools built with the store reach the
// session a call runs in.
//
// The pictures of a tool result ([tool.Result.Images]) never go into the
// journal: [Session.RecordResult] puts their bytes in the session's blob
// store ([Session.Blobs]) and the tool_response turn keeps their hashes,
// types and sizes ([Turn.Images]); [Session.Image] reads them back.
//
// # The pool
//
// A round of work is a transaction. [Session.Begin] opens it with the
// user's task; the model's responses and, through the tool runner's
// recorder hooks, every tool call and result join the pool as they happen;
// [Session.Commit] merges them into the turns. [Session.Abort] keeps the
// pool too, closed as aborted, after giving every call without a result an
// [Interrupted] one: the next prompt always has one result per call, and
// nothing executed is forgotten. [Store.Open] repairs a journal left
// mid-transaction by a crash the same way.
//
// # Compaction
//
// A [Compaction] never rewrites turns: it is a record that says how a range
// of them appears in prompts. [State.Turns] keeps every turn, and
// [State.Project] (which [Session.History] and [Session.Pool] return) shows
// each active summary, with its [Ledger], instead of its range, and a stub
// instead of each long successful tool output of a masked range. A range
// lies in the committed turns or in the open transaction after its task
// (the task in progress is never compacted), never separates a call from
// its result, and holds earlier summaries whole: the later one replaces
// them in the view. [Session.Uncompact] appends an uncompact record that
// drops the latest compaction from the view, which is then exactly what it
// was before. Journals from before compactions, whose compress events
// rewrote the turns, load as compactions with trigger [TriggerLegacy].
// Deciding what to compact, and checking a summary, is package compact's
// job.
//
// # Concurrency and crashes
//
// One process writes a session at a time: [Store.Open] takes the
// session's writer lock (a file lock) and fails at once with a
// [*BusyError] if another process holds it.
// Readers ([Store.Load], [Store.List]) take no lock. Transaction ends are
// fsynced ([SyncCommit]), and so are a new journal and a person's task; a
// child agent's journal ([Header.Child]) is first made durable when it
// commits, so starting a child costs no fsync. A torn last line, which only a crash mid-append
// leaves, is cut off with a warning; any other unreadable line is a
// [*CorruptError] naming it, and nothing is dropped silently. Journals from
// a newer wield are refused with [ErrNewerVersion]. Errors name no command
// of a host: [ErrNotFound] and [*BusyError] let the host say what to do.
//
// # Backends
//
// A [Store] keeps its bytes in a [Backend]: by default (a nil
// [Store.Backend]) files in [Store.Dir], as described above. Package
// session/pgstore keeps the same journals in PostgreSQL, for workers on
// several machines that take turns on a session; its writer lock is held
// by a connection, and ends with it. Everything above the bytes (the
// format, redaction, repair) is the Store's, so every backend holds the
// same JSON Lines, and package session/sessiontest checks a backend
// against what the Store needs.
//
// The methods that read or write stored bytes outside a session's
// journal take a context and hand it to the backend: [Store.Open],
// [Store.Create], [Store.Load], [Store.List], [Store.Fork],
// [Store.Delete], [Store.Backup], [Store.Stat], [Store.Record], the
// [Blobs] methods, [Session.Image], [Session.PruneBlobs],
// [Session.Compress] and [Session.Commit] (which merges the inbox). Given
// a ctx that is done, each fails with an error wrapping ctx's error and
// changes nothing. Appends to the journal of a session open for writing
// do not stop when ctx is done: they record what has happened, a
// cancelled run's results included ([Session.RecordResult] and
// [Session.RecordFileChange] store their blobs whatever ctx's state).
//
// # Secrets
//
// Values listed in [Store.Secrets] or held by [Store.Live] (a
// [SecretSet]), Authorization headers, common API key formats and fields
// named like secrets are replaced by [Redacted] before anything is
// written. What a running session holds in memory is what the run saw;
// the journal holds the redacted form.
//
// A listed value is replaced exactly where it occurs, and nothing else
// changes: a value inside a longer word is replaced alone, overlapping
// occurrences become one marker, and in JSON (tool arguments and data)
// values are found in the decoded strings, escaped spellings included,
// and only the strings that held one are rewritten, so the journal stays
// valid JSON with its key order and numbers intact.
//
// A value shorter than [MinSecretLen] bytes (an API key of "x" for a
// local server) is replaced only where it is a whole token, and never
// inside a longer word, which replacing it would corrupt: with the key
// "x", "script exhausted" stays as it is and "key=x done" becomes
// "key=[REDACTED] done". A word is a run of Unicode letters, combining
// marks, numbers, '_' and '-'; an occurrence is whole when it does not
// continue a word on either side. Such a value gets a warning: it is
// visible where it is part of a word.
//
// The same rule, from one function, hides secrets in the host's other
// output through a [SecretSet] ([SecretSet.Redact], [SecretSet.RedactJSON])
// and in the providers' error messages (the key in use). It does not find
// a secret that is transformed (base64, upper-cased, one character a
// line) or split across two pieces of text redacted apart, such as two
// chunks of a stream.
package session
