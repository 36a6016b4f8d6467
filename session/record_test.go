package session

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRecords appends a feature's records around a transaction and a
// file change and reads them back: the journal line is the op, the time
// and the value's fields; Round and Files place each record; Latest and
// RecordsOf find them, in the session and once reloaded.
func TestRecords(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	s, err := st.Create(ctx, Header{ID: "r"})
	must(t, err)
	type note struct {
		Text string `json:"text"`
		N    int    `json:"n,omitempty"`
	}
	first, err := s.Append("note", note{Text: "<before>"})
	must(t, err)
	if want := `{"op":"note","t":"2026-11-23T12:00:00Z","text":"<before>"}`; string(first.Data) != want {
		t.Errorf("journal line %s, want %s", first.Data, want)
	}
	must(t, s.Begin(ctx, "task"))
	must(t, s.RecordFileChange(ctx, FileChange{Root: t.TempDir(), CallID: "c", Path: "a.txt", After: &FileContent{Data: []byte("x")}}))
	_, err = s.AppendFunc("note", func(st *State) (any, error) {
		return note{Text: "in round", N: len(st.Files)}, nil
	})
	must(t, err)
	must(t, s.Commit(ctx))
	_, err = s.Append("other", struct{}{})
	must(t, err)

	type place struct {
		Kind, Text   string
		Round, Files int
	}
	want := []place{{"note", "<before>", 0, 0}, {"note", "in round", 1, 1}, {"other", "", 1, 1}}
	check := func(label string, st *State) {
		t.Helper()
		var got []place
		for _, r := range st.Records {
			var n note
			must(t, r.Decode(&n))
			got = append(got, place{r.Kind, n.Text, r.Round, r.Files})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: records (-want +got):\n%s", label, diff)
		}
		if n := len(st.RecordsOf("note")); n != 2 {
			t.Errorf("%s: RecordsOf(note) has %d records, want 2", label, n)
		}
		if r, ok := st.Latest("note"); !ok || !strings.Contains(string(r.Data), `"n":1`) {
			t.Errorf("%s: Latest(note) = %s, %v", label, r.Data, ok)
		}
		if _, ok := st.Latest("none"); ok {
			t.Errorf("%s: Latest of a kind never appended found one", label)
		}
	}
	check("written", s.State())
	must(t, s.Close())
	loaded, err := st.Load(ctx, "r")
	must(t, err)
	check("reloaded", loaded)
}

// TestAppendRefuses: a record of a session operation's kind, one that is
// not a JSON object, and one whose builder fails are refused, and nothing
// is written.
func TestAppendRefuses(t *testing.T) {
	st := newStore(t)
	s, err := st.Create(t.Context(), Header{ID: "bad"})
	must(t, err)
	defer s.Close()
	boom := errors.New("boom")
	tests := []struct {
		name   string
		append func() error
		want   string
	}{
		{"no kind", func() error { _, err := s.Append("", struct{}{}); return err }, "needs a kind"},
		{"a session operation", func() error { _, err := s.Append("commit", struct{}{}); return err }, "operation of the session itself"},
		{"not an object", func() error { _, err := s.Append("note", []int{1}); return err }, "JSON object"},
		{"unencodable", func() error { _, err := s.Append("note", map[string]any{"f": func() {}}); return err }, "encode note record"},
		{"the builder fails", func() error {
			_, err := s.AppendFunc("note", func(*State) (any, error) { return nil, boom })
			return err
		}, "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.append()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
	if n := len(s.State().Records); n != 0 {
		t.Errorf("%d records written, want none", n)
	}
}

// TestRecordRedacted: a secret in a record's value never reaches the
// journal.
func TestRecordRedacted(t *testing.T) {
	st := newStore(t)
	st.Secrets = []string{"sk-live-0123456789abcdef"}
	s, err := st.Create(t.Context(), Header{ID: "sec"})
	must(t, err)
	r, err := s.Append("note", map[string]string{"text": "key sk-live-0123456789abcdef here"})
	must(t, err)
	must(t, s.Close())
	if strings.Contains(string(r.Data), "0123456789abcdef") {
		t.Errorf("the secret is in the record: %s", r.Data)
	}
	var got map[string]string
	must(t, json.Unmarshal(r.Data, &got))
	if got["text"] != "key "+Redacted+" here" {
		t.Errorf("text = %q", got["text"])
	}
}
