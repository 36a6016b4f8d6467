// Package ledger takes back what an agent did to the workspace: it plans
// and applies undos and rewinds from a session's mutation ledger, and
// snapshots the workspace around each round so that what shell commands
// changed is in the ledger too.
//
// The ledger itself is part of the session's journal (see
// [session.FileRecord]): every file change wield's own tools make is
// appended with its call and round, the contents before and after going
// to the session's content-addressed blob store. Nothing ever touches the
// user's repository, refs or index.
//
// # Undo and rewind
//
// Changes are grouped: each round of work is one group ("round:N"), a
// mutation transaction the model opened with begin_change is one
// ("change:N"), and an undo's own changes are one ("rewind:N"). [PlanUndo]
// plans taking back the newest group in effect; [PlanRewind] plans
// putting the files (and, with Scope.Conversation, the prompt) back to
// the start of a round. A plan lists each file's action and marks as a
// conflict every file someone changed after the ledger's record; [Apply]
// refuses conflicts unless told to overwrite them, never writes through a
// symbolic link, keeps what it overwrites, and appends a rewind record, so
// that an undo can be undone in turn:
//
//	plan, err := ledger.PlanUndo(sess.State(), ledger.Scope{Code: true})
//	if err != nil {
//		return err // ledger.ErrNothingToUndo when there is nothing
//	}
//	for _, a := range plan.Actions {
//		fmt.Println(a.Kind, a.Path, a.Conflict)
//	}
//	_, err = ledger.Apply(ctx, sess, plan, nil) // *ledger.ConflictError on conflicts
//
// # Shell side effects
//
// A [Tracker] given to the agent (agent.Config.Rounds) snapshots the
// workspace before and after each round with a [Snapshotter]: a pure-Go
// walk that records every file's hash, mode and link target, skips
// version-control, dependency and ignored directories and files over
// 10 MiB, and reuses the previous snapshot's hash of every file whose size,
// modification time, inode and change time are unchanged. The differences
// the tools' own records do not explain become records of the round, so
// `sed -i` run through the shell is undone with the rest.
package ledger
