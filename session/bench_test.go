package session

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/wieldhq/wield/tool"
)

// writeJournal writes a journal of n committed turns (rounds of a task, a
// call and its result) to st, line by line as wield writes them.
func writeJournal(b *testing.B, st *Store, id string, n int) {
	b.Helper()
	must(b, os.MkdirAll(st.Dir, 0o755))
	f, err := os.Create(st.Path(id))
	must(b, err)
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	must(b, enc.Encode(Header{Version: JournalVersion, ID: id, CreatedAt: time.Now().UTC()}))
	now := time.Now().UTC()
	for i := 0; i < n; i += 3 {
		cid := fmt.Sprintf("c%d", i)
		must(b, enc.Encode(event{Op: opBegin, Time: now}))
		for _, t := range []Turn{
			{Kind: TurnUserTask, Time: now, Text: "please look at file number " + cid},
			{Kind: TurnFunctionCalling, Time: now, CallID: cid, Tool: "read_file", Arguments: json.RawMessage(`{"path":"src/` + cid + `.go"}`)},
			{Kind: TurnToolResponse, Time: now, CallID: cid, Tool: "read_file", Status: StatusSucceeded, Output: "package main\n\nfunc main() {}\n"},
		} {
			must(b, enc.Encode(event{Op: opPool, Time: now, Turn: &t}))
		}
		must(b, enc.Encode(event{Op: opCommit, Time: now}))
	}
	must(b, w.Flush())
	must(b, f.Close())
}

// reportLatencies reports the p50 and p99 of lat as benchmark metrics.
func reportLatencies(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	if len(lat) == 0 {
		return
	}
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
}

var appendSizes = []int{10, 10_000, 100_000}

// BenchmarkAppend measures one pool append (a tool result) on a session
// that already has N turns, with and without fsync per append.
func BenchmarkAppend(b *testing.B) {
	for _, sync := range []bool{false, true} {
		for _, n := range appendSizes {
			b.Run(fmt.Sprintf("fsync=%v/turns=%d", sync, n), func(b *testing.B) {
				st := &Store{Dir: b.TempDir(), Logger: slog.New(slog.DiscardHandler), Sync: SyncNever}
				if sync {
					st.Sync = SyncAlways
				}
				writeJournal(b, st, "bench", n)
				s, err := st.Open(b.Context(), "bench")
				must(b, err)
				defer s.Close()
				must(b, s.Begin(b.Context(), "bench"))
				res := tool.Result{Success: true, Output: "package main\n\nfunc main() {}\n"}
				c := &tool.Call{ID: "x", Tool: "read_file"}
				lat := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for b.Loop() {
					t0 := time.Now()
					if err := s.RecordResult(b.Context(), c, res); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t0))
				}
				b.StopTimer()
				reportLatencies(b, lat)
			})
		}
	}
}

// BenchmarkAppendRewrite is the baseline: the session kept as one JSON
// document that is rewritten (temp file and rename) on every append.
func BenchmarkAppendRewrite(b *testing.B) {
	for _, sync := range []bool{false, true} {
		for _, n := range []int{10, 10_000} {
			b.Run(fmt.Sprintf("fsync=%v/turns=%d", sync, n), func(b *testing.B) {
				dir := b.TempDir()
				now := time.Now().UTC()
				turns := make([]Turn, 0, n+b.N)
				for i := range n {
					turns = append(turns, Turn{Kind: TurnToolResponse, Time: now, CallID: fmt.Sprint(i), Tool: "read_file",
						Status: StatusSucceeded, Output: "package main\n\nfunc main() {}\n"})
				}
				path := filepath.Join(dir, "session.json")
				lat := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for b.Loop() {
					t0 := time.Now()
					turns = append(turns, Turn{Kind: TurnToolResponse, Time: now, CallID: "x", Tool: "read_file",
						Status: StatusSucceeded, Output: "package main\n\nfunc main() {}\n"})
					data, err := json.Marshal(map[string]any{"id": "bench", "turns": turns})
					must(b, err)
					tmp := path + ".tmp"
					f, err := os.Create(tmp)
					must(b, err)
					_, err = f.Write(data)
					must(b, err)
					if sync {
						must(b, f.Sync())
					}
					must(b, f.Close())
					must(b, os.Rename(tmp, path))
					lat = append(lat, time.Since(t0))
				}
				b.StopTimer()
				reportLatencies(b, lat)
			})
		}
	}
}

// BenchmarkLoad measures folding a journal of 100,000 turns.
func BenchmarkLoad(b *testing.B) {
	st := &Store{Dir: b.TempDir()}
	writeJournal(b, st, "bench", 100_000)
	b.ResetTimer()
	for b.Loop() {
		got, err := st.Load(b.Context(), "bench")
		if err != nil {
			b.Fatal(err)
		}
		if len(got.Turns) < 99_999 {
			b.Fatalf("loaded %d turns", len(got.Turns))
		}
	}
}
