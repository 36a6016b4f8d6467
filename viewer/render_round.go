package viewer

import (
	"fmt"
	"html"
	"net/url"
	"strconv"
	"strings"

	"github.com/wieldhq/wield/session"
)

// The rounds are written by hand rather than with html/template: a long
// session renders thousands of them (an export renders all), and writing
// them directly is an order of magnitude faster. Every value from the
// journal goes through esc (text and quoted attribute values alike) or
// renderMarkdown, which escapes everything it does not write itself; the
// tests parse what comes out and allow only the page's own elements and
// attributes.

// esc escapes s for HTML text and double-quoted attribute values.
func esc(s string) string { return html.EscapeString(s) }

// writeRound writes r as an <article>.
func writeRound(b *strings.Builder, r *round) {
	fmt.Fprintf(b, `<article class="round k-%s" data-turn="%d">`+"\n", r.Kind, r.Turn)
	b.WriteString(`<header><span class="kind">` + kindLabel(r.Kind) + `</span> <span class="turn">turn ` + strconv.Itoa(r.Turn) + `</span>`)
	if !r.Time.IsZero() {
		b.WriteString(` <time datetime="` + r.Time.Format("2006-01-02T15:04:05.000Z07:00") + `">` + r.Time.Format("15:04:05") + `</time>`)
	}
	if r.Model != "" {
		b.WriteString(` <span class="model">` + esc(r.Model) + `</span>`)
	}
	if r.Usage != nil {
		b.WriteString(` <span class="usage" title="input / output tokens (cached, reasoning)">` + esc(usageText(r.Usage)) + `</span>`)
	}
	if r.Stop != "" {
		b.WriteString(` <span class="badge warn">stop: ` + esc(r.Stop) + `</span>`)
	}
	if p := r.Pool; p != nil {
		switch p.Status {
		case session.PoolAborted:
			b.WriteString(` <span class="badge err">aborted`)
			if p.Reason != "" {
				b.WriteString(": " + esc(p.Reason))
			}
			b.WriteString(`</span>`)
		case session.PoolOpen:
			b.WriteString(` <span class="badge live">in progress</span>`)
		}
	}
	b.WriteString("</header>\n")
	switch r.Kind {
	case kindTask:
		b.WriteString(`<div class="text task">` + renderMarkdown(r.Text) + "</div>\n")
	case kindSummary:
		b.WriteString(`<div class="text">` + renderMarkdown(r.Text) + "</div>\n")
	case kindCompaction:
		writeCompaction(b, r.Compaction)
	default:
		if r.Reasoning != "" {
			b.WriteString(`<details class="reasoning"><summary>reasoning</summary><div class="text">` + renderMarkdown(r.Reasoning) + "</div></details>\n")
		}
		if r.Text != "" {
			b.WriteString(`<div class="text">` + renderMarkdown(r.Text) + "</div>\n")
		}
	}
	for _, c := range r.Calls {
		writeCall(b, c)
	}
	b.WriteString("</article>")
}

func writeCall(b *strings.Builder, c *call) {
	class := "call"
	if c.Done && c.Status == session.StatusFailed {
		class += " failed"
	}
	if c.Child != "" {
		class += " child"
	}
	b.WriteString(`<details class="` + class + `" data-tool="` + esc(c.Tool) + `" data-call="` + esc(c.ID) + "\">\n")
	b.WriteString(`<summary><span class="tool">` + esc(c.Tool) + `</span> <span class="brief">` + esc(brief(c.Arguments)) + `</span>`)
	switch {
	case c.Pending:
		b.WriteString(` <span class="badge warn">awaiting approval</span>`)
	case !c.Done:
		b.WriteString(` <span class="badge live">running</span>`)
	case c.Interrupted:
		b.WriteString(` <span class="badge err">interrupted</span>`)
	case c.Status == session.StatusFailed:
		b.WriteString(` <span class="badge err">` + esc(cmpOr(c.Approval(), "failed")) + `</span>`)
	default:
		b.WriteString(` <span class="badge ok">ok</span>`)
	}
	if d := c.Duration(); d > 0 {
		b.WriteString(` <span class="dur">` + durText(d) + `</span>`)
	}
	if c.Child != "" {
		b.WriteString(` <span class="badge child">subagent ` + esc(c.Agent) + `</span>`)
	}
	b.WriteString("</summary>\n<div class=\"call-body\">\n")
	b.WriteString(`<div class="label">arguments</div><pre class="args">` + esc(prettyJSON(c.Arguments)) + "</pre>\n")
	if c.Pending {
		b.WriteString(`<div class="label">approval</div><p>awaiting a person's approval`)
		if c.PendingReason != "" {
			b.WriteString(": " + esc(c.PendingReason))
		}
		b.WriteString("</p>\n")
	}
	if len(c.Diffs) > 0 {
		b.WriteString(`<div class="label">changes</div>`)
		for _, d := range c.Diffs {
			b.WriteString(`<div class="diff"><div class="diff-path">` + esc(d.Path))
			if d.Note != "" {
				b.WriteString(` <span class="note">` + esc(d.Note) + `</span>`)
			}
			b.WriteString("</div><pre>")
			for _, l := range d.Lines {
				b.WriteString(`<span class="` + l.Class + `">` + esc(l.Text) + "</span>\n")
			}
			b.WriteString("</pre></div>\n")
		}
	}
	if c.Child != "" {
		b.WriteString(`<div class="label">subagent</div><p><a class="child-link" href="#s=` + esc(url.PathEscape(c.Child)) +
			`" data-session="` + esc(c.Child) + `">open ` + esc(c.Agent) + ` session ` + esc(c.Child) + `</a>`)
		if c.ChildStatus != "" {
			b.WriteString(` <span class="badge">` + esc(c.ChildStatus) + `</span>`)
		}
		if c.ChildUsage != nil {
			b.WriteString(` <span class="usage">` + esc(usageText(c.ChildUsage)) + `</span>`)
		}
		b.WriteString("</p>")
		if c.ChildReport != "" {
			b.WriteString(`<div class="text">` + renderMarkdown(c.ChildReport) + "</div>")
		}
		b.WriteString("\n")
	}
	if c.Done {
		b.WriteString(`<div class="label">result`)
		if a := c.Approval(); a != "" {
			b.WriteString(" (" + a + ")")
		}
		b.WriteString(`</div><pre class="result">` + esc(clip(c.Output, maxShown)) + "</pre>")
		if len(c.Data) > 0 && string(c.Data) != "null" {
			b.WriteString(`<details><summary>data</summary><pre>` + esc(prettyJSON(c.Data)) + "</pre></details>")
		}
		b.WriteString("\n")
	}
	b.WriteString("</div></details>\n")
}

func writeCompaction(b *strings.Builder, c *session.Compaction) {
	class := "compaction"
	if c.Undone {
		class += " undone"
	}
	fmt.Fprintf(b, `<div class="%s"><p><b>%s</b> of turns %d–%d`, class, esc(c.Kind), c.Range[0], c.Range[1])
	if c.Trigger != "" {
		b.WriteString(", " + esc(c.Trigger))
	}
	if c.TokensBefore > 0 {
		fmt.Fprintf(b, ", %d → %d tokens", c.TokensBefore, c.TokensAfter)
	}
	if c.Model != "" {
		b.WriteString(", by " + esc(c.Model))
	}
	if c.Undone {
		b.WriteString(` <span class="badge">undone</span>`)
	}
	if v := c.Verdict; v != nil {
		if v.Approved {
			b.WriteString(` <span class="badge">approved`)
		} else {
			b.WriteString(` <span class="badge warn">not approved`)
		}
		if v.Reviewer != "" {
			b.WriteString(" by " + esc(v.Reviewer))
		}
		if v.Fallback {
			b.WriteString(", fallback")
		}
		if len(v.Missing) > 0 {
			b.WriteString("; missing: " + esc(strings.Join(v.Missing, ", ")))
		}
		b.WriteString("</span>")
	}
	b.WriteString("</p>\n")
	if c.Focus != "" {
		b.WriteString("<p>focus: " + esc(c.Focus) + "</p>\n")
	}
	if c.Summary != "" {
		b.WriteString(`<div class="text">` + renderMarkdown(c.Summary) + "</div>\n")
	}
	if c.Ledger != nil {
		b.WriteString(`<details><summary>ledger</summary><pre class="ledger">` + esc(c.Ledger.Render()) + "</pre></details>")
	}
	b.WriteString("</div>\n")
}
