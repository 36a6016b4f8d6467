package viewer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// An update is one server-sent event of a live page: the rounds from From
// on are replaced by the ones given (the last round a page showed may have
// changed: a call's result arrived), and the side panel is replaced.
type update struct {
	V     int64        `json:"v"`
	Live  bool         `json:"live"`
	Side  string       `json:"side"`
	From  int          `json:"from"`
	Index []roundIndex `json:"index"`
	H     []string     `json:"h"`
}

// events follows a session's journal as it grows and sends an "update"
// event for each change. The query names the session (id), the number of
// rounds the page has (n) and the journal size it read them from (v).
// The journal is checked every Options.Poll: a journal that only grows
// needs no notification machinery, and a check is one [session.Store.Stat]
// (a stat of a file, or one query to PostgreSQL).
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id := q.Get("id")
	n, _ := strconv.Atoi(q.Get("n"))
	v, _ := strconv.ParseInt(q.Get("v"), 10, 64)
	ctx := r.Context()
	p, err := h.page(ctx, id)
	if err != nil {
		h.fail(w, err)
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		h.fail(w, fmt.Errorf("session %s: the connection cannot stream events", id))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": following the journal\n\n")
	fl.Flush()

	// known is what the page shows: the rounds of the page it read, as far
	// as this handler can tell.
	known, size, modified := len(p.index), p.Size, p.modified
	if v != p.Size { // the page was read from another version
		known, size = min(n, len(p.index)), v
	}
	var last []roundIndex // the rounds sent or known, to find what changed
	if v == p.Size {
		last = p.index
	}
	ticker := time.NewTicker(h.opts.Poll)
	defer ticker.Stop()
	for {
		if info, err := h.store.Stat(ctx, id); err == nil && (info.Size != size || !info.Modified.Equal(modified)) {
			p, err := h.page(ctx, id)
			if err != nil {
				h.logger.Warn("viewer: follow", "session", id, "err", err)
				return
			}
			// The last round shown is sent again: a result or an approval may
			// have changed it without changing what search matches.
			from := min(changedFrom(last, p.index, known), max(0, known-1))
			u, err := p.update(ctx, from)
			if err != nil {
				h.logger.Warn("viewer: follow", "session", id, "err", err)
				return
			}
			b, _ := json.Marshal(u)
			if _, err := fmt.Fprintf(w, "event: update\ndata: %s\n\n", b); err != nil {
				return
			}
			fl.Flush()
			last, known, size, modified = p.index, len(p.index), p.Size, p.modified
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// changedFrom returns the first round that differs between old and cur,
// looking no further than known; with no old rounds to compare, the last
// known round is sent again.
func changedFrom(old, cur []roundIndex, known int) int {
	if old == nil {
		return max(0, known-1)
	}
	for i := range min(len(old), len(cur), known) {
		if old[i] != cur[i] {
			return i
		}
	}
	return min(len(old), len(cur), known)
}

// update returns the page's rounds from from on, rendered.
func (p *page) update(ctx context.Context, from int) (*update, error) {
	j, err := p.json(ctx, from, len(p.rounds))
	if err != nil {
		return nil, err
	}
	return &update{V: p.Size, Live: p.Live, Side: p.Side, From: j.From, Index: p.index[j.From:], H: j.H}, nil
}
