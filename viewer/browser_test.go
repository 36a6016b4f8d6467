package viewer

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wieldhq/wield/llm"
)

// The browser tests drive a real headless Chromium (scripts/test.sh
// installs Debian's). A missing browser fails them; WIELD_ALLOW_SKIP=1
// lets them skip on a developer machine, never in CI.

// browser returns a chromedp context on a fresh headless Chromium.
func browser(t *testing.T) context.Context {
	t.Helper()
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		msg := "no Chromium found (chromium, chromium-browser, google-chrome): scripts/test.sh installs Debian's chromium; install it to run the browser tests"
		if os.Getenv("WIELD_ALLOW_SKIP") == "1" && os.Getenv("CI") == "" {
			t.Skip(msg)
		}
		t.Fatal(msg)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // tests may run as root, where Chromium's sandbox refuses to start
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	ctx, cancelT := context.WithTimeout(ctx, 5*time.Minute) // the race detector slows the server down many times
	t.Cleanup(cancelT)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start Chromium %s: %v", path, err)
	}
	return ctx
}

// pwned reports whether any hostile content of the journal ran.
func pwned(t *testing.T, ctx context.Context) {
	t.Helper()
	got := eval[string](t, ctx, `String(window.pwned)`)
	if got != "undefined" {
		t.Fatalf("journal content ran in the page: window.pwned = %s", got)
	}
}

// eval evaluates expr in the page and returns its value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// setControl sets the value of the control with id as a person does,
// firing its event.
func setControl(id, v, event string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(f => (f.value = '`+v+`', f.dispatchEvent(new Event('`+event+`')), true))(document.getElementById('`+id+`'))`))
		return err
	})
}

func TestBrowser_RecordedSession(t *testing.T) {
	st := newStore(t)
	id, _ := recordRun(t, st)
	srv := httptest.NewServer(New(st, &Options{Token: "tok", Poll: 10 * time.Millisecond}))
	t.Cleanup(srv.Close) // after the browser's cleanup, which ends its event stream
	ctx := browser(t)

	run := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	run("open the session",
		chromedp.Navigate(srv.URL+"/tok/"), // the newest session a person started
		chromedp.WaitVisible(chromedp.CSS(`#rounds article.k-response`)),
		chromedp.WaitVisible(`//nav[@id="list"]//a[contains(., "review the fix")]`), // the child, under its parent
		chromedp.WaitVisible(`//aside//li[contains(., "fix it")]`),                  // a todo
	)
	pwned(t, ctx)
	run("expand a tool call",
		chromedp.Click(chromedp.CSS(`details[data-call="c2"] > summary`)),
		chromedp.WaitVisible(chromedp.CSS(`details[data-call="c2"] .diff .add`)),
		chromedp.Click(chromedp.CSS(`details[data-call="c1"] > summary`)),
		chromedp.WaitVisible(chromedp.CSS(`details[data-call="c1"] pre.result`)),
	)
	// Hover the text that tried to inject an attribute.
	run("hover", chromedp.ScrollIntoView(chromedp.CSS(`#rounds article.k-response .text p:last-child`)))
	pwned(t, ctx)

	run("open the subagent",
		chromedp.Click(chromedp.CSS(`details[data-call="c4"] > summary`)),
		chromedp.Click(chromedp.CSS(`details[data-call="c4"] a.child-link`)),
		chromedp.WaitVisible(`//h1[@id="title"][. = "review the fix"]`),
		chromedp.WaitVisible(`//article//strong[. = "LGTM"]`),
		chromedp.WaitVisible(`//aside//a[contains(., "`+id+`")]`), // its parent
	)
	eval[bool](t, ctx, `history.back(), true`) // a hash change: no page load for NavigateBack to wait for
	run("back to the parent",
		chromedp.WaitVisible(chromedp.CSS(`details[data-call="c4"]`)),
	)

	run("filter",
		chromedp.SendKeys(chromedp.CSS(`#q`), "go test"),
		chromedp.WaitNotPresent(chromedp.CSS(`details[data-call="c1"]`)),
		chromedp.WaitVisible(chromedp.CSS(`details[data-call="c3"]`)),
	)
	n := eval[int](t, ctx, `document.querySelectorAll('#rounds .slot').length`)
	if n != 1 {
		t.Errorf("search %q shows %d rounds, want 1", "go test", n)
	}
	run("facet",
		setControl("q", "", "input"),
		setControl("facet", "child", "change"),
		chromedp.WaitNotPresent(chromedp.CSS(`details[data-call="c3"]`)),
		chromedp.WaitVisible(chromedp.CSS(`details[data-call="c4"]`)),
		setControl("facet", "", "change"),
		chromedp.WaitVisible(chromedp.CSS(`details[data-call="c1"]`)),
	)

	// A live run: the journal grows while the page is open.
	s, err := st.Open(ctx, id)
	must(t, err)
	must(t, s.Begin(ctx, "and one more thing"))
	must(t, s.RecordResponse(ctx, &llm.Response{Message: llm.Message{Content: "A **live** round <script>window.pwned=5</script>"}, Model: "m"}))
	run("the task appears while the transaction is open",
		chromedp.WaitVisible(`//article[contains(., "and one more thing")]//span[contains(@class, "live")]`),
		chromedp.WaitVisible(`//article//strong[. = "live"]`),
	)
	must(t, s.Commit(ctx))
	must(t, s.Close())
	run("the round is committed",
		chromedp.WaitNotPresent(`//article[contains(., "and one more thing")]//span[contains(@class, "live")]`),
	)
	pwned(t, ctx)
}

// cpuTime returns the CPU time the test process has used.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	must(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// largeRounds is the size of the generated session the viewer must open
// in under a second.
const largeRounds = 10000

func TestBrowser_LargeSessionOpensInUnderASecond(t *testing.T) {
	st := newStore(t)
	genStart := time.Now()
	id := bigSession(t, st, largeRounds)
	t.Logf("generated a session of %d rounds in %v", largeRounds, time.Since(genStart).Round(time.Millisecond))
	info, err := os.Stat(st.Path(id))
	must(t, err)
	ctx := browser(t)

	// openPage opens the session from navigation to the first rounds on
	// screen and a script answered.
	openPage := func(url string) (painted, open time.Duration) {
		t.Helper()
		start := time.Now()
		if err := chromedp.Do(ctx,
			chromedp.Navigate(url),
			chromedp.WaitVisible(chromedp.CSS(`#rounds .slot[data-i="0"] article`)),
		); err != nil {
			t.Fatal(err)
		}
		painted = time.Since(start)
		if !eval[bool](t, ctx, `1 + 1 === 2`) {
			t.Fatal("1 + 1 is not 2")
		}
		return painted, time.Since(start)
	}
	// inPage is the same as the page's own clock measures it, without the
	// round trips of the DevTools protocol: from navigation to the frame
	// that shows the first rounds, and then how long a task queued on the
	// main thread waits.
	inPage := func() (painted, responsive float64) {
		t.Helper()
		painted = eval[float64](t, ctx, `performance.getEntriesByName('wield:rounds')[0].startTime`)
		wait, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(async () => { const t = performance.now(); await new Promise((r) => setTimeout(r)); return performance.now() - t; })()`, chromedp.EvalAwaitPromise))
		must(t, err)
		return painted, painted + wait
	}

	// Cold: the server reads and folds the journal on the page's request
	// (a figure only, and not under the race detector, where reading the
	// journal takes many times longer).
	if !raceEnabled {
		cold := httptest.NewServer(New(st, nil))
		t.Cleanup(cold.Close)
		painted, open := openPage(cold.URL + "/#s=" + id)
		pagePainted, pageResponsive := inPage()
		t.Logf("FIGURE viewer open %d rounds (journal %.1f MB), cold (the journal read on request): in the page, first rounds painted at %.0fms, responsive at %.0fms; through DevTools %v and %v",
			largeRounds, float64(info.Size())/1e6, pagePainted, pageResponsive, painted.Round(time.Millisecond), open.Round(time.Millisecond))
	}

	// Prepared, as wield view serves a session it names: the journal is
	// read before the URL is printed.
	h := New(st, nil)
	start := time.Now()
	must(t, h.Prepare(ctx, id))
	t.Logf("FIGURE viewer prepare %d rounds: %v", largeRounds, time.Since(start).Round(time.Millisecond))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	must(t, chromedp.Do(ctx, chromedp.Navigate("about:blank")))
	painted, open := openPage(srv.URL + "/#s=" + id)
	pagePainted, pageResponsive := inPage()
	t.Logf("FIGURE viewer open %d rounds, prepared: in the page, first rounds painted at %.0fms, responsive at %.0fms; through DevTools %v and %v",
		largeRounds, pagePainted, pageResponsive, painted.Round(time.Millisecond), open.Round(time.Millisecond))
	if pageResponsive > 1000 {
		t.Errorf("opening a %d-round session took %.0fms by the page's clock, want under 1s", largeRounds, pageResponsive)
	}

	// The page holds one chunk, and scrolling loads more.
	slots := eval[int](t, ctx, `document.querySelectorAll('#rounds .slot').length`)
	eval[bool](t, ctx, `window.scrollTo(0, document.body.scrollHeight), true`)
	if err := chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#rounds .slot[data-i="%d"]`, 2*chunk-1))),
	); err != nil {
		t.Fatal(err)
	}
	if slots > 2*chunk {
		t.Errorf("the page rendered %d rounds at first, want at most %d", slots, 2*chunk)
	}
	// Search goes through every round, rendered or not.
	start = time.Now()
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`#q`), "file_9999.go"),
		chromedp.WaitVisible(`//article[contains(., "Round 9999.")]`),
	); err != nil {
		t.Fatal(err)
	}
	t.Logf("FIGURE viewer search over %d rounds to the last one shown: %v", largeRounds, time.Since(start).Round(time.Millisecond))

	// Export: one file, under a second, that opens the same way.
	var b bytes.Buffer
	start, cpu := time.Now(), cpuTime(t)
	must(t, Export(ctx, &b, st, id))
	exported, exportCPU := time.Since(start), cpuTime(t)-cpu
	t.Logf("FIGURE export %d rounds: %v (%v of CPU), %.1f MB of HTML", largeRounds, exported.Round(time.Millisecond), exportCPU.Round(time.Millisecond), float64(b.Len())/1e6)
	// The CPU time is checked: on a machine shared with other work the
	// wall clock measures the others. The race detector slows Go down
	// several times: no budget then.
	if !raceEnabled && exportCPU > time.Second {
		t.Errorf("exporting a %d-round session took %v of CPU, want under 1s", largeRounds, exportCPU)
	}
	file := filepath.Join(t.TempDir(), "session.html")
	must(t, os.WriteFile(file, b.Bytes(), 0o644))
	start = time.Now()
	if err := chromedp.Do(ctx,
		chromedp.Navigate("file://"+file),
		chromedp.WaitVisible(chromedp.CSS(`#rounds .slot[data-i="0"] article`)),
	); err != nil {
		t.Fatal(err)
	}
	eval[bool](t, ctx, `1 + 1 === 2`)
	pagePainted, pageResponsive = inPage()
	t.Logf("FIGURE exported file open %d rounds: in the page, first rounds painted at %.0fms, responsive at %.0fms; through DevTools %v",
		largeRounds, pagePainted, pageResponsive, time.Since(start).Round(time.Millisecond))
	title, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#title`)))
	must(t, err)
	if !strings.Contains(title, "10000 rounds") {
		t.Errorf("exported page title %q", title)
	}
}
