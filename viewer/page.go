package viewer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"strings"
	"sync"
	"time"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/planmode"
)

// A page is one session prepared for the browser: its rounds, the side
// panel, and the search text of every round. Rounds are rendered to HTML
// on demand (see [page.html]), so that opening a long session renders only
// what is on screen.
type page struct {
	ID    string
	Size  int64 // journal bytes the page was read from: its version
	Live  bool  // a transaction is open
	Title string
	Side  string

	// modified is when the journal was last written, as the page read
	// it: a journal cut back and written again to the same size differs
	// from the page in it.
	modified time.Time
	turns    int
	created  time.Time

	rounds []*round
	index  []roundIndex
	blobs  blobGetter
	tmpl   *template.Template
	mu     sync.Mutex // guards the rounds' Diffs, filled on first render, and first
	first  []byte     // the page's first answer, encoded once
}

// A roundIndex is what the page's script knows of every round before its
// HTML is loaded: what search and filters match.
type roundIndex struct {
	// T is the round's text, lower-cased, for search. A page's first
	// answer leaves it out, and the script asks for all of them
	// (api/text) when a search needs them; an export leaves it out too,
	// and the script reads the rounds' HTML.
	T string `json:"t,omitempty"`
	// K are its facets, space-separated (see tags).
	K string `json:"k"`
}

// A pageJSON is a page as the script receives it. H holds the HTML of the
// rounds listed in From onward that were rendered; the script asks for the
// others when they scroll into view.
type pageJSON struct {
	ID     string       `json:"id"`
	V      int64        `json:"v"`
	Live   bool         `json:"live"`
	Title  string       `json:"title"`
	Side   string       `json:"side"`
	Index  []roundIndex `json:"index"`
	From   int          `json:"from"`
	Export bool         `json:"export,omitempty"`
	H      []string     `json:"h"` // last: Export writes it apart
}

// loadPage reads session id from store and folds it into a page.
func loadPage(ctx context.Context, store *session.Store, tmpl *template.Template, id string) (*page, error) {
	// The size is read before the journal: a write between the two makes
	// the page look older than it is, and the next check reads it again.
	info, err := store.Stat(ctx, id)
	if err != nil {
		return nil, err
	}
	st, err := store.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	blobs := store.Blobs(id)
	p := &page{ID: id, Size: info.Size, modified: info.Modified, Live: st.Open(), Title: title(st), tmpl: tmpl, blobs: blobs.Get,
		turns: st.Timeline(), created: st.Header.CreatedAt}
	p.rounds = rounds(st)
	p.index = make([]roundIndex, len(p.rounds))
	for i, r := range p.rounds {
		p.index[i] = roundIndex{T: searchText(r), K: tags(r)}
	}
	side, err := p.side(ctx, store, st)
	if err != nil {
		return nil, err
	}
	p.Side = side
	return p, nil
}

// current reports whether the page was read from the journal info
// describes.
func (p *page) current(info session.JournalInfo) bool {
	return p.Size == info.Size && p.modified.Equal(info.Modified)
}

// html renders round i.
func (p *page) html(ctx context.Context, i int) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.rounds[i]
	for _, c := range r.Calls {
		if c.Diffs == nil && (len(c.Files) > 0 || c.Tool == "replace") {
			d := diffsOf(ctx, c, p.blobs)
			if err := ctx.Err(); err != nil {
				// What was read is not kept: a blob it could not read is
				// not missing.
				return "", fmt.Errorf("session %s: %w", p.ID, err)
			}
			c.Diffs = d
		}
	}
	var b strings.Builder
	writeRound(&b, r)
	return b.String(), nil
}

// firstJSON returns the page's first answer to the script, the first chunk
// of rounds rendered, encoded once.
func (p *page) firstJSON(ctx context.Context) ([]byte, error) {
	p.mu.Lock()
	b := p.first
	p.mu.Unlock()
	if b != nil {
		return b, nil
	}
	j, err := p.json(ctx, 0, chunk)
	if err != nil {
		return nil, err
	}
	if b, err = json.Marshal(j); err != nil {
		return nil, fmt.Errorf("session %s: encode: %w", p.ID, err)
	}
	p.mu.Lock()
	p.first = b
	p.mu.Unlock()
	return b, nil
}

// json returns the page with the HTML of rounds [from, to), and the
// facets of every round without its search text.
func (p *page) json(ctx context.Context, from, to int) (*pageJSON, error) {
	from, to = max(0, min(from, len(p.rounds))), max(0, min(to, len(p.rounds)))
	facets := make([]roundIndex, len(p.index))
	for i, x := range p.index {
		facets[i].K = x.K
	}
	out := &pageJSON{ID: p.ID, V: p.Size, Live: p.Live, Title: p.Title, Side: p.Side, Index: facets, From: from, H: []string{}}
	for i := from; i < to; i++ {
		h, err := p.html(ctx, i)
		if err != nil {
			return nil, err
		}
		out.H = append(out.H, h)
	}
	return out, nil
}

// maxChildDepth bounds the subagent tree of the side panel.
const maxChildDepth = 4

func (p *page) side(ctx context.Context, store *session.Store, st *session.State) (string, error) {
	d := sideData{ID: st.Header.ID, Title: p.Title, Header: st.Header, Mode: planmode.Of(st).Mode, Plan: planmode.Of(st).Plan,
		Turns: st.Timeline(), Todos: st.Todos, Compactions: st.Compactions, Files: st.Files, Rewinds: st.Rewinds}
	total := llm.Usage{}
	for _, r := range p.rounds {
		if r.Usage != nil {
			total = total.Add(*r.Usage)
		}
		for _, c := range r.Calls {
			if c.ChildUsage != nil {
				total = total.Add(*c.ChildUsage)
			}
		}
	}
	d.Total = &total
	d.Children = children(ctx, store, p.rounds, map[string]bool{st.Header.ID: true}, 1)
	var b bytes.Buffer
	if err := p.tmpl.ExecuteTemplate(&b, "side", d); err != nil {
		return "", fmt.Errorf("session %s: render side panel: %w", st.Header.ID, err)
	}
	return b.String(), nil
}

// children returns the subagents started in rs, with theirs, to
// maxChildDepth; seen guards against a journal naming itself.
func children(ctx context.Context, store *session.Store, rs []*round, seen map[string]bool, depth int) []*childNode {
	var out []*childNode
	for _, r := range rs {
		for _, c := range r.Calls {
			if c.Child == "" || seen[c.Child] {
				continue
			}
			seen[c.Child] = true
			n := &childNode{ID: c.Child, Agent: c.Agent, Status: cmpOr(c.ChildStatus, "running")}
			if depth < maxChildDepth {
				if st, err := store.Load(ctx, c.Child); err == nil {
					n.Children = children(ctx, store, rounds(st), seen, depth+1)
				}
			}
			out = append(out, n)
		}
	}
	return out
}

// A listEntry is a session in the list of sessions, with its children.
type listEntry struct {
	session.Summary
	Title    string
	Children []*listEntry
}

// sessionList renders the store's sessions as a tree: children under the
// session that started them.
func sessionList(ctx context.Context, store *session.Store, tmpl *template.Template) (string, []session.Summary, error) {
	sums, err := store.List(ctx)
	if err != nil {
		return "", nil, err
	}
	items := make(map[string]*listEntry, len(sums))
	for _, s := range sums {
		t := s.Purpose
		if t == "" {
			t = s.ID
		}
		items[s.ID] = &listEntry{Summary: s, Title: clip(t, 100)}
	}
	var roots []*listEntry
	for _, s := range sums {
		it := items[s.ID]
		if s.Child != nil {
			if parent, ok := items[s.Child.Session]; ok && s.Child.Session != s.ID {
				parent.Children = append(parent.Children, it)
				continue
			}
		}
		roots = append(roots, it)
	}
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, "list", roots); err != nil {
		return "", nil, fmt.Errorf("render session list: %w", err)
	}
	return b.String(), sums, nil
}
