package viewer

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wieldhq/wield/session"
)

// Options configure a [Handler]. The zero value works: no token, the
// default poll interval, no logging.
type Options struct {
	// Token, when not empty, must be the first element of every request's
	// path (/TOKEN/, /TOKEN/api/session?id=…); other requests get 403
	// Forbidden. Pages link relative to it, so a browser given the URL
	// with the token needs nothing else.
	Token string
	// Poll is how often a live page's journal is checked for new records;
	// zero means 250ms.
	Poll time.Duration
	// Logger receives request errors; nil discards them.
	Logger *slog.Logger
}

// DefaultPoll is the interval at which live pages check their journal when
// [Options.Poll] is zero.
const DefaultPoll = 250 * time.Millisecond

// maxPages is how many sessions a Handler keeps read.
const maxPages = 16

// chunk is how many rounds the page asks for at a time; the first answer
// holds as many, a few screens.
const chunk = 25

// A Handler serves the viewer for the sessions of one store: the page,
// its script and style, and the JSON and event-stream endpoints the
// script reads. It is safe for concurrent use. Every request gets a strict
// Content-Security-Policy: scripts and styles only from the handler, no
// inline script, no frames, no requests elsewhere.
type Handler struct {
	store  *session.Store
	opts   Options
	tmpl   *template.Template
	logger *slog.Logger

	mu    sync.Mutex
	pages map[string]*page // the latest page read of each session
}

// New returns a Handler serving the sessions of store. opts may be nil.
func New(store *session.Store, opts *Options) *Handler {
	h := &Handler{store: store, tmpl: templates(), pages: map[string]*page{}}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.Poll <= 0 {
		h.opts.Poll = DefaultPoll
	}
	h.logger = h.opts.Logger
	if h.logger == nil {
		h.logger = slog.New(slog.DiscardHandler)
	}
	return h
}

// servedCSP is the Content-Security-Policy of every served response.
const servedCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// ServeHTTP serves the viewer.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", servedCSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer") // the token is in the URL
	hd.Set("Cache-Control", "no-store")
	path := r.URL.Path
	if h.opts.Token != "" {
		rest, ok := strings.CutPrefix(path, "/")
		tok, after, _ := strings.Cut(rest, "/")
		if !ok || subtle.ConstantTimeCompare([]byte(tok), []byte(h.opts.Token)) != 1 {
			http.Error(w, "forbidden: open the viewer's URL with its token (Options.Token)", http.StatusForbidden)
			return
		}
		if !strings.HasPrefix(rest[len(tok):], "/") { // /TOKEN: relative links need the slash
			http.Redirect(w, r, "/"+tok+"/", http.StatusFound)
			return
		}
		path = "/" + after
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch path {
	case "/", "/index.html":
		h.asset(w, "index.html", "text/html; charset=utf-8")
	case "/viewer.js":
		h.asset(w, "viewer.js", "text/javascript; charset=utf-8")
	case "/viewer.css":
		h.asset(w, "viewer.css", "text/css; charset=utf-8")
	case "/api/sessions":
		h.sessions(w, r)
	case "/api/session":
		h.session(w, r)
	case "/api/rounds":
		h.rounds(w, r)
	case "/api/text":
		h.text(w, r)
	case "/api/events":
		h.events(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (h *Handler) asset(w http.ResponseWriter, name, ctype string) {
	b, err := assets.ReadFile("assets/" + name)
	if err != nil {
		h.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Write(b)
}

// page returns session id's page, read again only when its journal has
// changed since the last read.
func (h *Handler) page(ctx context.Context, id string) (*page, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || strings.Contains(id, "..") {
		return nil, fmt.Errorf("invalid session id %q: %w", id, session.ErrNotFound)
	}
	info, err := h.store.Stat(ctx, id)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	p := h.pages[id]
	h.mu.Unlock()
	if p != nil && p.current(info) {
		return p, nil
	}
	p, err = loadPage(ctx, h.store, h.tmpl, id)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	for other := range h.pages { // keep memory bounded while browsing many sessions
		if len(h.pages) < maxPages {
			break
		}
		delete(h.pages, other)
	}
	h.pages[id] = p
	h.mu.Unlock()
	return p, nil
}

func (h *Handler) sessions(w http.ResponseWriter, r *http.Request) {
	list, sums, err := sessionList(r.Context(), h.store, h.tmpl)
	if err != nil {
		h.fail(w, err)
		return
	}
	first := ""
	if len(sums) > 0 {
		first = sums[0].ID
		for _, s := range sums { // the newest session a person started
			if s.Child == nil {
				first = s.ID
				break
			}
		}
	}
	writeJSON(w, struct {
		List   string `json:"list"`
		Newest string `json:"newest"`
	}{list, first})
}

func (h *Handler) session(w http.ResponseWriter, r *http.Request) {
	p, err := h.page(r.Context(), r.URL.Query().Get("id"))
	if err != nil {
		h.fail(w, err)
		return
	}
	b, err := p.firstJSON(r.Context())
	if err != nil {
		h.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// Prepare reads session id and readies its first answer, so that a page
// opening it gets it at once: call it before showing the viewer's URL.
// Pages are read again when their journal changes.
func (h *Handler) Prepare(ctx context.Context, id string) error {
	p, err := h.page(ctx, id)
	if err != nil {
		return err
	}
	_, err = p.firstJSON(ctx)
	return err
}

// rounds serves the HTML of the rounds listed in i (comma-separated, at
// most chunk of them).
func (h *Handler) rounds(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, err := h.page(r.Context(), q.Get("id"))
	if err != nil {
		h.fail(w, err)
		return
	}
	out := map[string]string{}
	for n, s := range strings.Split(q.Get("i"), ",") {
		i, err := strconv.Atoi(s)
		if n >= chunk || err != nil || i < 0 || i >= len(p.rounds) {
			continue
		}
		html, err := p.html(r.Context(), i)
		if err != nil {
			h.fail(w, err)
			return
		}
		out[s] = html
	}
	writeJSON(w, out)
}

// text serves the search text of every round, in order.
func (h *Handler) text(w http.ResponseWriter, r *http.Request) {
	p, err := h.page(r.Context(), r.URL.Query().Get("id"))
	if err != nil {
		h.fail(w, err)
		return
	}
	texts := make([]string, len(p.index))
	for i, x := range p.index {
		texts[i] = x.T
	}
	writeJSON(w, texts)
}

func (h *Handler) fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	if errors.Is(err, session.ErrNotFound) { // an invalid id wraps it too
		code = http.StatusNotFound
	}
	h.logger.Warn("viewer", "err", err)
	http.Error(w, err.Error(), code)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	// encoding/json escapes <, > and & in strings: nothing in it reads as
	// markup even when embedded in a page.
	json.NewEncoder(w).Encode(v)
}
