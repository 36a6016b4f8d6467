// Package viewer shows wield sessions in a browser, the way people read
// agent runs: a timeline of rounds, the model's text rendered as
// Markdown, each tool call with its arguments, result, duration and
// approval, diffs of the files it changed, subagents as a tree you can
// open, the plan, todos, compactions with their ledgers, and tokens and
// cost per round, with search and filters. A page follows a session that
// is being written: new rounds appear as the journal grows.
//
//	h := viewer.New(&session.Store{Dir: dir}, &viewer.Options{Token: token})
//	http.ListenAndServe("127.0.0.1:0", h) // open http://127.0.0.1:PORT/TOKEN/
//
// The viewer reads sessions through the [session.Store] alone (its
// Stat, Load, List and Blobs), so it shows sessions kept by any
// [session.Backend]: journal files, or PostgreSQL (package
// session/pgstore) written by workers on other machines.
//
// [Export] writes the same view of one session, its subagents' included,
// as a single self-contained HTML file.
//
// # The page
//
// The page, its script and its style are embedded in the binary: no build
// step, no framework, no network. The server renders every round to HTML
// in Go; the script only asks for rounds, inserts them and filters them.
// Opening a session sends what search and the filters need of every round
// (its text and facets) and the HTML of the first chunk; more rounds are
// fetched and rendered as they scroll into view, so a session of ten
// thousand rounds opens as fast as a short one. A live page receives
// server-sent events: the handler checks the journal's size every
// [Options.Poll] and sends the rounds that changed.
//
// # Security
//
// Everything in a journal is untrusted: a model, a tool's output or a web
// page it read may hold HTML and script. Every value is escaped where it
// is written; Markdown is rendered by a small renderer that lets no HTML
// through and links only to http, https and mailto URLs. The served page
// runs under a Content-Security-Policy that allows only its own script
// and style (no inline script, no eval, no requests elsewhere), and an
// exported file allows only its inline script and style, by hash.
//
// The token ([Options.Token]) keeps other local users and web pages from
// reading sessions through the port: a request without it gets 403. The
// viewer does not guarantee more than that: anyone who has the URL reads
// every session of the store, and the server should listen on a loopback
// address only.
package viewer
