package pgstore_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	mrand "math/rand/v2"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/pgstore"
	"github.com/wieldhq/wield/session/pgstore/pgtest"
	"github.com/wieldhq/wield/session/planmode"
	"github.com/wieldhq/wield/session/sessiontest"
	"github.com/wieldhq/wield/tool"
)

// TestMain lets the test binary act as the writer that TestKill kills.
func TestMain(m *testing.M) {
	if os.Getenv("WIELD_PGSTORE_CHILD") == "writer" {
		writer(os.Getenv("WIELD_PGSTORE_URL"), os.Getenv("WIELD_PGSTORE_SCHEMA"), os.Getenv("WIELD_PGSTORE_SESSION"))
		return
	}
	os.Exit(m.Run())
}

// newBackend returns a backend in a schema of the test's own.
func newBackend(t testing.TB) *pgstore.Backend {
	t.Helper()
	url := pgtest.URL(t)
	be, err := pgstore.New(context.Background(), url, &pgstore.Options{Schema: pgtest.Schema(t, url)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(be.Close)
	return be
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestConformance runs the backend conformance suite on PostgreSQL; each
// Store it asks for has a backend, and so a pool, of its own, as another
// process would.
func TestConformance(t *testing.T) {
	url := pgtest.URL(t)
	sessiontest.Run(t, func(t *testing.T) func() *session.Store {
		schema := pgtest.Schema(t, url)
		return func() *session.Store {
			be, err := pgstore.New(context.Background(), url, &pgstore.Options{Schema: schema})
			must(t, err)
			t.Cleanup(be.Close)
			return &session.Store{Backend: be}
		}
	})
}

// script writes the same session into st, with a fixed clock: every
// kind of event, a fork, an inbox record, a picture and a repair on open.
func script(t *testing.T, st *session.Store) (ids []string) {
	t.Helper()
	clock := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	st.Now = func() time.Time { clock = clock.Add(time.Second); return clock }
	st.Secrets = []string{"sk-not-a-real-key-0123456789"}
	ctx := context.Background()
	s, err := st.Create(ctx, session.Header{ID: "same", Purpose: "byte identity", Model: "m"})
	must(t, err)
	sessiontest.Round(t, s, "first, with sk-not-a-real-key-0123456789 in it", "a", 2)
	must(t, s.SetTodos([]session.Todo{{Title: "one", Status: "pending"}}))
	must(t, s.AddReference("README.md", false))
	must(t, s.Set(map[string]any{"context_mode": "inline", "n": 3}))
	must(t, planmode.Set(s, "plan", ".wield/plans/same/p.md"))
	must(t, s.Begin(ctx, "second"))
	c := &tool.Call{ID: "pic", Tool: "screenshot"}
	must(t, s.RecordCall(ctx, c, json.RawMessage(`{"w":1}`)))
	r := tool.Text("a picture")
	r.Images = []tool.Image{{MIMEType: "image/png", Data: []byte("png")}}
	must(t, s.RecordResult(ctx, c, r))
	must(t, s.Pause(ctx, []tool.PendingCall{{ID: "p1", Tool: "shell", Reason: "asks"}}))
	must(t, s.Commit(ctx))
	must(t, s.Close())
	// An outsider's record goes to the journal through Open and commit.
	must(t, st.Record(ctx, "same", &tool.Call{ID: "ext", Tool: "echo"}, nil, tool.Text("outside")))
	// A transaction left open is closed as aborted on the next Open.
	s, err = st.Open(ctx, "same")
	must(t, err)
	must(t, s.Begin(ctx, "left open"))
	must(t, s.RecordResponse(ctx, &llm.Response{Message: llm.Message{Role: llm.RoleAssistant,
		ToolCalls: []llm.ToolCall{{ID: "dangling", Name: "echo", Arguments: json.RawMessage(`{}`)}}}}))
	must(t, s.Close())
	s, err = st.Open(ctx, "same")
	must(t, err)
	must(t, s.Close())
	fork, err := st.Fork(ctx, "same", 4)
	must(t, err)
	return []string{"same", fork}
}

// TestSameBytes writes one session to the file backend and to
// PostgreSQL and checks that the journals are the same bytes, and read
// back as the same state.
func TestSameBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := &session.Store{Dir: dir, Logger: slog.New(slog.DiscardHandler)}
	be := newBackend(t)
	pg := &session.Store{Backend: be, Logger: slog.New(slog.DiscardHandler)}
	fileIDs, pgIDs := script(t, files), script(t, pg)
	for i := range fileIDs {
		want, err := os.ReadFile(files.Path(fileIDs[i]))
		must(t, err)
		r, err := be.Read(t.Context(), pgIDs[i])
		must(t, err)
		got, err := io.ReadAll(r)
		must(t, err)
		// A fork's id is random; it is the only difference allowed.
		got = bytes.ReplaceAll(got, []byte(pgIDs[i]), []byte(fileIDs[i]))
		if !bytes.Equal(got, want) {
			t.Fatalf("journal %d differs:\npostgres: %s\n   files: %s", i, got, want)
		}
		fst, err := files.Load(t.Context(), fileIDs[i])
		must(t, err)
		pst, err := pg.Load(t.Context(), pgIDs[i])
		must(t, err)
		pst.Header.ID = fst.Header.ID
		if !reflect.DeepEqual(fst.Export(), pst.Export()) {
			t.Fatalf("session %d: the states differ", i)
		}
		info, err := pg.Stat(t.Context(), pgIDs[i])
		must(t, err)
		if info.Size != int64(len(want)) {
			t.Errorf("Stat(%s).Size = %d, want %d", pgIDs[i], info.Size, len(want))
		}
	}
	if !bytes.Contains(mustRead(t, files.Path("same")), []byte(session.Redacted)) {
		t.Error("the secret was not redacted")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	return b
}

// writer appends rounds to session id forever, printing "locked" once it
// holds the writer lock, "step" after every event and "committed N"
// after each commit, until it is killed.
func writer(url, schema, id string) {
	out := bufio.NewWriter(os.Stdout)
	fail := func(err error) {
		fmt.Fprintln(out, "error:", err)
		out.Flush()
		os.Exit(1)
	}
	ctx := context.Background()
	be, err := pgstore.New(ctx, url, &pgstore.Options{Schema: schema})
	if err != nil {
		fail(err)
	}
	st := &session.Store{Backend: be, Logger: slog.New(slog.DiscardHandler)}
	s, err := st.Open(ctx, id)
	if errors.Is(err, session.ErrNotFound) {
		s, err = st.Create(ctx, session.Header{ID: id})
	}
	if err != nil {
		fail(err)
	}
	fmt.Fprintln(out, "locked")
	out.Flush()
	step := func(err error) {
		if err != nil {
			fail(err)
		}
		fmt.Fprintln(out, "step")
		out.Flush()
	}
	for n := len(s.State().Pools) + 1; ; n++ {
		step(s.Begin(ctx, "round "+strconv.Itoa(n)))
		calls := []llm.ToolCall{{ID: fmt.Sprintf("r%d-a", n), Name: "echo", Arguments: json.RawMessage(`{"text":"a"}`)},
			{ID: fmt.Sprintf("r%d-b", n), Name: "echo", Arguments: json.RawMessage(`{"text":"b"}`)}}
		step(s.RecordResponse(ctx, &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: calls}}))
		for _, c := range calls {
			step(s.RecordCall(ctx, &tool.Call{ID: c.ID, Tool: c.Name}, c.Arguments))
		}
		for _, c := range calls {
			step(s.RecordResult(ctx, &tool.Call{ID: c.ID, Tool: c.Name}, tool.Text(strings.Repeat("x", 100*n%4000))))
		}
		step(s.Commit(ctx))
		fmt.Fprintln(out, "committed", n)
		out.Flush()
	}
}

// TestKill kills a writing child process with SIGKILL at random moments
// and checks after each kill that another Store opens the session at
// once (the server ends the dead writer's connection, and its lock with
// it), that no kill left part of a write, and that the state is whole:
// every committed round kept, every call with exactly one result.
func TestKill(t *testing.T) {
	t.Parallel()
	const kills = 12
	url := pgtest.URL(t)
	schema := pgtest.Schema(t, url)
	be, err := pgstore.New(context.Background(), url, &pgstore.Options{Schema: schema})
	must(t, err)
	t.Cleanup(be.Close)
	st := &session.Store{Backend: be, Logger: slog.New(slog.DiscardHandler)}
	rng := mrand.New(mrand.NewPCG(20261125, 27))
	committed := map[int]bool{}
	var waited []time.Duration
	retried := 0 // kills after which the first Open found the lock still held
	for i := range kills {
		// Each child's connections carry a name of their own, by which
		// the server's list of connections tells them apart.
		app := fmt.Sprintf("wield-kill-%s-%d", schema, i)
		childURL, err := withApplicationName(url, app)
		must(t, err)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "WIELD_PGSTORE_CHILD=writer", "WIELD_PGSTORE_URL="+childURL,
			"WIELD_PGSTORE_SCHEMA="+schema, "WIELD_PGSTORE_SESSION=kill")
		stdout, err := cmd.StdoutPipe()
		must(t, err)
		must(t, cmd.Start())
		r := bufio.NewScanner(stdout)
		if !r.Scan() || r.Text() != "locked" {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("kill %d: the child did not take the lock: %q", i, r.Text())
		}
		// While the child holds the lock, nobody else gets it.
		var busy *session.BusyError
		if _, err := st.Open(t.Context(), "kill"); !errors.As(err, &busy) || busy.PID != cmd.Process.Pid {
			t.Fatalf("kill %d: Open while the child writes: %v, want a BusyError naming pid %d", i, err, cmd.Process.Pid)
		}
		for left := rng.IntN(40); left > 0 && r.Scan(); {
			line := r.Text()
			if n, ok := strings.CutPrefix(line, "committed "); ok {
				k, _ := strconv.Atoi(n)
				committed[k] = true
				continue
			}
			if strings.HasPrefix(line, "error:") {
				t.Fatalf("kill %d: child failed: %s", i, line)
			}
			left--
		}
		must(t, cmd.Process.Signal(syscall.SIGKILL))
		_ = cmd.Wait()
		// The server runs to its end what the child had sent it (a
		// commit), and ends the child's connections when it reads their
		// closed sockets, a moment after the kill: until then the
		// journal may still change under what follows.
		waitForConnectionsGone(t, url, app)

		// No kill leaves part of a write: the journal ends a line.
		rd, err := be.Read(t.Context(), "kill")
		must(t, err)
		raw, err := io.ReadAll(rd)
		must(t, err)
		if len(raw) == 0 || raw[len(raw)-1] != '\n' {
			t.Fatalf("kill %d: the journal ends in a torn line: %q", i, raw[max(0, len(raw)-80):])
		}
		before, err := st.Load(t.Context(), "kill")
		must(t, err)
		dangling := unanswered(append(slices.Clone(before.Turns), before.Pool...))

		// The child's connections have ended, and its lock with them
		// (a server process gives its locks back before it leaves the
		// list of connections). Should Open find the lock held all the
		// same, it waits for the lock, the event itself, and tries again.
		opening := time.Now()
		s, err := st.Open(t.Context(), "kill")
		if errors.As(err, &busy) {
			retried++
			waitForLock(t, url, schema, "kill")
			s, err = st.Open(t.Context(), "kill")
		}
		if err != nil {
			t.Fatalf("kill %d: reopening failed: %v", i, err)
		}
		waited = append(waited, time.Since(opening))
		got := s.State()
		must(t, s.Close())
		if got.Open() {
			t.Fatalf("kill %d: transaction still open after Open", i)
		}
		if n := len(unanswered(got.Turns)); n != 0 {
			t.Fatalf("kill %d: %d calls without a result after Open", i, n)
		}
		results := map[string]int{}
		for _, tr := range got.Turns {
			if tr.Kind == session.TurnToolResponse {
				results[tr.CallID]++
			}
		}
		for id, n := range results {
			if n != 1 {
				t.Fatalf("kill %d: call %s has %d results, want 1", i, id, n)
			}
		}
		for _, c := range dangling {
			if tr := resultOf(got.Turns, c); tr == nil || !tr.Interrupted {
				t.Fatalf("kill %d: dangling call %s has no interrupted result", i, c)
			}
		}
		tasks := map[string]bool{}
		for _, tr := range got.Turns {
			if tr.Kind == session.TurnUserTask {
				tasks[tr.Text] = true
			}
		}
		for k := range committed {
			if !tasks["round "+strconv.Itoa(k)] {
				t.Fatalf("kill %d: committed round %d is lost", i, k)
			}
		}
	}
	if len(committed) == 0 {
		t.Error("no round was ever committed; the kills came too early to test anything")
	}
	slices.Sort(waited)
	t.Logf("%d kills, %d rounds committed; reopening (repair included) took median %v, max %v; %d opens waited for the server to end the dead connection",
		kills, len(committed), waited[len(waited)/2], waited[len(waited)-1], retried)
}

// withApplicationName returns the connection URL rawURL with its
// application_name set to app.
func withApplicationName(rawURL, app string) (string, error) {
	u, err := neturl.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("connection URL: %w", err)
	}
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// waitForConnectionsGone waits, at most 30 seconds, until the server at
// url has no connection named app left: it asks the server's list of
// connections (pg_stat_activity) until none of them is named app. A
// server process leaves the list when it exits, after what it ran has
// ended (committed, or rolled back).
func waitForConnectionsGone(t *testing.T, url, app string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	must(t, err)
	defer conn.Close(context.WithoutCancel(ctx))
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	for {
		var n int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&n)
		if err != nil {
			t.Fatalf("connections of %s: %v", app, err)
		}
		if n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the server still has %d connections of %s: %v", n, app, context.Cause(ctx))
		case <-poll.C:
		}
	}
}

// waitForLock waits, at most 10 seconds, until the writer lock of session
// id is free: it asks the server for the lock itself, which it grants
// when the holder's connection ends, and gives it back.
func waitForLock(t *testing.T, url, schema, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	must(t, err)
	defer conn.Close(ctx)
	key := "wield session " + schema + "/" + id
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtextextended($1, 0))`, key); err != nil {
		t.Fatalf("the lock of session %s was not released: %v", id, err)
	}
	_, err = conn.Exec(ctx, `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, key)
	must(t, err)
}

// unanswered returns the ids of the calls in turns without a result.
func unanswered(turns []session.Turn) []string {
	answered := map[string]bool{}
	for _, tr := range turns {
		if tr.Kind == session.TurnToolResponse {
			answered[tr.CallID] = true
		}
	}
	var out []string
	for _, tr := range turns {
		for _, c := range tr.Calls {
			if !answered[c.ID] {
				out = append(out, c.ID)
			}
		}
	}
	return out
}

func resultOf(turns []session.Turn, id string) *session.Turn {
	for i := range turns {
		if turns[i].Kind == session.TurnToolResponse && turns[i].CallID == id {
			return &turns[i]
		}
	}
	return nil
}

// TestLostLock checks that a writer whose lock connection ended cannot
// append: its write fails, and the journal keeps what the next writer
// wrote.
func TestLostLock(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	be := newBackend(t)
	st := &session.Store{Backend: be}
	s, err := st.Create(t.Context(), session.Header{ID: "lost"})
	must(t, err)
	defer s.Close()
	// An administrator (or a network failure) ends the writer's
	// connection.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	must(t, err)
	defer conn.Close(ctx)
	var n int
	must(t, conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid, 10000)) FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0)`,
		"wield session "+be.Schema()+"/lost").Scan(&n))
	if n != 1 {
		t.Fatalf("found %d holders of the lock, want 1", n)
	}
	if err := s.Begin(ctx, "after the lock is gone"); err == nil {
		t.Fatal("a writer without its lock appended")
	}
	other := &session.Store{Backend: be}
	s2, err := other.Open(ctx, "lost")
	must(t, err)
	sessiontest.Round(t, s2, "the next writer", "n", 1)
	must(t, s2.Close())
	got, err := other.Load(ctx, "lost")
	must(t, err)
	if len(got.Pools) != 1 || got.Pools[0].Status != session.PoolCommitted {
		t.Fatalf("pools = %+v, want the next writer's round only", got.Pools)
	}
}

// TestOpenLazy checks that Open does not connect until it is used, and
// that a bad URL or schema is reported by the calls.
func TestOpenLazy(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, url, schema, want string }{
		{"bad URL", "postgres://%zz", "", "session store"},
		{"bad schema", "postgres://localhost/x", "Robert'); DROP TABLE", "schema"},
		{"no server", "postgres://wield@127.0.0.1:1/x?connect_timeout=5", "", "session store"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			be := pgstore.Open(tt.url, &pgstore.Options{Schema: tt.schema})
			defer be.Close()
			st := &session.Store{Backend: be}
			_, err := st.Load(t.Context(), "x")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load: %v, want an error about %q", err, tt.want)
			}
			if _, err := st.Create(t.Context(), session.Header{ID: "x"}); err == nil {
				t.Fatal("Create succeeded")
			}
		})
	}
}

// BenchmarkRound measures a whole round on each backend: the task, a
// response with one call, the call, its result and the commit, two of
// them synced (the task and the commit) under SyncCommit.
func BenchmarkRound(b *testing.B) {
	for _, name := range []string{"file", "postgres"} {
		b.Run(name, func(b *testing.B) {
			st := &session.Store{Dir: filepath.Join(b.TempDir(), "sessions")}
			if name == "postgres" {
				st = &session.Store{Backend: newBackend(b)}
			}
			s, err := st.Create(b.Context(), session.Header{ID: "bench"})
			must(b, err)
			defer s.Close()
			ctx := context.Background()
			i := 0
			for b.Loop() {
				id := "c" + strconv.Itoa(i)
				must(b, s.Begin(ctx, "round"))
				must(b, s.RecordResponse(ctx, &llm.Response{Message: llm.Message{Role: llm.RoleAssistant,
					ToolCalls: []llm.ToolCall{{ID: id, Name: "echo", Arguments: json.RawMessage(`{}`)}}}}))
				must(b, s.RecordCall(ctx, &tool.Call{ID: id, Tool: "echo"}, json.RawMessage(`{}`)))
				must(b, s.RecordResult(ctx, &tool.Call{ID: id, Tool: "echo"}, tool.Text("ok")))
				must(b, s.Commit(ctx))
				i++
			}
		})
	}
}

// BenchmarkAppendTurn measures one appended turn (a RecordCall) on each
// backend, and reports the median as p50-ns.
func BenchmarkAppendTurn(b *testing.B) {
	for _, name := range []string{"file", "postgres"} {
		b.Run(name, func(b *testing.B) {
			st := &session.Store{Dir: filepath.Join(b.TempDir(), "sessions")}
			if name == "postgres" {
				st = &session.Store{Backend: newBackend(b)}
			}
			s, err := st.Create(b.Context(), session.Header{ID: "bench"})
			must(b, err)
			defer s.Close()
			ctx := context.Background()
			must(b, s.Begin(ctx, "bench"))
			var times []time.Duration
			i := 0
			for b.Loop() {
				start := time.Now()
				must(b, s.RecordCall(ctx, &tool.Call{ID: "c" + strconv.Itoa(i), Tool: "echo"}, json.RawMessage(`{"text":"a turn of ordinary size"}`)))
				times = append(times, time.Since(start))
				i++
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
		})
	}
}

// TestJournal drives a journal directly: appends, a cut through the middle
// of an append, and a stale handle that no longer knows the journal's
// length, which must neither write nor cut.
func TestJournal(t *testing.T) {
	t.Parallel()
	be := newBackend(t)
	read := func() string {
		t.Helper()
		r, err := be.Read(t.Context(), "j")
		must(t, err)
		b, err := io.ReadAll(r)
		must(t, err)
		return string(b)
	}
	lock, err := be.Lock(t.Context(), "j")
	must(t, err)
	defer lock.Unlock()
	j, err := lock.Create(t.Context(), []byte("head\n"), true)
	must(t, err)
	if _, err := lock.Create(t.Context(), []byte("again\n"), true); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("a second Create: %v, want fs.ErrExist", err)
	}
	for _, line := range []string{"one\n", "two\n"} {
		_, err := j.Write([]byte(line))
		must(t, err)
	}
	must(t, j.Sync())
	stale, err := lock.Open(t.Context())
	must(t, err)
	must(t, j.Truncate(11)) // head\none\ntw
	if got := read(); got != "head\none\ntw" {
		t.Fatalf("after Truncate(11): %q", got)
	}
	if err := j.Truncate(12); err == nil {
		t.Fatal("Truncate grew the journal")
	}
	_, err = j.Write([]byte("o\n"))
	must(t, err)
	if got := read(); got != "head\none\ntwo\n" {
		t.Fatalf("after a write at the cut: %q", got)
	}
	if info, err := be.Stat(t.Context(), "j"); err != nil || info.Size != 13 {
		t.Fatalf("Stat = %+v, %v; want 13 bytes", info, err)
	}
	// stale was opened when the journal had 13 bytes too, then it was
	// cut and grew again: same length, so it may write; a second stale
	// handle then may not.
	_, err = stale.Write([]byte("three\n"))
	must(t, err)
	if _, err := j.Write([]byte("lost\n")); err == nil {
		t.Fatal("a handle that does not know the journal's length wrote")
	}
	if err := j.Truncate(5); err == nil {
		t.Fatal("a handle that does not know the journal's length cut the journal")
	}
	if got := read(); got != "head\none\ntwo\nthree\n" {
		t.Fatalf("the journal is %q", got)
	}
	must(t, j.Close())
	if _, err := j.Write([]byte("x\n")); err == nil {
		t.Fatal("a closed journal wrote")
	}
}

// BenchmarkOpen measures a worker taking over a session of 20 rounds:
// Open (the lock, the read, the inbox) and Close.
func BenchmarkOpen(b *testing.B) {
	for _, name := range []string{"file", "postgres"} {
		b.Run(name, func(b *testing.B) {
			st := &session.Store{Dir: filepath.Join(b.TempDir(), "sessions")}
			if name == "postgres" {
				st = &session.Store{Backend: newBackend(b)}
			}
			s, err := st.Create(b.Context(), session.Header{ID: "bench"})
			must(b, err)
			ctx := context.Background()
			for i := range 20 {
				id := "c" + strconv.Itoa(i)
				must(b, s.Begin(ctx, "round"))
				must(b, s.RecordCall(ctx, &tool.Call{ID: id, Tool: "echo"}, json.RawMessage(`{}`)))
				must(b, s.RecordResult(ctx, &tool.Call{ID: id, Tool: "echo"}, tool.Text("ok")))
				must(b, s.Commit(ctx))
			}
			must(b, s.Close())
			for b.Loop() {
				s, err := st.Open(ctx, "bench")
				must(b, err)
				must(b, s.Close())
			}
		})
	}
}

// TestSpareConnectionEnded checks that a writer connection kept for reuse
// that the server ended meanwhile is replaced, not returned as an error.
func TestSpareConnectionEnded(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	be := newBackend(t)
	ctx := context.Background()
	lock, err := be.Lock(ctx, "first")
	must(t, err)
	conn, err := pgx.Connect(ctx, url)
	must(t, err)
	defer conn.Close(ctx)
	var pid int
	must(t, conn.QueryRow(ctx, `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
		AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0)`, "wield session "+be.Schema()+"/first").Scan(&pid))
	must(t, lock.Unlock()) // the connection is kept for the next writer
	var ended bool
	must(t, conn.QueryRow(ctx, `SELECT pg_terminate_backend($1, 10000)`, pid).Scan(&ended))
	if !ended {
		t.Fatal("the kept connection was not ended")
	}
	lock, err = be.Lock(ctx, "second")
	must(t, err)
	j, err := lock.Create(ctx, []byte("{}\n"), true)
	must(t, err)
	must(t, j.Close())
	must(t, lock.Unlock())
}

// TestCancel checks that Lock, Read and List return as soon as their ctx
// ends, with an error wrapping context.Canceled, while the server keeps
// their queries waiting: another transaction holds the tables they need
// for the whole test, and Options.Timeout is an hour. Each ctx is
// cancelled once its query has been sent.
func TestCancel(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	schema := pgtest.Schema(t, url)
	cfg, err := pgxpool.ParseConfig(url)
	must(t, err)
	sent := &queryStarts{}
	cfg.ConnConfig.Tracer = sent
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	must(t, err)
	t.Cleanup(pool.Close)
	be, err := pgstore.NewFromPool(t.Context(), pool, &pgstore.Options{Schema: schema, Timeout: time.Hour})
	must(t, err)
	t.Cleanup(be.Close)
	s, err := (&session.Store{Backend: be}).Create(t.Context(), session.Header{ID: "held"})
	must(t, err)
	sessiontest.Round(t, s, "one", "a", 1)
	must(t, s.Close())

	conn, err := pgx.Connect(t.Context(), url)
	must(t, err)
	defer conn.Close(context.WithoutCancel(t.Context()))
	tx, err := conn.Begin(t.Context())
	must(t, err)
	defer tx.Rollback(context.WithoutCancel(t.Context()))
	_, err = tx.Exec(t.Context(), fmt.Sprintf(`LOCK TABLE %[1]s.sessions, %[1]s.journal, %[1]s.writers IN ACCESS EXCLUSIVE MODE`,
		pgx.Identifier{schema}.Sanitize()))
	must(t, err)

	for _, tt := range []struct {
		name  string
		query string // a query the call sends, which waits for the tables
		call  func(ctx context.Context) error
	}{
		{"Lock", "writers (session_id", func(ctx context.Context) error { _, err := be.Lock(ctx, "held"); return err }},
		{"Read", "SELECT off, data", func(ctx context.Context) error { _, err := be.Read(ctx, "held"); return err }},
		{"List", "SELECT id, size, modified", func(ctx context.Context) error { _, err := be.List(ctx); return err }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			started := sent.expect(tt.query)
			done := make(chan error, 1)
			go func() { done <- tt.call(ctx) }()
			select {
			case <-started:
				cancel()
			case err := <-done:
				t.Fatalf("%s returned before its query was sent, with the tables held: %v", tt.name, err)
			}
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("%s after its ctx was cancelled: %v, want an error wrapping context.Canceled", tt.name, err)
			}
		})
	}
}

// queryStarts is a pgx tracer that tells a test when a query it expects
// has been sent.
type queryStarts struct {
	mu      sync.Mutex
	want    string
	started chan struct{}
}

// expect returns a channel closed when a query whose SQL holds want is
// next sent.
func (q *queryStarts) expect(want string) <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.want, q.started = want, make(chan struct{})
	return q.started
}

func (q *queryStarts) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.started != nil && strings.Contains(data.SQL, q.want) {
		close(q.started)
		q.started = nil
	}
	return ctx
}

func (q *queryStarts) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
