package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/viewer"
)

type viewFlags struct {
	addr   string
	noOpen bool
}

func newViewCommand(g *globals) *cobra.Command {
	var f viewFlags
	cmd := &cobra.Command{
		Use:   "view [--addr HOST:PORT] [--no-open] [SESSION]",
		Short: "show sessions in the browser, live while they run",
		Long: `View serves a web page that shows the workspace's sessions as people read
agent runs: a timeline of rounds, the model's text as Markdown, each tool call
with its arguments, result, duration and approval, diffs of the files it
changed, subagents as a tree you can open, the plan, todos, compactions and
their ledgers, and tokens and cost per round, with search and filters. A
session that is being written updates live.

SESSION is a session id or a unique prefix of one; without it the page opens
the latest session a person started, and lists the others. The page is served
on 127.0.0.1 at a random port, and its URL, printed on stdout, carries a
random token: requests without it are refused. The browser opens when one is
available; --no-open only prints the URL. Ctrl-C stops the server.

To share a session as one file that opens anywhere, offline, use
wield session export --html.

See also: wield session, wield session export.`,
		Example: `  wield view
  wield view 20261125-030554
  wield view --no-open --addr 127.0.0.1:8765`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.view(cmd.Context(), args, f)
		},
	}
	cmd.Flags().StringVar(&f.addr, "addr", "127.0.0.1:0", "listen on `HOST:PORT`, a loopback address (port 0 picks a free one)")
	cmd.Flags().BoolVar(&f.noOpen, "no-open", false, "print the URL without opening a browser")
	return cmd
}

func (g *globals) view(ctx context.Context, args []string, f viewFlags) error {
	if err := checkLoopback(f.addr); err != nil {
		return &exitError{exitUsage, fmt.Errorf("view: %w", err)}
	}
	ws, err := g.workspace()
	if err != nil {
		return err
	}
	st := g.store(ws)
	id := ""
	if len(args) == 1 {
		list, err := st.List(ctx)
		if err != nil {
			return err
		}
		if id, err = matchSession(list, args[0]); err != nil {
			return &exitError{exitUsage, fmt.Errorf("view: %w (wield session ls lists them)", err)}
		}
	}
	token := rand.Text()
	h := viewer.New(st, &viewer.Options{Token: token, Logger: g.logger()})
	if id != "" {
		if err := h.Prepare(ctx, id); err != nil { // read now: the page opens at once
			return fmt.Errorf("view: %w", err)
		}
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	u := "http://" + ln.Addr().String() + "/" + token + "/"
	if id != "" {
		u += "#s=" + url.PathEscape(id)
	}
	fmt.Fprintln(g.stdout, u)
	where := st.Dir
	if st.Backend != nil {
		where = "WIELD_SESSIONS (PostgreSQL)"
	}
	fmt.Fprintln(g.stderr, "wield view: serving the sessions of", where, "- Ctrl-C stops")
	if !f.noOpen {
		if err := openBrowser(u); err != nil {
			fmt.Fprintf(g.stderr, "wield view: open the URL above in a browser (%v)\n", err)
		}
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		srv.Close() // live pages hold their event streams open: close, not Shutdown
		<-done
		return nil
	case err := <-done:
		return fmt.Errorf("view: %w", err)
	}
}

// checkLoopback refuses a listen address that is not a loopback one: the
// token is the only protection, and the page reads every session.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--addr %q: give a loopback address such as 127.0.0.1:0; the viewer serves every session of the workspace", addr)
	}
	return nil
}

// openBrowser opens u in the desktop's browser, when there is one: xdg-open
// on a Linux desktop, open on macOS. It does not wait for the browser.
func openBrowser(u string) error {
	var name string
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		return errors.New("no browser opener on windows yet")
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return errors.New("no graphical display")
		}
		name = "xdg-open"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("%s not found", name)
	}
	c := exec.Command(path, u)
	if err := c.Start(); err != nil {
		return err
	}
	// The opener may live as long as the browser: it is not waited for.
	return c.Process.Release()
}

// addExportHTML gives wield session export its --html and -o flags: the
// viewer's page of the session, with its subagents', as one self-contained
// HTML file.
func addExportHTML(g *globals, export *cobra.Command, storeFor func() (*session.Store, error)) {
	var (
		asHTML bool
		out    string
	)
	export.Use = "export [--html [-o FILE]] ID"
	export.Short = "print a session as one JSON document, or as a web page (--html)"
	export.Flags().BoolVar(&asHTML, "html", false, "write the session as one self-contained HTML page, the view of wield view, subagents included")
	export.Flags().StringVarP(&out, "output", "o", "", "write the --html page to `FILE` instead of stdout")
	jsonRun := export.RunE
	export.RunE = func(cmd *cobra.Command, args []string) error {
		if !asHTML {
			if out != "" {
				return &exitError{exitUsage, errors.New("session export: -o writes the --html page; redirect the JSON instead")}
			}
			return jsonRun(cmd, args)
		}
		st, err := storeFor()
		if err != nil {
			return err
		}
		if out == "" {
			if err := viewer.Export(cmd.Context(), g.stdout, st, args[0]); err != nil {
				return exportError(err)
			}
			return nil
		}
		f, err := os.Create(out)
		if err != nil {
			return fmt.Errorf("session export: %w", err)
		}
		if err := viewer.Export(cmd.Context(), f, st, args[0]); err != nil {
			f.Close()
			os.Remove(out)
			return exportError(err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("session export: %w", err)
		}
		fmt.Fprintf(g.stderr, "wrote %s\n", out)
		return nil
	}
}

func exportError(err error) error {
	if errors.Is(err, session.ErrNotFound) {
		return &exitError{exitUsage, fmt.Errorf("session export: %w (wield session ls lists them)", err)}
	}
	return fmt.Errorf("session export: %w", err)
}
