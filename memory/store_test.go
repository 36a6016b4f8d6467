package memory

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestStore_RecallInAnotherSession saves in one store and recalls in a
// second one over the same directories, as two sessions would.
func TestStore_RecallInAnotherSession(t *testing.T) {
	cfg := dirs(t)
	first := newStore(t, cfg)
	mustSave(t, first, Note{Body: "The staging database is reset every Monday at 06:00 UTC.", Tags: []string{"Ops"}, Source: SourceAgent, SourceSession: "s1"})
	mustSave(t, first, Note{Scope: ScopeUser, Body: "Answer in British English.", Source: SourceUser})

	second := newStore(t, cfg)
	hits, err := second.Search(t.Context(), Query{Text: "when is staging reset?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Note.ID != "staging-database-reset-every-monday-06-00-utc" {
		t.Fatalf("Search = %v, want the staging note", ids(hits))
	}
	n, err := second.Get("", hits[0].Note.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := Note{ID: "staging-database-reset-every-monday-06-00-utc", Scope: ScopeProject, Tags: []string{"ops"},
		Created: time.Date(2026, 5, 1, 10, 1, 0, 0, time.UTC), Modified: time.Date(2026, 5, 1, 10, 1, 0, 0, time.UTC),
		Source: SourceAgent, SourceSession: "s1", Body: "The staging database is reset every Monday at 06:00 UTC.\n"}
	if diff := cmp.Diff(&want, n); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	user, err := second.Get(ScopeUser, "answer-british-english")
	if err != nil || user.Source != SourceUser {
		t.Errorf("Get(user) = %+v, %v", user, err)
	}
	if _, err := second.Get(ScopeProject, "answer-british-english"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(project, a user note) error = %v, want ErrNotFound", err)
	}
}

// TestStore_SeesOtherWriters checks that a store that has read the
// notes sees notes another store (another process) wrote or removed
// afterwards.
func TestStore_SeesOtherWriters(t *testing.T) {
	cfg := dirs(t)
	reader, writer := newStore(t, cfg), newStore(t, cfg)
	if hits, err := reader.Search(t.Context(), Query{}); err != nil || len(hits) != 0 {
		t.Fatalf("Search on nothing = %v, %v", hits, err)
	}
	mustSave(t, writer, Note{ID: "deep/er/note", Body: "Kafka topics are named team.domain.event."})
	hits, _ := reader.Search(t.Context(), Query{Text: "kafka"})
	if diff := cmp.Diff([]string{"project:deep/er/note"}, ids(hits)); diff != "" {
		t.Errorf("after another store saved (-want +got):\n%s", diff)
	}
	if err := writer.Delete(ScopeProject, "deep/er/note"); err != nil {
		t.Fatal(err)
	}
	if hits, _ := reader.Search(t.Context(), Query{Text: "kafka"}); len(hits) != 0 {
		t.Errorf("after another store deleted: %v", ids(hits))
	}
}

func TestStore_Duplicates(t *testing.T) {
	s := newStore(t, dirs(t))
	mustSave(t, s, Note{ID: "ci", Body: "CI runs on every push to main and on pull requests."})
	_, err := s.Save(Note{Body: "ci runs on EVERY push to main, and on pull-requests"})
	if dup, ok := errors.AsType[*DuplicateError](err); !ok || dup.ID != "ci" || dup.Scope != ScopeProject {
		t.Fatalf("Save(exact duplicate) error = %v, want a DuplicateError naming ci", err)
	}
	// The same text in the other scope is not refused, only reported.
	res := mustSave(t, s, Note{Scope: ScopeUser, Body: "CI runs on every push to main and on pull requests."})
	if len(res.Similar) != 1 || res.Similar[0].ID != "ci" || res.Similar[0].Jaccard != 1 {
		t.Errorf("Save(same text, user scope).Similar = %+v, want ci at 1", res.Similar)
	}
	// 6 distinct terms shared of 8: ci runs every push main pull requests
	// (7) against ci runs every push main pull requests only (8): 7/8.
	res = mustSave(t, s, Note{Body: "CI runs on every push to main and on pull requests only."})
	if len(res.Similar) != 2 || res.Similar[0].Jaccard != 7.0/8 {
		t.Errorf("Save(near duplicate).Similar = %+v, want two at 7/8", res.Similar)
	}
	res = mustSave(t, s, Note{Body: "Deploys happen on Fridays."})
	if len(res.Similar) != 0 {
		t.Errorf("Save(unrelated).Similar = %+v, want none", res.Similar)
	}
	// Replacing a note with its own text is not a duplicate.
	if _, err := s.Save(Note{ID: "ci", Body: "CI runs on every push to main and on pull requests."}); err != nil {
		t.Errorf("Save(same id, same text) = %v", err)
	}
}

func TestStore_SaveReplaces(t *testing.T) {
	cfg := dirs(t)
	s := newStore(t, cfg)
	first := mustSave(t, s, Note{ID: "port", Body: "The dev server listens on 8080."})
	if first.Replaced {
		t.Error("first save reported Replaced")
	}
	second := mustSave(t, s, Note{ID: "port", Body: "The dev server listens on 9090 since May.", Tags: []string{"dev"}})
	if !second.Replaced || !second.Note.Created.Equal(first.Note.Created) || !second.Note.Modified.After(first.Note.Modified) {
		t.Errorf("replace: %+v after %+v", second, first)
	}
	if hits, _ := s.Search(t.Context(), Query{Text: "8080"}); len(hits) != 0 {
		t.Errorf("the old text is still found: %v", ids(hits))
	}
	data, err := os.ReadFile(filepath.Join(cfg.ProjectDir, "port.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "---\nid: port\nscope: project\ntags: [dev]\ncreated: 2026-05-01T10:01:00Z\nmodified: 2026-05-01T10:02:00Z\n---\nThe dev server listens on 9090 since May.\n"
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("port.md (-want +got):\n%s", diff)
	}
}

func TestStore_Refuses(t *testing.T) {
	cfg := dirs(t)
	s := newStore(t, cfg)
	tests := []struct {
		name string
		n    Note
		want string
	}{
		{"no words", Note{Body: " ... \n"}, "no words"},
		{"too long", Note{Body: strings.Repeat("word ", MaxNoteBytes/5+1)}, "keep notes short"},
		{"dotdot", Note{ID: "../x", Body: "x"}, "begins with a dot"},
		{"unclean", Note{ID: "a//b", Body: "x"}, "not a clean relative path"},
		{"absolute", Note{ID: "/etc/x", Body: "x"}, "not a clean relative path"},
		{"hidden", Note{ID: "a/.x", Body: "x"}, "begins with a dot"},
		{"index", Note{ID: "memory", Body: "x"}, "generated index"},
		{"space", Note{ID: "a b", Body: "x"}, "use letters"},
		{"unknown scope", Note{Scope: "team", Body: "x"}, "no directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Save(tt.n)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Save(%+v) error = %v, want one saying %q", tt.n, err, tt.want)
			}
		})
	}
	noUser := newStore(t, Config{ProjectDir: cfg.ProjectDir})
	if _, err := noUser.Save(Note{Scope: ScopeUser, Body: "x"}); !errors.Is(err, ErrNoScope) {
		t.Errorf("Save(user) without a user directory = %v, want ErrNoScope", err)
	}
}

func TestStore_DeleteRename(t *testing.T) {
	cfg := dirs(t)
	s := newStore(t, cfg)
	mustSave(t, s, Note{ID: "old", Body: "Use make generate after editing the schema."})
	if err := s.Rename(ScopeProject, "old", "build/generate"); err != nil {
		t.Fatal(err)
	}
	n, err := s.Get(ScopeProject, "build/generate")
	if err != nil || n.ID != "build/generate" || !strings.Contains(string(n.Markdown()), "id: build/generate") {
		t.Fatalf("Get after Rename = %+v, %v", n, err)
	}
	if _, err := s.Get(ScopeProject, "old"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(old) after Rename = %v, want ErrNotFound", err)
	}
	mustSave(t, s, Note{ID: "other", Body: "Another note."})
	if err := s.Rename(ScopeProject, "other", "build/generate"); err == nil {
		t.Error("Rename onto an existing note succeeded")
	}
	if err := s.Delete(ScopeProject, "build/generate"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ScopeProject, "build/generate"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delete = %v, want ErrNotFound", err)
	}
	if err := s.Delete(ScopeProject, "other"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cfg.ProjectDir, IndexName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("MEMORY.md after the last note went: %v, want it removed", err)
	}
}

// TestStore_HandWrittenNotes checks files a person wrote: without
// frontmatter, in subdirectories, and what is skipped.
func TestStore_HandWrittenNotes(t *testing.T) {
	cfg := dirs(t)
	write := func(rel, text string) {
		p := filepath.Join(cfg.ProjectDir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("plain.md", "# Deploy checklist\n\n1. Bump the version.\n2. Tag.\n")
	write("team/owners.md", "---\ntags: [people]\n---\nPayments is owned by the billing team.\n")
	write("broken.md", "---\ntags: [unclosed\n---\nDeploy text never indexed.\n")
	write("notes.txt", "Deploy text in a txt file.\n")
	write(".hidden/deploy.md", "Deploy in a hidden dir.\n")
	write("bad name.md", "Deploy with a space.\n")
	write(IndexName, "Deploy in the index.\n")
	if err := os.Symlink(filepath.Join(cfg.ProjectDir, "plain.md"), filepath.Join(cfg.ProjectDir, "link.md")); err != nil {
		t.Fatal(err)
	}
	s := newStore(t, cfg)
	notes, err := s.List("")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range notes {
		got = append(got, n.ID+" "+n.Title()+" "+strings.Join(n.Tags, ","))
	}
	want := []string{"plain Deploy checklist ", "team/owners Payments is owned by the billing team. people"}
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
}

// TestStore_Index checks MEMORY.md: generated on writes, newest first,
// never over IndexLines lines, with a count of the notes left out.
func TestStore_Index(t *testing.T) {
	cfg := dirs(t)
	s := newStore(t, cfg)
	// Notes written by hand (as many saves would, only faster), then one
	// save, which writes the index.
	if err := os.MkdirAll(cfg.ProjectDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range IndexLines + 50 {
		at := time.Date(2026, 4, 1, 0, i, 0, 0, time.UTC)
		n := Note{ID: fmt.Sprintf("n%03d", i), Body: fmt.Sprintf("Fact number %d\n", i), Tags: []string{"t"}, Created: at, Modified: at}
		if err := os.WriteFile(filepath.Join(cfg.ProjectDir, n.ID+".md"), n.Markdown(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustSave(t, s, Note{ID: "web", Body: "The API answers in XML.", Tainted: true})
	data, err := os.ReadFile(filepath.Join(cfg.ProjectDir, IndexName))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != IndexLines {
		t.Errorf("MEMORY.md has %d lines, want %d", len(lines), IndexLines)
	}
	wantHead := []string{
		"# Memory (project)",
		"Generated from the notes in this directory, newest first; edit the notes, not this file.",
		"",
		"- [web](web.md) The API answers in XML. (2026-05-01, written after reading external content)",
		"- [n249](n249.md) Fact number 249 #t (2026-04-01)",
	}
	if diff := cmp.Diff(wantHead, lines[:5]); diff != "" {
		t.Errorf("MEMORY.md head (-want +got):\n%s", diff)
	}
	if last, want := lines[len(lines)-1], "- … and 55 more notes"; last != want {
		t.Errorf("MEMORY.md ends with %q, want %q", last, want)
	}
	idx, err := s.Index(ScopeProject)
	if err != nil || idx != string(data) {
		t.Errorf("Index differs from MEMORY.md (%v)", err)
	}
	if idx, err := s.Index(ScopeUser); idx != "" || err != nil {
		t.Errorf("Index(user) = %q, %v, want empty", idx, err)
	}
}
