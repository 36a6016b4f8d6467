package viewer

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/wieldhq/wield/session"
)

// Export writes session id of store, with the sessions of its subagents,
// as one self-contained HTML page: the viewer's page with its style,
// script and data inline, no request to anything. Its
// Content-Security-Policy allows only its own style and script (by hash):
// the journal's content is data in it, escaped as the served page's is.
func Export(ctx context.Context, w io.Writer, store *session.Store, id string) error {
	tmpl := templates()
	root, err := loadPage(ctx, store, tmpl, id)
	if err != nil {
		return err
	}
	type exported struct {
		*pageJSON
		h []string
	}
	var pages []exported
	var add func(p *page, depth int) (*listEntry, error)
	seen := map[string]bool{}
	add = func(p *page, depth int) (*listEntry, error) {
		j, err := p.json(ctx, 0, len(p.rounds))
		if err != nil {
			return nil, err
		}
		// The page derives search text from the rounds' HTML, which an
		// export holds whole: the file need not carry every text twice.
		j.Export = true
		seen[p.ID] = true
		pages = append(pages, exported{j, j.H})
		j.H = nil
		e := &listEntry{Title: p.Title}
		e.ID, e.Turns, e.Open = p.ID, p.turns, p.Live
		e.CreatedAt = p.created
		if depth >= maxChildDepth {
			return e, nil
		}
		for _, r := range p.rounds {
			for _, c := range r.Calls {
				if c.Child == "" || seen[c.Child] {
					continue
				}
				cp, err := loadPage(ctx, store, tmpl, c.Child)
				if err != nil {
					continue // a child whose journal is gone is named in the parent's rounds
				}
				ce, err := add(cp, depth+1)
				if err != nil {
					return nil, err
				}
				e.Children = append(e.Children, ce)
			}
		}
		return e, nil
	}
	e, err := add(root, 1)
	if err != nil {
		return err
	}
	var lb bytes.Buffer
	if err := tmpl.ExecuteTemplate(&lb, "list", []*listEntry{e}); err != nil {
		return fmt.Errorf("session %s: render session list: %w", id, err)
	}
	head, tail, err := inlinePage()
	if err != nil {
		return err
	}
	// The data is written as it is encoded: {"root":…,"list":…,"sessions":
	// {ID: {…page…, "h": [rounds]}}}. Only the rounds are large, and they
	// go straight from their strings to the file.
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(head)
	small := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("session %s: encode: %w", id, err)
		}
		writeScriptData(bw, b)
		return nil
	}
	bw.WriteString(`{"root":`)
	small(id)
	bw.WriteString(`,"list":`)
	small(lb.String())
	bw.WriteString(`,"sessions":{`)
	for i, p := range pages {
		if i > 0 {
			bw.WriteByte(',')
		}
		small(p.ID)
		bw.WriteByte(':')
		b, err := json.Marshal(p.pageJSON)
		if err != nil {
			return fmt.Errorf("session %s: encode: %w", id, err)
		}
		b = bytes.TrimSuffix(b, []byte("}"))
		b = bytes.TrimSuffix(b, []byte(`,"h":null`))
		writeScriptData(bw, b)
		bw.WriteString(`,"h":[`)
		for k, h := range p.h {
			if k > 0 {
				bw.WriteByte(',')
			}
			writeScriptString(bw, h)
		}
		bw.WriteString("]}")
	}
	bw.WriteString("}}")
	bw.WriteString(tail)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("session %s: write export: %w", id, err)
	}
	return nil
}

// writeScriptString writes s as a JSON string that is safe in a script
// element, as writeScriptData makes JSON safe: "</" is written "<\/" and
// "<!" is written "<\u0021". s is valid UTF-8 (it was rendered from
// decoded JSON); bytes of 0x80 and above pass as they are.
func writeScriptString(w *bufio.Writer, s string) {
	w.WriteByte('"')
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var esc string
		switch {
		case c == '"':
			esc = `\"`
		case c == '\\':
			esc = `\\`
		case c == '\n':
			esc = `\n`
		case c < 0x20:
			esc = fmt.Sprintf(`\u%04x`, c)
		case c == '/' && i > 0 && s[i-1] == '<':
			esc = `\/`
		case c == '!' && i > 0 && s[i-1] == '<':
			esc = `\u0021`
		default:
			continue
		}
		w.WriteString(s[last:i])
		w.WriteString(esc)
		last = i + 1
	}
	w.WriteString(s[last:])
	w.WriteByte('"')
}

// writeScriptData writes JSON into a script element so that nothing in it
// can end the element or change how it is parsed: "</" becomes "<\/" and
// "<!--" becomes "\u003c!--", escapes that only occur inside JSON strings
// and that JSON.parse reads back as they were.
func writeScriptData(w *bufio.Writer, js []byte) {
	for len(js) > 0 {
		i := bytes.IndexByte(js, '<')
		if i < 0 {
			w.Write(js)
			return
		}
		w.Write(js[:i])
		switch rest := js[i:]; {
		case bytes.HasPrefix(rest, []byte("</")):
			w.WriteString(`<\/`)
			js = rest[2:]
		case bytes.HasPrefix(rest, []byte("<!--")):
			w.WriteString(`\u003c!--`)
			js = rest[4:]
		default:
			w.WriteByte('<')
			js = rest[1:]
		}
	}
}

// inlinePage returns the viewer's page with its style and script inline,
// under a Content-Security-Policy that allows only them, cut where the
// data goes.
func inlinePage() (head, tail string, err error) {
	index, err1 := assets.ReadFile("assets/index.html")
	css, err2 := assets.ReadFile("assets/viewer.css")
	js, err3 := assets.ReadFile("assets/viewer.js")
	if err1 != nil || err2 != nil || err3 != nil {
		return "", "", fmt.Errorf("viewer assets: %w", errors.Join(err1, err2, err3))
	}
	hash := func(b []byte) string {
		sum := sha256.Sum256(b)
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	csp := "default-src 'none'; script-src " + hash(js) + "; style-src " + hash(css) +
		"; img-src data:; base-uri 'none'; form-action 'none'"
	r := strings.NewReplacer(
		`<meta charset="utf-8">`, `<meta charset="utf-8">`+"\n"+`<meta http-equiv="Content-Security-Policy" content="`+csp+`">`,
		`<link rel="stylesheet" href="viewer.css">`, "<style>"+string(css)+"</style>",
		`<script src="viewer.js" defer></script>`+"\n", "",
		"</body>", `<script type="application/json" id="data">`+dataMark+"</script>\n<script>"+string(js)+"</script>\n</body>",
	)
	head, tail, ok := strings.Cut(r.Replace(string(index)), dataMark)
	if !ok {
		return "", "", errors.New("viewer assets: index.html has no </body>")
	}
	return head, tail, nil
}

// dataMark marks where the data goes in the exported page.
const dataMark = "\x00data\x00"
