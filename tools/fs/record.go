package fs

import (
	"context"
	"fmt"
	iofs "io/fs"

	"github.com/wieldhq/wield/internal/fstree"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// A Recorder is told of every file change the tools make, after they made
// it, so that the change can be undone: [*session.Store] implements it
// and keeps the change in the ledger of the call's session. It must be
// safe for concurrent use and must not retain the change's slices. An
// error it returns stops the run: the ledger could not be written.
type Recorder interface {
	RecordFileChange(ctx context.Context, ch session.FileChange) error
}

// record tells cfg.Recorder, if any, that call c changed rel from before
// (nil when it was created) to after.
func (cfg Config) record(ctx context.Context, c *tool.Call, w *fstree.Tree, rel string, before *target, after []byte, mode iofs.FileMode) error {
	if cfg.Recorder == nil || c == nil {
		return nil
	}
	ch := session.FileChange{SessionID: c.SessionID, CallID: c.ID, Root: w.Abs, Path: rel,
		After: &session.FileContent{Data: after, Mode: mode}}
	if before != nil && before.exists {
		ch.Before = &session.FileContent{Data: before.old, Mode: before.mode}
	}
	if err := cfg.Recorder.RecordFileChange(ctx, ch); err != nil {
		return fmt.Errorf("record the change of %s in the undo ledger: %w", rel, err)
	}
	return nil
}
