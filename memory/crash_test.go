package memory

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStore_InterruptedWriteKeepsOldNote fails a replacement after its
// bytes were written but before they were synced and renamed into place:
// the old note is what every reader sees, and no temporary file is left.
func TestStore_InterruptedWriteKeepsOldNote(t *testing.T) {
	cfg := dirs(t)
	s := newStore(t, cfg)
	mustSave(t, s, Note{ID: "port", Body: "The dev server listens on 8080."})
	s.syncFile = func(*os.File) error { return errors.New("input/output error") }
	if _, err := s.Save(Note{ID: "port", Body: "The dev server listens on 9090."}); err == nil || !strings.Contains(err.Error(), "input/output error") {
		t.Fatalf("Save with a failing disk = %v, want the disk's error", err)
	}
	if _, err := s.Save(Note{ID: "new", Body: "A new note."}); err == nil {
		t.Fatal("Save of a new note with a failing disk succeeded")
	}
	entries, err := os.ReadDir(cfg.ProjectDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "MEMORY.md port.md" {
		t.Errorf("the directory holds %v, want MEMORY.md and port.md only", names)
	}
	for _, st := range []*Store{s, newStore(t, cfg)} {
		n, err := st.Get(ScopeProject, "port")
		if err != nil || n.Body != "The dev server listens on 8080.\n" {
			t.Errorf("Get(port) = %+v, %v, want the old note", n, err)
		}
		if hits, _ := st.Search(t.Context(), Query{Text: "9090 new"}); len(hits) != 0 {
			t.Errorf("Search finds what was never written: %v", ids(hits))
		}
	}
}

// TestStore_IgnoresLeftoverTemporaryFiles reads a directory where a
// crash left a half-written temporary file beside the note.
func TestStore_IgnoresLeftoverTemporaryFiles(t *testing.T) {
	cfg := dirs(t)
	mustSave(t, newStore(t, cfg), Note{ID: "port", Body: "The dev server listens on 8080."})
	if err := os.WriteFile(filepath.Join(cfg.ProjectDir, ".port.md.tmp-abc"), []byte("---\nid: port\nThe dev ser"), 0o644); err != nil {
		t.Fatal(err)
	}
	notes, err := newStore(t, cfg).List("")
	if err != nil || len(notes) != 1 || notes[0].Body != "The dev server listens on 8080.\n" {
		t.Errorf("List = %+v, %v, want the note alone", notes, err)
	}
}

// TestStore_KilledWriterLeavesWholeNote kills (SIGKILL) a process that
// keeps replacing a large note, and reads what it left: one whole
// version, never a mix of two.
func TestStore_KilledWriterLeavesWholeNote(t *testing.T) {
	if dir := os.Getenv("WIELD_MEMORY_CRASH_DIR"); dir != "" {
		crashChild(dir)
		return
	}
	dir := t.TempDir()
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStore_KilledWriterLeavesWholeNote$")
		cmd.Env = append(os.Environ(), "WIELD_MEMORY_CRASH_DIR="+dir)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Each line is one finished save; kill after a few, at whatever
		// point the next one has reached.
		sc := bufio.NewScanner(out)
		for range 3 + round*4 {
			if !sc.Scan() {
				cmd.Wait()
				t.Fatalf("the writer stopped: %v %s", sc.Err(), stderr.String())
			}
		}
		cmd.Process.Kill()
		cmd.Wait()

		n, err := New(Config{ProjectDir: dir}).Get(ScopeProject, "big")
		if err != nil {
			t.Fatal(err)
		}
		words := strings.Fields(n.Body)
		if len(words) != crashWords || strings.Count(n.Body, words[0]) != crashWords {
			t.Fatalf("round %d: the note mixes versions or is cut: %d words, first %q", round, len(words), words[0])
		}
	}
}

const crashWords = 5000 // about 50 KB, under MaxNoteBytes

// crashChild replaces the note "big" in dir forever, printing a line
// after each save.
func crashChild(dir string) {
	s := New(Config{ProjectDir: dir})
	for i := 0; ; i++ {
		word := fmt.Sprintf("version%d", i)
		if _, err := s.Save(Note{ID: "big", Body: strings.Repeat(word+" ", crashWords)}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(i)
	}
}
