package memory_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/wieldhq/wield/memory"
)

func ExampleStore_Search() {
	dir, _ := os.MkdirTemp("", "memory")
	defer os.RemoveAll(dir)
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	s := memory.New(memory.Config{ProjectDir: filepath.Join(dir, ".wield", "memory"), Now: func() time.Time { return now }})

	s.Save(memory.Note{Body: "Run go test -race before every commit.", Tags: []string{"testing"}})
	s.Save(memory.Note{Body: "Releases are tagged by scripts/release.sh.", Tags: []string{"release"}})
	_, err := s.Save(memory.Note{Body: "run go test -race before every commit"})
	fmt.Println(err)

	hits, _ := s.Search(context.Background(), memory.Query{Text: "how are releases tagged?"})
	for _, h := range hits {
		fmt.Printf("%s: %s\n", h.Note.ID, h.Note.Title())
	}
	index, _ := s.Index(memory.ScopeProject)
	fmt.Print(index)
	// Output:
	// the same text is already saved as project note run-go-test-race-before-every-commit
	// releases-tagged-scripts-release-sh: Releases are tagged by scripts/release.sh.
	// # Memory (project)
	// Generated from the notes in this directory, newest first; edit the notes, not this file.
	//
	// - [releases-tagged-scripts-release-sh](releases-tagged-scripts-release-sh.md) Releases are tagged by scripts/release.sh. #release (2026-05-01)
	// - [run-go-test-race-before-every-commit](run-go-test-race-before-every-commit.md) Run go test -race before every commit. #testing (2026-05-01)
}
