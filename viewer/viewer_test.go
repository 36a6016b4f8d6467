package viewer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
)

func get(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	return w
}

func TestHandler_Token(t *testing.T) {
	st := newStore(t)
	id, _ := recordRun(t, st)
	h := New(st, &Options{Token: "s3cret"})
	tests := []struct {
		name, path string
		code       int
	}{
		{"no token", "/", http.StatusForbidden},
		{"no token api", "/api/session?id=" + id, http.StatusForbidden},
		{"wrong token", "/s3creT/", http.StatusForbidden},
		{"token prefix", "/s3cretX/", http.StatusForbidden},
		{"token as query", "/?t=s3cret", http.StatusForbidden},
		{"token without slash", "/s3cret", http.StatusFound},
		{"page", "/s3cret/", http.StatusOK},
		{"script", "/s3cret/viewer.js", http.StatusOK},
		{"api", "/s3cret/api/session?id=" + id, http.StatusOK},
		{"unknown session", "/s3cret/api/session?id=nope", http.StatusNotFound},
		{"escaping id", "/s3cret/api/session?id=../../etc/passwd", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := get(t, h, tt.path)
			if w.Code != tt.code {
				t.Fatalf("GET %s = %d, want %d (%s)", tt.path, w.Code, tt.code, w.Body)
			}
			if csp := w.Header().Get("Content-Security-Policy"); csp != servedCSP {
				t.Errorf("GET %s: Content-Security-Policy %q, want %q", tt.path, csp, servedCSP)
			}
			if tt.code == http.StatusForbidden && strings.Contains(w.Body.String(), id) {
				t.Errorf("GET %s: a forbidden answer names the session", tt.path)
			}
		})
	}
}

// allowed are the elements and attributes the page's HTML may hold; no
// attribute may be an event handler, and links go to http(s), mailto or
// another session of the page.
var allowed = map[string][]string{
	"article": {"class", "data-turn"}, "header": {}, "span": {"class", "title"}, "time": {"datetime"},
	"div": {"class"}, "details": {"class", "data-tool", "data-call"}, "summary": {}, "pre": {"class"},
	"code": {"class"}, "p": {}, "br": {}, "h3": {}, "h4": {}, "h5": {}, "h6": {}, "h2": {}, "hr": {},
	"ul": {"class"}, "ol": {}, "li": {"class"}, "blockquote": {}, "strong": {}, "em": {}, "b": {},
	"a": {"href", "rel", "target", "class", "data-session"}, "section": {"class"}, "dl": {}, "dt": {}, "dd": {},
}

// checkFragment reports what in an HTML fragment could run or leave the
// page: an element or attribute outside allowed, a link of another scheme.
func checkFragment(frag string) error {
	nodes, err := html.ParseFragment(strings.NewReader(frag), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	if err != nil {
		return err
	}
	var check func(n *html.Node) error
	check = func(n *html.Node) error {
		if n.Type == html.ElementNode {
			attrs, ok := allowed[n.Data]
			if !ok {
				return fmt.Errorf("element <%s> is not allowed", n.Data)
			}
			for _, a := range n.Attr {
				if !containsString(attrs, a.Key) {
					return fmt.Errorf("<%s %s=%q>: attribute not allowed", n.Data, a.Key, a.Val)
				}
				if a.Key == "href" && !strings.HasPrefix(a.Val, "#s=") && !strings.HasPrefix(a.Val, "http://") &&
					!strings.HasPrefix(a.Val, "https://") && !strings.HasPrefix(a.Val, "mailto:") {
					return fmt.Errorf("<a href=%q>: not a safe link", a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if err := check(c); err != nil {
				return err
			}
		}
		return nil
	}
	for _, n := range nodes {
		if err := check(n); err != nil {
			return err
		}
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestHandler_EscapesHostileJournalContent(t *testing.T) {
	st := newStore(t)
	id, _ := recordRun(t, st)
	h := New(st, nil)
	var p pageJSON
	w := get(t, h, "/api/session?id="+id)
	must(t, json.Unmarshal(w.Body.Bytes(), &p))
	if len(p.H) != len(p.Index) {
		t.Fatalf("a short session came with %d of %d rounds rendered", len(p.H), len(p.Index))
	}
	var list struct{ List string }
	must(t, json.Unmarshal(get(t, h, "/api/sessions").Body.Bytes(), &list))
	frags := append([]string{p.Side, list.List}, p.H...)
	all := strings.Join(frags, "\n")
	for _, f := range frags {
		if err := checkFragment(f); err != nil {
			t.Errorf("%v in\n%s", err, f)
		}
	}
	for _, want := range []string{
		"&lt;script&gt;window.pwned=1&lt;/script&gt;",        // shown as text
		"[click me](javascript:window.pwned=2)",              // an unsafe link stays text
		"&#34; onmouseover=&#34;window.pwned=3&#34; x=&#34;", // quotes escaped
		"&lt;img src=x onerror=&#34;window.pwned=4&#34;&gt;",
		"<h3>Plan</h3>", "<em>read</em>", `<code class="lang-go">`, // Markdown rendered
		`<span class="del">-	return nil</span>`, `<span class="add">+	return err</span>`, // the ledger's diff
		"subagent reviewer", "1200 in / 80 out (1000 cached) · $0.0042",
	} {
		if !strings.Contains(all, want) && !strings.Contains(all, strings.ReplaceAll(want, "&#34;", "&quot;")) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

func TestHandler_RoundsServesOnlyWhatIsAsked(t *testing.T) {
	st := newStore(t)
	id := bigSession(t, st, 120)
	h := New(st, nil)
	var p pageJSON
	must(t, json.Unmarshal(get(t, h, "/api/session?id="+id).Body.Bytes(), &p))
	if len(p.Index) != 132 || len(p.H) != chunk { // 120 responses and 12 tasks
		t.Fatalf("session: %d rounds indexed, %d rendered; want 132 and %d", len(p.Index), len(p.H), chunk)
	}
	var m map[string]string
	must(t, json.Unmarshal(get(t, h, "/api/rounds?id="+id+"&i=131,7,x,-1,999").Body.Bytes(), &m))
	if len(m) != 2 || !strings.Contains(m["131"], "Round 119.") || !strings.Contains(m["7"], "Round 6.") {
		t.Errorf("rounds 131 and 7: got %v", m)
	}
}

// readEvent reads server-sent events from r until one of kind arrives.
func readEvent(r *bufio.Reader, kind string) (string, error) {
	var event string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return "", err
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && event == kind:
			return strings.TrimPrefix(line, "data: "), nil
		}
	}
}

func TestHandler_EventsDeliverAnAppendedRound(t *testing.T) {
	st := newStore(t)
	id, _ := recordRun(t, st)
	checkLiveAppend(t, st, st, id)
}

// checkLiveAppend follows session id through a Handler of view, appends a
// task and a response through write, and checks that the page receives
// them as an update: view and write may be two stores of one backend, as
// a viewer and a writer in two processes are.
func checkLiveAppend(t *testing.T, view, write *session.Store, id string) {
	t.Helper()
	srv := httptest.NewServer(New(view, &Options{Poll: 5 * time.Millisecond}))
	defer srv.Close()

	var p pageJSON
	resp, err := http.Get(srv.URL + "/api/session?id=" + id)
	must(t, err)
	must(t, json.NewDecoder(resp.Body).Decode(&p))
	resp.Body.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/api/events?id=%s&n=%d&v=%d", srv.URL, id, len(p.Index), p.V), nil)
	resp, err = http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	r := bufio.NewReader(resp.Body)
	if _, err := r.ReadString('\n'); err != nil { // the stream is open: the handler follows the journal
		t.Fatal(err)
	}

	s, err := write.Open(ctx, id)
	must(t, err)
	must(t, s.Begin(ctx, "one more thing"))
	must(t, s.RecordResponse(ctx, &llm.Response{Message: llm.Message{Content: "A live <b>round</b>."}, Model: "m"}))
	must(t, s.Commit(ctx))
	must(t, s.Close())

	// The page applies each update as the script does: the rounds from
	// From on are replaced. An update may come between the writes, each
	// sending the last round the page had again.
	if len(p.H) != len(p.Index) {
		t.Fatalf("the page came with %d of %d rounds rendered", len(p.H), len(p.Index))
	}
	shown := slices.Clone(p.H)
	for !strings.Contains(shown[len(shown)-1], "A live") {
		data, err := readEvent(r, "update")
		must(t, err)
		var u update
		must(t, json.Unmarshal([]byte(data), &u))
		if u.From != len(shown)-1 || len(u.H) != len(u.Index) {
			t.Fatalf("update from %d with %d rounds (%d indexed), want from %d, the last round shown:\n%s", u.From, len(u.H), len(u.Index), len(shown)-1, strings.Join(u.H, "\n"))
		}
		shown = append(shown[:u.From], u.H...)
	}
	if n := len(p.Index); len(shown) != n+2 || !strings.Contains(shown[n], "one more thing") || !strings.Contains(shown[n+1], "A live &lt;b&gt;round&lt;/b&gt;.") {
		t.Errorf("after the updates the page shows %d rounds, want %d: the %d it had, the task and the response:\n%s", len(shown), n+2, n, strings.Join(shown[n-1:], "\n"))
	}
}

func TestExport_IsSelfContained(t *testing.T) {
	st := newStore(t)
	id, child := recordRun(t, st)
	var b bytes.Buffer
	must(t, Export(t.Context(), &b, st, id))
	out := b.String()
	doc, err := html.Parse(strings.NewReader(out))
	must(t, err)
	var scripts, styles int
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				if a.Key == "src" || a.Key == "href" && n.Data == "link" {
					t.Errorf("<%s %s=%q>: the export loads something", n.Data, a.Key, a.Val)
				}
			}
			switch n.Data {
			case "script":
				scripts++
			case "style":
				styles++
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if scripts != 2 || styles != 1 {
		t.Errorf("%d scripts and %d styles, want 2 (data and code) and 1", scripts, styles)
	}
	if !strings.Contains(out, `http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-`) {
		t.Error("no Content-Security-Policy")
	}
	i := strings.Index(out, `<script type="application/json" id="data">`)
	j := strings.Index(out[i:], "</script>")
	var data struct {
		Root     string
		Sessions map[string]pageJSON
	}
	must(t, json.Unmarshal([]byte(out[i+len(`<script type="application/json" id="data">`):i+j]), &data))
	if data.Root != id || len(data.Sessions) != 2 || len(data.Sessions[child].H) != len(data.Sessions[child].Index) {
		t.Errorf("export holds root %q and %d sessions, want %q and its child %q, all rounds rendered", data.Root, len(data.Sessions), id, child)
	}
	// The journal's text is data: it comes back whole from JSON.parse, and
	// the page sets it as text.
	if got := data.Sessions[id].Title; !strings.Contains(got, hostileScript) {
		t.Errorf("title %q lost the purpose's text", got)
	}
	if strings.Contains(out, "</script>window") || strings.Contains(out, "<!--") {
		t.Error("data can end its script element")
	}
}

// FuzzWriteScriptString checks that a round's HTML written into the
// export's data script reads back the same and cannot end the script.
func FuzzWriteScriptString(f *testing.F) {
	for _, s := range []string{"", "<a>x</a>", "</script><!-- \"\\\n\t\x00", "héllo\u2028", "<", "<!", "</"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // rounds are rendered from decoded JSON: always valid UTF-8
		}
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		writeScriptString(w, s)
		w.Flush()
		var got string
		if err := json.Unmarshal(b.Bytes(), &got); err != nil || got != s {
			t.Fatalf("writeScriptString(%q) = %s: reads back %q, %v", s, b.Bytes(), got, err)
		}
		if bytes.Contains(b.Bytes(), []byte("</")) || bytes.Contains(b.Bytes(), []byte("<!")) {
			t.Fatalf("writeScriptString(%q) = %s: can end or change the script element", s, b.Bytes())
		}
	})
}
