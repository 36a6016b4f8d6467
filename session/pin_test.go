package session

import (
	"log/slog"
	"testing"
)

func TestPinnedAfterCompaction(t *testing.T) {
	store := &Store{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)}
	s, err := store.Create(t.Context(), Header{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	if err := s.Begin(ctx, "task"); err != nil {
		t.Fatal(err)
	}
	if err := s.Pin("skill:pdf", "/skills/pdf/SKILL.md", "Fill forms."); err != nil {
		t.Fatal(err)
	}
	if got := s.Pinned(); got != nil {
		t.Errorf("Pinned before a compaction = %v", got)
	}
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Compress(ctx, 1, 1, "summary"); err != nil {
		t.Fatal(err)
	}
	got := s.Pinned()
	if len(got) != 1 || got[0].Path != "/skills/pdf/SKILL.md" || got[0].Content != "Fill forms." {
		t.Errorf("Pinned after a compaction = %+v", got)
	}
	// Reopened from the journal, the pin is still there.
	s.Close()
	s2, err := store.Open(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got := s2.Pinned(); len(got) != 1 {
		t.Errorf("Pinned after reopening = %+v", got)
	}
}
