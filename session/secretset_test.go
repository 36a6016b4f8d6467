package session

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/tool"
)

// TestLiveSecretsStayOutOfJournals adds a secret after the session is
// open and checks that nothing written afterwards holds it.
func TestLiveSecretsStayOutOfJournals(t *testing.T) {
	live := &SecretSet{}
	dir := t.TempDir()
	store := &Store{Dir: dir, Live: live, Logger: slog.New(slog.DiscardHandler)}
	s, err := store.Create(t.Context(), Header{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const secret = "pw-4711-hunter"
	if !live.Add(secret) {
		t.Fatal("Add refused a real secret")
	}
	ctx := context.Background()
	if err := s.Begin(ctx, "use the password "+secret); err != nil {
		t.Fatal(err)
	}
	c := &tool.Call{ID: "c1", Tool: "deploy"}
	if err := s.RecordCall(ctx, c, json.RawMessage(`{"pw":"`+secret+`"}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordResult(ctx, c, tool.Result{Success: true, Output: "logged in with " + secret, Data: map[string]string{"echo": secret}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(map[string]any{"note": secret}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), secret) {
			t.Errorf("%s holds the secret", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSecretSet(t *testing.T) {
	var s SecretSet
	for _, v := range []string{"", "abc", "\xff\xfe\xfd\xfc", "REDACTED"} {
		if s.Add(v) {
			t.Errorf("Add(%q) = true", v)
		}
	}
	if got := s.Redact("nothing to hide"); got != "nothing to hide" {
		t.Errorf("Redact on an empty set = %q", got)
	}
	s.Add("s3cr3t")
	// Six bytes: a whole token only.
	if got := s.Redact(`token s3cr3t and "s3cr3ts3cr3t"`); got != `token [REDACTED] and "s3cr3ts3cr3t"` {
		t.Errorf("Redact = %q", got)
	}
	if got := string(s.RedactJSON(json.RawMessage(`{"a":"x s3cr3t","n":1}`))); got != `{"a":"x [REDACTED]","n":1}` {
		t.Errorf("RedactJSON = %s", got)
	}
	if !s.AddKnown("x") || !s.Has("x") || s.Has("y") {
		t.Error("AddKnown refused a one-letter key")
	}
	if got := s.Redact("script exhausted; key=x"); got != "script exhausted; key=[REDACTED]" {
		t.Errorf("Redact = %q", got)
	}
	for _, v := range []string{"", "\xff", "]", "REDACTED"} {
		if s.AddKnown(v) {
			t.Errorf("AddKnown(%q) = true", v)
		}
	}
	var nilSet *SecretSet
	if nilSet.Redact("a") != "a" || nilSet.Len() != 0 {
		t.Error("a nil set changed text")
	}
}
